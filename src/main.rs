//! The `wgstress` command line: a thin layer over wgstress-instrument and wgstress-runtime.
//! Each command is a folder or file of its own (run/, fences/, progress/, ...) that parses its
//! options, builds a validated plan before any GPU work, runs it and shows the results; what
//! several share is in options.rs (their options), session/ (the plan of a session on an
//! application, output paths, adapters) and present/ (the progress bar, numbers, colours).
//!
//! Exit status: 0 when every run passed, 1 when some run failed, 2 on bad input or an error,
//! 130 when interrupted by SIGINT (Ctrl-C), 143 by SIGTERM.

mod apps;
mod campaign;
mod colour;
mod compare;
mod completions;
mod fanout;
mod fences;
mod instrument;
mod interrupt;
mod litmus;
mod merge;
mod mutants;
mod notes;
mod options;
mod present;
mod progress;
mod record;
mod reference;
mod run;
mod runtime_dir;
#[cfg(unix)]
mod serve;
mod session;
mod status;
mod tune;

use clap::{Parser, Subcommand};
use notes::Notes;
use status::Status;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "wgstress",
    version,
    about = "Find weak-memory bugs in WGSL compute applications by stress testing them on a real GPU"
)]
struct Cli {
    /// Print no notes or progress on stderr (errors still)
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(flatten)]
    colour: colour::ColourOption,
    // None: `wgstress` alone prints its help, as `wgstress --help` does, and exits 0.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Rewrite a WGSL application: stress workgroups, assertion hooks, loop watchdog
    Instrument(instrument::Args),
    /// Run an application many times under stress and report how often it fails
    Run(run::Args),
    /// Run an application under every stress strategy, with and without shuffling
    Compare(compare::Args),
    /// Run a parallel litmus test (mp, sb, lb, corr, coww, cowr, corw, 2+2w, or one of the MC
    /// Mutants suite: --list)
    Litmus(litmus::Args),
    /// Run the MC Mutants suite: death rates, mutation score, conformance violations; or
    /// search for the environment that kills the most mutants
    Mutants(mutants::Args),
    /// Forward progress: an application under the schedulers other GPUs have (APP: progress
    /// models, occupancy bounds; which waits starve, the weakest model it needs), or progress
    /// litmus tests: each test's verdict under every model (--oracle), the generated suite
    /// (--generate), the suite run on this GPU to find the models it conforms to (--suite,
    /// --tests)
    Progress(progress::Args),
    /// Tune systematic stress to this GPU with litmus tests; writes a device profile
    Tune(tune::Args),
    /// Find the storage barriers that stop an application's failures (delta debugging over
    /// its candidate fence sites), or list the sites, or write it with a barrier at every one
    Fences(fences::Args),
    /// Run a campaign's plan (its I-th of N shards; on one adapter or all), each item a
    /// wgstress command of its own, logged for `merge`
    Campaign(campaign::Args),
    /// Merge campaign logs of every shard, host and GPU into one report; judge it against a
    /// baseline
    Merge(merge::Args),
    /// Serve a page that makes every browser that opens it a device running a campaign's
    /// plan (by default "test this GPU"), logged for `merge` as a campaign's devices are
    #[cfg(unix)]
    Serve(serve::Args),
    /// Record the WebGPU compute work of a web page (in headless Chromium) or a Node program
    /// as it runs, and write the spec that replays it (dispatches, bindings, initial
    /// contents, its read-backs as checks)
    Record(record::Args),
    /// Turn a Rust program's wgpu API trace (Trace::Directory) into the spec that replays it;
    /// the words it could read back come from two raw replays on this adapter. It reads the
    /// trace.ron of wgpu 30, and refuses an older wgpu's by what tells it apart
    Import(record::import::Args),
    /// List the bundled applications
    Apps,
    /// List the GPU adapters wgpu finds
    Adapters(apps::AdaptersArgs),
    /// Print a shell's completion script for every command and option
    Completions(completions::Args),
    /// Write the command-line reference: a man page (--man) or a markdown page (--markdown)
    /// per command, generated from the same definitions as --help
    Reference(reference::Args),
}

/// The stack the command runs on. naga's parser and validator, wgpu's backends and
/// wgstress's passes recurse once per level a shader nests, up to
/// `wgstress_instrument::MAX_NESTING` levels (refused past it), at up to about 32 KiB a level
/// in a debug build; the main thread's 8 MiB held 250. Only the pages used are committed.
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let command = std::thread::Builder::new()
        .name("main".into())
        .stack_size(STACK_BYTES)
        .spawn(command);
    match command {
        Ok(thread) => thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        // No room for the stack: the main thread's is better than none.
        Err(_) => self::command(),
    }
}

fn command() -> ExitCode {
    runtime_dir::ensure();
    interrupt::install();
    let json = wants_json(std::env::args_os());
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => return fail(&clap_message(&e), json),
        // --help and --version.
        Err(e) => {
            let _ = notes::emit(&e.render().to_string());
            return ExitCode::SUCCESS;
        }
    };
    match execute(cli) {
        Ok(status) => status.code(),
        Err(error) if closed_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            interrupt::hold_if_quitting();
            fail(&one_line(&error), json)
        }
    }
}

/// Whether the command line asks for JSON on stdout (`--json`, before any `--`): a failing
/// command then prints `{"error": ...}` there too, so that a script reading stdout sees it.
/// Read from the arguments themselves, so that a command line clap refuses gets it as well.
fn wants_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    args.skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}

