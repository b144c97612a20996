//! The command-line reference as markdown, a page per command, written from the clap
//! definitions that parse the command line: each page says what that command's `--help`
//! says (its description, usage, arguments and options with their help, defaults and values).

use clap::{Arg, Command};

/// The first line of every page: where it comes from and how it is made again, so that the
/// help is what gets edited, never the copy.
pub const HEADER: &str = "<!-- Generated from wgstress's clap definitions by `wgstress reference --markdown DIR`: edit the help in src/, then run `WGSTRESS_BLESS=1 cargo test --test cli_reference`. -->";

/// Lines of prose are wrapped at this width, as the hand-written pages are.
const WIDTH: usize = 95;

/// One page: its file name and its text.
pub struct Page {
    pub file: String,
    pub text: String,
}

/// The page of `root` and of each of its visible commands, depth first, parents first.
pub fn pages(mut root: Command) -> Vec<Page> {
    // Built, clap fills in each command's full name, usage, and its --help and --version.
    root.build();
    let mut pages = Vec::new();
    collect(&root, &mut pages);
    pages
}

fn collect(command: &Command, pages: &mut Vec<Page>) {
    pages.push(page(command));
    for sub in visible(command) {
        collect(sub, pages);
    }
}

/// The commands a user can give under `command`, in the order `--help` lists them: neither
/// hidden nor clap's `help`, whose reference is each page's `--help`.
pub fn visible(command: &Command) -> Vec<&Command> {
    let mut commands: Vec<&Command> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .collect();
    commands.sort_by_key(|sub| (sub.get_display_order(), sub.get_name()));
    commands
}

/// A command's page file: its name with its parents' (`wgstress-run.md`).
pub fn file_name(command: &Command) -> String {
    format!("{}.md", display_name(command))
}

fn display_name(command: &Command) -> String {
    command
        .get_display_name()
        .unwrap_or(command.get_name())
        .to_string()
}

fn full_name(command: &Command) -> String {
    command
        .get_bin_name()
        .unwrap_or(command.get_name())
        .to_string()
}

fn page(command: &Command) -> Page {
    let mut text = format!("{HEADER}\n\n# `{}`\n\n", full_name(command));
    let about = command
        .get_long_about()
        .or(command.get_about())
        .map(|about| about.to_string())
        .unwrap_or_default();
    for paragraph in paragraphs(&about) {
        text.push_str(&wrap(&escape(paragraph), ""));
        text.push_str("\n\n");
    }
    let usage = command.clone().render_usage().to_string();
    text.push_str(&format!("```text\n{}\n```\n", usage.trim_end()));
    let commands = visible(command);
    if !commands.is_empty() {
        text.push_str("\n## Commands\n\n");
        for sub in commands {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            let link = format!("[`{}`]({})", full_name(sub), file_name(sub));
            text.push_str(&item(&link, &about, &[]));
        }
    }
    let shown = |arg: &&Arg| !arg.is_hide_set();
    let positionals: Vec<&Arg> = command.get_positionals().filter(shown).collect();
    if !positionals.is_empty() {
        text.push_str("\n## Arguments\n\n");
        for arg in positionals {
            text.push_str(&argument(arg));
        }
    }
    let mut options: Vec<&Arg> = command
        .get_arguments()
        .filter(shown)
        .filter(|arg| !arg.is_positional())
        .collect();
    options.sort_by_key(|arg| option_order(arg));
    // Under their help headings, as `--help` groups them: those without one first.
    let mut headings: Vec<Option<&str>> = vec![None];
    for arg in &options {
        if !headings.contains(&arg.get_help_heading()) {
            headings.push(arg.get_help_heading());
        }
    }
    for heading in headings {
        let under: Vec<&&Arg> = options
            .iter()
            .filter(|arg| arg.get_help_heading() == heading)
            .collect();
        if under.is_empty() {
            continue;
        }
        text.push_str(&format!(
            "\n## {}\n\n",
            escape(heading.unwrap_or("Options"))
        ));
        for arg in under {
            text.push_str(&argument(arg));
        }
    }
    Page {
        file: file_name(command),
        text,
    }
}

/// Where `--help` lists an option: by its display order (declaration order, for derived
/// options), then short flags before long ones, lower case before upper.
fn option_order(arg: &Arg) -> (usize, String) {
    let key = match (arg.get_short(), arg.get_long()) {
        (Some(short), _) => {
            let case = if short.is_ascii_lowercase() { '0' } else { '1' };
            format!("{}{case}", short.to_ascii_lowercase())
        }
        (None, Some(long)) => long.to_string(),
        (None, None) => arg.get_id().to_string(),
    };
    (arg.get_display_order(), key)
}

