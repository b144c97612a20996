//! A progress litmus test as data: threads of AXB instructions over two shared boolean
//! locations, and its text format (the one the seed's published tests use):
//!
//! ```text
//! THREAD0
//! atomic_exch_branch(0, 1, 1, 0)
//! atomic_store(0, 0)
//! THREAD1
//! atomic_chk_branch(0, 0, END)
//! ```
//!
//! A line `THREADn` (n counting from 0, in order) opens each thread; blank lines are ignored.
//! docs/progress.md gives the format in full. A test is refused when it reaches more than
//! `MAX_STATES` states, so that the oracle decides every test there is.

use crate::explore::{within_limit, MAX_STATES};
use crate::instr::{BranchTarget, Instr, MAX_INSTRUCTIONS, MAX_THREADS};
use serde::Serialize;
use std::fmt;

/// A test: its threads, each a list of instructions; at least one thread, none empty, and at
/// most `MAX_STATES` states reachable (read back from JSON through the same checks).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(try_from = "RawTest")]
pub struct AxbTest {
    threads: Vec<Vec<Instr>>,
}

/// A test as JSON holds it, before `AxbTest::new`'s checks.
#[derive(serde::Deserialize)]
struct RawTest {
    threads: Vec<Vec<Instr>>,
}

impl TryFrom<RawTest> for AxbTest {
    type Error = String;

    fn try_from(raw: RawTest) -> Result<AxbTest, String> {
        AxbTest::new(raw.threads)
    }
}

/// Why a test of well-formed threads is refused: the states it reaches.
fn too_many_states() -> String {
    format!(
        "the test reaches more than {MAX_STATES} states (memory, pcs and which threads have \
         stepped), the most the termination oracle explores; give fewer or shorter threads"
    )
}

/// Why a test's text could not be read: where (1-based line and column) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl AxbTest {
    /// A test of these threads, checked: 1 to MAX_THREADS threads of 1 to MAX_INSTRUCTIONS
    /// instructions, locations and values 0 or 1, targets within the thread or END, at most
    /// MAX_STATES states reached.
    pub fn new(threads: Vec<Vec<Instr>>) -> Result<AxbTest, String> {
        if threads.is_empty() || threads.len() > MAX_THREADS {
            return Err(format!(
                "a test has 1 to {MAX_THREADS} threads, not {}",
                threads.len()
            ));
        }
        for (t, thread) in threads.iter().enumerate() {
            if thread.is_empty() || thread.len() > MAX_INSTRUCTIONS {
                return Err(format!(
                    "THREAD{t} has {} instructions; a thread has 1 to {MAX_INSTRUCTIONS}",
                    thread.len()
                ));
            }
            for (pc, instr) in thread.iter().enumerate() {
                check_instr(*instr, thread.len())
                    .map_err(|e| format!("THREAD{t} instruction {pc}: {e}"))?;
            }
        }
        if !within_limit(&threads) {
            return Err(too_many_states());
        }
        Ok(AxbTest { threads })
    }

    pub fn threads(&self) -> &[Vec<Instr>] {
        &self.threads
    }

    /// The test with locations 0 and 1 swapped (the same test up to naming).
    pub fn swap_locations(&self) -> AxbTest {
        let swap = |loc: u8| 1 - loc;
        let threads = self
            .threads
            .iter()
            .map(|thread| {
                thread
                    .iter()
                    .map(|&i| match i {
                        Instr::Exch {
                            loc,
                            check,
                            exch,
                            target,
                        } => Instr::Exch {
                            loc: swap(loc),
                            check,
                            exch,
                            target,
                        },
                        Instr::Chk { loc, check, target } => Instr::Chk {
                            loc: swap(loc),
                            check,
                            target,
                        },
                        Instr::Store { loc, value } => Instr::Store {
                            loc: swap(loc),
                            value,
                        },
                    })
                    .collect()
            })
            .collect();
        AxbTest { threads }
    }

    /// Reads the text format; errors give the line and column.
    pub fn parse(text: &str) -> Result<AxbTest, ParseError> {
        let mut threads: Vec<Vec<Instr>> = Vec::new();
        let mut last = (1, 1);
        // Where the test starts: a test that reaches too many states is refused there.
        let mut start = (1, 1);
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() {
                continue;
            }
            let column = raw.len() - raw.trim_start().len() + 1;
            last = (line, column);
            let error = |offset: usize, message: String| ParseError {
                line,
                column: column + offset,
                message,
            };
            if let Some(id) = trimmed.strip_prefix("THREAD") {
                let expected = threads.len();
                if id != expected.to_string() {
                    return Err(error(
                        0,
                        format!("expected `THREAD{expected}` (threads are numbered from 0, in order), found `{trimmed}`"),
                    ));
                }
                if expected == MAX_THREADS {
                    return Err(error(
                        0,
                        format!("a test has at most {MAX_THREADS} threads"),
                    ));
                }
                if threads.is_empty() {
                    start = (line, column);
                }
                threads.push(Vec::new());
                continue;
            }
            let Some(thread) = threads.last_mut() else {
                return Err(error(
                    0,
                    "expected `THREAD0` before the first instruction".into(),
                ));
            };
            if thread.len() == MAX_INSTRUCTIONS {
                return Err(error(
                    0,
                    format!("a thread has at most {MAX_INSTRUCTIONS} instructions"),
                ));
            }
            thread.push(parse_instr(trimmed).map_err(|(offset, m)| error(offset, m))?);
        }
        if threads.is_empty() {
            return Err(ParseError {
                line: last.0,
                column: last.1,
                message: "no threads: a test starts with a line `THREAD0`".into(),
            });
        }
        // Targets and empty threads are checked once every thread is read, at the line of
        // the instruction or thread at fault.
        let mut line_of = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let trimmed = raw.trim();
            if !trimmed.is_empty() {
                line_of.push((n + 1, raw.len() - raw.trim_start().len() + 1, trimmed));
            }
        }
        let mut cursor = line_of.iter();
        for (t, thread) in threads.iter().enumerate() {
            let header = cursor.next().expect("a THREAD line per thread");
            if thread.is_empty() {
                return Err(ParseError {
                    line: header.0,
                    column: header.1,
                    message: format!("THREAD{t} has no instructions"),
                });
            }
            for instr in thread {
                let at = cursor.next().expect("a line per instruction");
                if let Some((_, BranchTarget::Inst(i))) = instr.branch() {
                    if usize::from(i) >= thread.len() {
                        let column = at.2.rfind(',').map_or(0, |c| c + 2);
                        return Err(ParseError {
                            line: at.0,
                            column: at.1 + column,
                            message: format!(
                                "target {i} is past THREAD{t}'s last instruction ({}); give an instruction index or END",
                                thread.len() - 1
                            ),
                        });
                    }
                }
            }
        }
        if !within_limit(&threads) {
            return Err(ParseError {
                line: start.0,
                column: start.1,
                message: too_many_states(),
            });
        }
        Ok(AxbTest { threads })
    }
}

