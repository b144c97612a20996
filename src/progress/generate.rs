//! `progress --generate DIR`: the suite written out, one file per test, with its size per
//! configuration, its Table 4 counted as the seed's is beside the seed's, and each model's own
//! counts.

use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::{anyhow, Result};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use wgstress_progress::generate::{generate as enumerate, Bounds};
use wgstress_progress::suite::{ModelRow, Table, Verdicts, SEED_TABLE_4};

/// What `progress --generate DIR --json` prints.
#[derive(Serialize)]
struct Generated<'a> {
    directory: &'a Path,
    tests: usize,
    configurations: Vec<Configuration>,
    /// `rows`: Table 4 counted as the seed's is; `per_model`: each model's own counts.
    table4: &'a Table,
    /// The seed's Table 4, of its 483 tests, to set beside `table4.rows`.
    seed_table4: &'a [ModelRow],
}

/// The suite's size at one bound of threads and instructions.
#[derive(Serialize)]
struct Configuration {
    threads: usize,
    instructions: usize,
    tests: usize,
}

/// The extension of a test file.
pub const EXTENSION: &str = "axb";

pub fn generate(dir: &Path, json: bool, notes: Notes) -> Result<Status> {
    let bounds = Bounds::seed();
    let start = std::time::Instant::now();
    let suite = enumerate(&bounds);
    let verdicts: Vec<Verdicts> = suite.iter().map(|g| Verdicts::of(&g.test)).collect();
    notes.note(&format!(
        "generated {} tests in {:.1} s",
        suite.len(),
        start.elapsed().as_secs_f64()
    ));
    let sizes: Vec<((usize, usize), usize)> = bounds
        .configurations()
        .into_iter()
        .map(|(t, i)| {
            let n = suite
                .iter()
                .filter(|g| g.threads == t && g.instructions == i)
                .count();
            ((t, i), n)
        })
        .collect();
    let table = Table::of(&verdicts);
    // Shown before the files are written: a failing write loses nothing computed.
    if json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&Generated {
                directory: dir,
                tests: suite.len(),
                configurations: sizes
                    .iter()
                    .map(|&((threads, instructions), tests)| Configuration {
                        threads,
                        instructions,
                        tests,
                    })
                    .collect(),
                table4: &table,
                seed_table4: &SEED_TABLE_4,
            })?
        ))?;
    } else {
        emit(&crate::progress::termination::generated(
            dir, &sizes, &table,
        ))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| anyhow!("{}: cannot create: {e}", dir.display()))?;
    for g in &suite {
        let path = dir.join(format!("{}.{EXTENSION}", g.name));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| anyhow!("{}: cannot write: {e}", path.display()))?;
        file.write_all(g.test.to_string().as_bytes())
            .map_err(|e| anyhow!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(Status::Passed)
}