/// An argument's list item: how it is written, its help, its default and its values.
fn argument(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|help| help.to_string())
        .unwrap_or_default();
    let mut extra = Vec::new();
    let takes_values = arg.get_action().takes_values();
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|value| format!("`{}`", value.to_string_lossy()))
        .collect();
    if takes_values && !defaults.is_empty() && !arg.is_hide_default_value_set() {
        extra.push(format!("Default: {}.", defaults.join(", ")));
    }
    let values: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|value| !value.is_hide_set())
        .collect();
    if takes_values && !values.is_empty() && !arg.is_hide_possible_values_set() {
        if values.iter().all(|value| value.get_help().is_none()) {
            let names: Vec<String> = values
                .iter()
                .map(|value| format!("`{}`", value.get_name()))
                .collect();
            extra.push(format!("Values: {}.", names.join(", ")));
        } else {
            let mut list = String::from("Values:\n\n");
            for value in &values {
                let help = value.get_help().map(|h| h.to_string()).unwrap_or_default();
                let name = format!("`{}`", value.get_name());
                list.push_str(&item(&name, &help, &[]));
            }
            extra.push(list.trim_end().to_string());
        }
    }
    item(&signature(arg), &help, &extra)
}

/// How an argument is written on the command line: `-o`, `--out <FILE>`, `<APP>`,
/// `[FILE]...`.
fn signature(arg: &Arg) -> String {
    let names: Vec<String> = match arg.get_value_names() {
        Some(names) => names.iter().map(|n| n.to_string()).collect(),
        None => vec![arg.get_id().as_str().to_uppercase()],
    };
    let many = arg
        .get_num_args()
        .is_some_and(|range| range.max_values() > 1);
    let dots = if many { "..." } else { "" };
    if arg.is_positional() {
        let (open, close) = match arg.is_required_set() {
            true => ('<', '>'),
            false => ('[', ']'),
        };
        let values: Vec<String> = names.iter().map(|n| format!("{open}{n}{close}")).collect();
        return format!("`{}{dots}`", values.join(" "));
    }
    let mut written = Vec::new();
    if let Some(short) = arg.get_short() {
        written.push(format!("-{short}"));
    }
    for short in arg.get_visible_short_aliases().unwrap_or_default() {
        written.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        written.push(format!("--{long}"));
    }
    for long in arg.get_visible_aliases().unwrap_or_default() {
        written.push(format!("--{long}"));
    }
    if arg.get_action().takes_values() {
        let values: Vec<String> = names.iter().map(|n| format!("<{n}>")).collect();
        if let Some(last) = written.last_mut() {
            *last = format!("{last} {}{dots}", values.join(" "));
        }
    }
    let written: Vec<String> = written.iter().map(|w| format!("`{w}`")).collect();
    written.join(", ")
}

/// A list item: `head`, then the help's paragraphs and `extra`'s, each indented under it.
fn item(head: &str, help: &str, extra: &[String]) -> String {
    let mut blocks: Vec<String> = paragraphs(help).map(escape).collect();
    let first = match blocks.is_empty() {
        true => head.to_string(),
        false => format!("{head}: {}", blocks.remove(0)),
    };
    let mut text = format!("- {}\n", wrap(&first, "  ").trim_start());
    for block in blocks {
        text.push_str(&format!("\n{}\n", wrap(&block, "  ")));
    }
    for block in extra {
        text.push('\n');
        for line in block.lines() {
            match line.is_empty() {
                true => text.push('\n'),
                false => text.push_str(&format!("  {line}\n")),
            }
        }
    }
    text
}

/// The paragraphs of a help text (clap keeps a doc comment's blank lines).
fn paragraphs(text: &str) -> impl Iterator<Item = &str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|paragraph| !paragraph.is_empty())
}

/// Help text as markdown that shows it as written: outside code spans, the characters
/// markdown would read as markup are escaped (`<APP>` would be an HTML tag, `*` emphasis);
/// what the help puts in backticks stays a code span.
fn escape(text: &str) -> String {
    let spans: Vec<&str> = text.split('`').collect();
    // An odd number of backticks: no pairs to trust, every one escaped.
    let paired = spans.len() % 2 == 1;
    let mut out = String::new();
    for (i, span) in spans.iter().enumerate() {
        if i > 0 {
            out.push_str(if paired { "`" } else { "\\`" });
        }
        if paired && i % 2 == 1 {
            out.push_str(span);
            continue;
        }
        for c in span.chars() {
            if matches!(c, '\\' | '<' | '>' | '*' | '_' | '[' | ']' | '&' | '|') {
                out.push('\\');
            }
            out.push(if c == '\n' { ' ' } else { c });
        }
    }
    out
}

/// `text` on lines of at most `WIDTH` characters where its words allow, each after
/// `indent`. A line never starts with a word markdown could read as the start of a block (a
/// list item, a heading, a setext underline): such a word goes down with the word before it,
/// or stays on the line before.
fn wrap(text: &str, indent: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let starts_block = starts_line_badly(word);
        let fits = indent.len() + line.len() + 1 + word.len() <= WIDTH;
        if !line.is_empty() && !fits {
            if !starts_block {
                lines.push(std::mem::take(&mut line));
            } else if let Some((before, last)) = line.rsplit_once(' ') {
                // The word before it goes down too, when it can start a line itself.
                if !starts_line_badly(last) {
                    let last = last.to_string();
                    lines.push(before.to_string());
                    line = last;
                }
            }
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
        .iter()
        .map(|line| format!("{indent}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a line starting with `word` could be read as the start of a block.
fn starts_line_badly(word: &str) -> bool {
    word.starts_with(['-', '+', '#', '=', '~'])
        || word
            .strip_suffix(['.', ')'])
            .is_some_and(|n| n.parse::<u64>().is_ok())
}