/// Builds the command's plan, then runs it: every bad input fails in the first step.
fn execute(cli: Cli) -> anyhow::Result<Status> {
    use clap::CommandFactory;
    cli.colour.apply();
    let notes = Notes { on: !cli.quiet };
    let Some(command) = cli.command else {
        // As cargo does: the help, to stdout, and success. The help is what `--help` prints
        // (clap's layout for it depends on the help texts), so it is asked for as `--help`.
        let help = match Cli::command().try_get_matches_from(["wgstress", "--help"]) {
            Err(help) => help.render().to_string(),
            Ok(_) => Cli::command().render_long_help().to_string(),
        };
        notes::emit(&help)?;
        return Ok(Status::Passed);
    };
    match command {
        Command::Instrument(args) => instrument::execute(instrument::plan(&args)?, notes),
        Command::Run(args) => run::execute(run::plan(&args)?, notes),
        Command::Compare(args) => compare::execute(compare::plan(&args)?, notes),
        Command::Litmus(args) => litmus::execute(litmus::plan(&args)?, notes),
        Command::Mutants(args) => mutants::execute(mutants::plan(&args)?, notes),
        Command::Progress(args) => progress::execute(progress::plan(&args)?, notes),
        Command::Tune(args) => tune::execute(tune::plan(&args)?, notes),
        Command::Fences(args) => fences::execute(fences::plan(&args)?, notes),
        Command::Campaign(args) => campaign::execute(campaign::plan(&args, &check_item)?, notes),
        Command::Merge(args) => merge::execute(merge::plan(&args)?, notes),
        #[cfg(unix)]
        Command::Serve(args) => serve::execute(serve::plan(&args, &check_item)?, notes),
        Command::Record(args) => record::execute(record::plan(&args)?, notes),
        Command::Import(args) => record::import::execute(record::import::plan(&args)?, notes),
        Command::Apps => apps::list(),
        Command::Adapters(args) => apps::adapters(&args),
        Command::Completions(args) => completions::execute(&args, Cli::command()),
        Command::Reference(args) => {
            reference::execute(reference::plan(&args, Cli::command())?, notes)
        }
    }
}

/// Checks a campaign item's arguments (after `wgstress`) as its command would: parsed, then
/// planned, which reads its spec and checks its values and paths, with no device opened.
fn check_item(args: &[String]) -> Result<(), String> {
    use clap::{CommandFactory, FromArgMatches};
    thread_local! {
        // Built once for all items: building clap's command tree for each of 20,000 items
        // took most of a plan's listing.
        static PARSER: std::cell::RefCell<clap::Command> = RefCell::new(Cli::command());
    }
    use std::cell::RefCell;
    let argv = std::iter::once("wgstress".to_string()).chain(args.iter().cloned());
    let cli = PARSER
        .with(|parser| parser.borrow_mut().try_get_matches_from_mut(argv))
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map_err(|e| clap_message(&e))?;
    let planned = match cli.command {
        Some(Command::Run(a)) => run::plan(&a).map(drop),
        Some(Command::Compare(a)) => compare::plan(&a).map(drop),
        Some(Command::Fences(a)) => fences::plan(&a).map(drop),
        Some(Command::Litmus(a)) => litmus::plan(&a).map(drop),
        Some(Command::Mutants(a)) => mutants::plan(&a).map(drop),
        Some(Command::Progress(a)) => progress::plan(&a).map(drop),
        _ => Err(anyhow::anyhow!(
            "a campaign runs run, compare, fences, litmus, mutants and progress"
        )),
    };
    planned.map_err(|e| one_line(&e))
}

fn fail(message: &str, json: bool) -> ExitCode {
    // Control characters from the user's input (a name, a path) are escaped.
    let message = &wgstress_model::escape::lines(message);
    eprintln!("wgstress: error: {message}");
    // One JSON document an invocation: an error after the results is on stderr alone.
    if json && !notes::results_written() {
        #[derive(serde::Serialize)]
        struct Failed<'a> {
            error: &'a str,
        }
        if let Ok(line) = serde_json::to_string(&Failed { error: message }) {
            println!("{line}");
        }
    }
    ExitCode::from(2)
}

/// clap's message without its "error: " prefix, usage and hints: the first line, and the
/// next one when the first ends in a colon (the missing arguments); then the choices of a
/// value that is not one of them, or the name clap suggests for a mistyped one.
fn clap_message(error: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let text = error.render().to_string();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let mut message = match lines.next().filter(|_| first.ends_with(':')) {
        Some(next) => format!("{first} {}", next.trim()),
        None => first.to_string(),
    };
    let strings = |kind| match error.get(kind) {
        Some(ContextValue::Strings(values)) => values.clone(),
        Some(ContextValue::String(value)) => vec![value.clone()],
        _ => Vec::new(),
    };
    let choices = strings(ContextKind::ValidValue);
    if !choices.is_empty() {
        message.push_str(&format!(": give one of {}", choices.join(", ")));
    }
    for kind in [
        ContextKind::SuggestedArg,
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedValue,
    ] {
        let suggested = strings(kind);
        if !suggested.is_empty() {
            message.push_str(&format!("; did you mean {}?", suggested.join(" or ")));
        }
    }
    format!("{message} (see --help)")
}

/// The error and its causes on one line. The runtime's and the instrumenter's messages are
/// complete in themselves (a shader error carries naga's whole reason): their sources are not
/// repeated.
pub(crate) fn one_line(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if cause.is::<wgstress_instrument::InstrumentError>() {
            parts.push(text);
            break;
        }
        let text = text.lines().next().unwrap_or_default().to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        if cause.is::<wgstress_runtime::RuntimeError>() {
            break;
        }
    }
    parts.join(": ")
}

/// Whether writing results failed because stdout was closed (`| head`): not an error.
fn closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
