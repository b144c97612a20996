//! `wgstress reference`: the command-line reference, generated from the clap definitions that
//! parse the command line, so that the help, the man pages and the user guide cannot
//! disagree: a man page per command (`--man DIR`), a markdown page per command
//! (`--markdown DIR`; the book's docs/reference/, which tests/cli_reference.rs checks).

pub mod markdown;

use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::{anyhow, bail, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[group(required = true, multiple = true)]
pub struct Args {
    /// Write a man page per command into DIR (created if missing), e.g.
    /// ~/.local/share/man/man1; a page already there is not replaced
    #[arg(long, value_name = "DIR")]
    man: Option<PathBuf>,
    /// Write a markdown page per command into DIR (created if missing), as the user guide's
    /// docs/reference/ holds them; a page already there is not replaced
    #[arg(long, value_name = "DIR")]
    markdown: Option<PathBuf>,
}

/// The pages to write, each with its path: none of them there yet, every directory one or
/// to be created. Man pages and markdown pages differ in name, so one directory may take both.
pub struct Plan {
    pages: Vec<Output>,
}

struct Output {
    dir: PathBuf,
    path: PathBuf,
    text: Vec<u8>,
}

/// Plans the pages of `command`, the whole command line.
pub fn plan(args: &Args, command: clap::Command) -> Result<Plan> {
    let mut pages = Vec::new();
    if let Some(dir) = &args.man {
        pages.extend(outputs(dir, "--man", man_pages(command.clone())?)?);
    }
    if let Some(dir) = &args.markdown {
        let markdown = markdown::pages(command)
            .into_iter()
            .map(|page| (page.file, page.text.into_bytes()))
            .collect();
        pages.extend(outputs(dir, "--markdown", markdown)?);
    }
    Ok(Plan { pages })
}

/// The pages `flag` writes into `dir`, refused when `dir` is a file or one of them is
/// already there: nothing is overwritten (remove an older set first).
fn outputs(dir: &Path, flag: &str, pages: Vec<(String, Vec<u8>)>) -> Result<Vec<Output>> {
    if dir.exists() && !dir.is_dir() {
        bail!("{}: {flag} names a file, not a directory", dir.display());
    }
    let outputs: Vec<Output> = pages
        .into_iter()
        .map(|(file, text)| Output {
            dir: dir.to_path_buf(),
            path: dir.join(file),
            text,
        })
        .collect();
    if let Some(there) = outputs.iter().find(|page| page.path.exists()) {
        bail!(
            "{}: exists; {flag} replaces no file (remove the old pages first)",
            there.path.display()
        );
    }
    Ok(outputs)
}

/// A man page for `root` and each of its visible commands: (file name, roff).
fn man_pages(mut root: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    fn collect(command: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
        let man = clap_mangen::Man::new(command.clone());
        let mut roff = Vec::new();
        man.render(&mut roff)?;
        pages.push((man.get_filename(), roff));
        for sub in markdown::visible(command) {
            collect(sub, pages)?;
        }
        Ok(())
    }
    root.build();
    let mut pages = Vec::new();
    collect(&root, &mut pages)?;
    Ok(pages)
}

/// Writes the pages, creating their directories, and lists the files written on stdout.
pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    for page in &plan.pages {
        std::fs::create_dir_all(&page.dir)
            .map_err(|e| anyhow!("{}: cannot create: {e}", page.dir.display()))?;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&page.path)
            .map_err(|e| anyhow!("{}: cannot write: {e}", page.path.display()))?;
        file.write_all(&page.text)
            .map_err(|e| anyhow!("{}: cannot write: {e}", page.path.display()))?;
    }
    let count = plan.pages.len();
    notes.note(&format!(
        "wrote {count} page{}",
        if count == 1 { "" } else { "s" }
    ));
    let list: String = plan
        .pages
        .iter()
        .map(|page| format!("{}\n", page.path.display()))
        .collect();
    emit(&list)?;
    Ok(Status::Passed)
}