fn check_instr(instr: Instr, len: usize) -> Result<(), String> {
    let bit = |what: &str, v: u8| {
        if v <= 1 {
            Ok(())
        } else {
            Err(format!("{what} must be 0 or 1, not {v}"))
        }
    };
    bit("a location", instr.loc())?;
    if let Some(v) = instr.writes() {
        bit("a value", v)?;
    }
    if let Some((check, target)) = instr.branch() {
        bit("a value", check)?;
        if let BranchTarget::Inst(i) = target {
            if usize::from(i) >= len {
                return Err(format!("target {i} is past the thread's end"));
            }
        }
    }
    Ok(())
}

/// One instruction's text: the column offset and message of what is wrong.
fn parse_instr(text: &str) -> Result<Instr, (usize, String)> {
    let open = text.find('(').ok_or((
        0,
        format!("expected an instruction (atomic_exch_branch, atomic_chk_branch or atomic_store), found `{text}`"),
    ))?;
    let name = text[..open].trim_end();
    let arity = match name {
        "atomic_exch_branch" => 4,
        "atomic_chk_branch" => 3,
        "atomic_store" => 2,
        _ => {
            return Err((
                0,
                format!("unknown instruction `{name}` (atomic_exch_branch, atomic_chk_branch or atomic_store)"),
            ))
        }
    };
    let close = text
        .rfind(')')
        .filter(|&c| c > open)
        .ok_or((text.len(), format!("expected `)` closing `{name}(`")))?;
    if !text[close + 1..].trim().is_empty() {
        return Err((close + 1, "unexpected text after `)`".into()));
    }
    let mut args = Vec::new();
    let mut start = open + 1;
    for piece in text[open + 1..close].split(',') {
        let lead = piece.len() - piece.trim_start().len();
        args.push((start + lead, piece.trim()));
        start += piece.len() + 1;
    }
    if args.len() != arity {
        return Err((
            open,
            format!("`{name}` takes {arity} arguments, not {}", args.len()),
        ));
    }
    let bit = |(at, arg): (usize, &str), what: &str| -> Result<u8, (usize, String)> {
        match arg {
            "0" => Ok(0),
            "1" => Ok(1),
            _ => Err((at, format!("{what} must be 0 or 1, found `{arg}`"))),
        }
    };
    let target = |(at, arg): (usize, &str)| -> Result<BranchTarget, (usize, String)> {
        if arg == "END" {
            return Ok(BranchTarget::End);
        }
        arg.parse::<u8>()
            .ok()
            .filter(|&i| usize::from(i) < MAX_INSTRUCTIONS)
            .map(BranchTarget::Inst)
            .ok_or((
                at,
                format!("a target is an instruction index or END, found `{arg}`"),
            ))
    };
    Ok(match arity {
        4 => Instr::Exch {
            loc: bit(args[0], "a location")?,
            check: bit(args[1], "a value")?,
            exch: bit(args[2], "a value")?,
            target: target(args[3])?,
        },
        3 => Instr::Chk {
            loc: bit(args[0], "a location")?,
            check: bit(args[1], "a value")?,
            target: target(args[2])?,
        },
        _ => Instr::Store {
            loc: bit(args[0], "a location")?,
            value: bit(args[1], "a value")?,
        },
    })
}

/// The text format, which `AxbTest::parse` reads back.
impl fmt::Display for AxbTest {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (t, thread) in self.threads.iter().enumerate() {
            writeln!(f, "THREAD{t}")?;
            for instr in thread {
                writeln!(f, "{instr}")?;
            }
        }
        Ok(())
    }
}
