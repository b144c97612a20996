//! `wgstress completions SHELL`: the shell's completion script for every command and option,
//! written by clap_complete from the same definitions that parse the command line.

use crate::notes::emit;
use crate::status::Status;
use anyhow::Result;
use clap_complete::Shell;

#[derive(clap::Args)]
pub struct Args {
    /// The shell whose completion script to print (bash: `source <(wgstress completions
    /// bash)`, or save it where the shell loads completions from)
    #[arg(value_enum)]
    shell: Shell,
}

/// Prints the script for `args.shell`, completing `command` (the whole command line).
pub fn execute(args: &Args, mut command: clap::Command) -> Result<Status> {
    // Into memory first: clap_complete panics when its writer fails, and a closed stdout
    // (`| head`) is not an error (main ends quietly on it).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "wgstress", &mut script);
    emit(&String::from_utf8_lossy(&script))?;
    Ok(Status::Passed)
}
