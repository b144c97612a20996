//! `progress`'s plan: its mode, the test files read and parsed (errors at file:line:column),
//! the output directory checked, the run options checked against each other, before any GPU
//! work.

use crate::options::{LogOptions, ProgressRunOptions};
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use wgstress_progress::wgsl::Mapping;
use wgstress_progress::AxbTest;

/// The most a test file may hold: far past any test of MAX_THREADS threads.
const TEST_BYTES: u64 = 64 << 10;

/// A test and the name it is reported by (its file as given, or its name in the suite).
#[derive(Clone, Debug)]
pub struct NamedTest {
    pub name: String,
    pub test: AxbTest,
}

pub enum ProgressPlan {
    /// Each test's verdict under every scheduler.
    Oracle {
        tests: Vec<NamedTest>,
        output: OracleOutput,
    },
    /// The suite, written to a new or empty directory.
    Generate { dir: PathBuf, json: bool },
    /// Tests run on the adapter.
    Run(RunPlan),
}

/// How `--oracle` shows its verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleOutput {
    /// A line per test, a mark per scheduler.
    Table,
    /// JSON, with the execution behind every verdict of non-termination when `evidence`.
    Json { evidence: bool },
}

/// Which tests run.
pub enum Source {
    /// The generated suite, or `sample` of its tests spread evenly over it.
    Suite {
        sample: Option<u64>,
    },
    Files(Vec<NamedTest>),
}

pub struct RunPlan {
    pub source: Source,
    pub mappings: Vec<Mapping>,
    /// Instances under round-robin and chunked; as many as 65,535 workgroups hold when
    /// `None`.
    pub instances: Option<u32>,
    pub runs: Runs,
    pub adapter: wgstress_runtime::gpu::device::AdapterChoice,
    pub json: bool,
    pub log: Option<PathBuf>,
}

/// How each test runs under each mapping.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    pub iterations: u32,
    pub loop_bound: u32,
    pub timeout: Duration,
}

/// Reads and parses a test file; a test that reaches more states than the oracle explores is
/// refused there, at its first line.
pub fn read_test(path: &Path) -> Result<NamedTest> {
    let text = wgstress_model::read::text(path, TEST_BYTES, "a progress test may hold")?;
    let test = AxbTest::parse(&text).map_err(|e| anyhow!("{}:{e}", path.display()))?;
    Ok(NamedTest {
        name: path.display().to_string(),
        test,
    })
}

/// The directory `--generate` writes into: missing (it is made) or empty, so that nothing
/// there is overwritten.
pub fn generate_dir(dir: &Path) -> Result<PathBuf> {
    if dir.exists() {
        if !dir.is_dir() {
            bail!(
                "{}: --generate names a file, not a directory",
                dir.display()
            );
        }
        let mut entries =
            std::fs::read_dir(dir).map_err(|e| anyhow!("{}: cannot read: {e}", dir.display()))?;
        if entries.next().is_some() {
            bail!(
                "{}: not empty; --generate writes the suite into a new or empty directory, overwriting nothing",
                dir.display()
            );
        }
    }
    Ok(dir.to_path_buf())
}

pub struct Modes<'a> {
    pub oracle: &'a [PathBuf],
    /// `--evidence`, which clap lets through only with `--oracle` and `--json`.
    pub evidence: bool,
    pub generate: Option<&'a Path>,
    pub suite: bool,
    pub tests: &'a [PathBuf],
}

pub fn plan(
    modes: Modes,
    run: &ProgressRunOptions,
    log: &LogOptions,
    json: bool,
) -> Result<ProgressPlan> {
    let chosen = [
        !modes.oracle.is_empty(),
        modes.generate.is_some(),
        modes.suite,
        !modes.tests.is_empty(),
    ];
    match chosen.iter().filter(|&&c| c).count() {
        0 => bail!("give one of --oracle FILE..., --generate DIR, --suite or --tests FILE..."),
        1 => {}
        _ => bail!("give only one of --oracle, --generate, --suite and --tests"),
    }
    if !modes.oracle.is_empty() {
        let tests = modes
            .oracle
            .iter()
            .map(|p| read_test(p))
            .collect::<Result<_>>()?;
        let output = if json {
            OracleOutput::Json {
                evidence: modes.evidence,
            }
        } else {
            OracleOutput::Table
        };
        return Ok(ProgressPlan::Oracle { tests, output });
    }
    if let Some(dir) = modes.generate {
        return Ok(ProgressPlan::Generate {
            dir: generate_dir(dir)?,
            json,
        });
    }
    if run.sample.is_some() && !modes.suite {
        bail!("--sample picks tests of the suite: give it with --suite");
    }
    let source = if modes.suite {
        Source::Suite { sample: run.sample }
    } else {
        Source::Files(
            modes
                .tests
                .iter()
                .map(|p| read_test(p))
                .collect::<Result<_>>()?,
        )
    };
    let log = crate::session::log_path(log);
    let mut files = crate::session::paths::Files::new();
    for test in modes.tests {
        files.input("--tests", test);
    }
    if let Some(log) = &log {
        files.output("--log", log);
    }
    files.check()?;
    Ok(ProgressPlan::Run(RunPlan {
        source,
        mappings: run.mapping.mappings(),
        instances: run.instances,
        runs: Runs {
            iterations: run.iterations,
            loop_bound: run.loop_bound,
            timeout: run.timeout,
        },
        adapter: run.device.choice(),
        json,
        log,
    }))
}
