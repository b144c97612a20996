//! What `progress` shows: the oracle's verdicts, the generated suite's Table 4 beside the
//! seed's, and what runs on the adapter say about its progress model.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use wgstress_progress::model::{Fairness, Model, ProgressScheduler};
use wgstress_progress::observe::{ConformanceJudgement, Observed};
use wgstress_progress::oracle::{EndlessExecution, TerminationVerdict};
use wgstress_progress::suite::{Table, SEED_TABLE_4};

/// The schedulers a verdict table shows, in order: every model weak then strong.
pub fn columns() -> Vec<ProgressScheduler> {
    Model::ALL
        .iter()
        .flat_map(|&model| {
            [Fairness::Weak, Fairness::Strong].map(|fairness| ProgressScheduler { model, fairness })
        })
        .collect()
}

/// One line per test: `yes` where it is guaranteed to terminate, `-` where not.
pub fn oracle_table(tests: &[(&str, Vec<TerminationVerdict>)]) -> String {
    let width = tests.iter().map(|(n, _)| n.len()).max().unwrap_or(4).max(4);
    let mut s = String::new();
    let _ = write!(s, "{:width$}", "");
    for model in Model::ALL {
        let _ = write!(s, "  {:>9}", model.name());
    }
    let _ = write!(s, "\n{:width$}", "test");
    for _ in Model::ALL {
        let _ = write!(s, "  {:>4} {:>4}", "weak", "strg");
    }
    s.push('\n');
    for (name, verdicts) in tests {
        let _ = write!(s, "{name:width$}");
        let mark = |v: &TerminationVerdict| if v.terminates { "yes" } else { "-" };
        for pair in verdicts.chunks(2) {
            let _ = write!(s, "  {:>4} {:>4}", mark(&pair[0]), mark(&pair[1]));
        }
        s.push('\n');
    }
    s.push_str(
        "\nyes: guaranteed to terminate under the model; -: not (--json --evidence gives the execution that starves)\n",
    );
    s
}

/// One test file's verdicts in `progress --oracle --json`.
#[derive(Serialize)]
pub struct OracleFile<'a> {
    pub file: &'a str,
    /// Per model, per fairness: whether the test terminates, and with `--evidence` the
    /// execution that starves where it need not.
    pub models: BTreeMap<Model, BTreeMap<Fairness, OracleVerdict<'a>>>,
}

#[derive(Serialize)]
pub struct OracleVerdict<'a> {
    pub terminates: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<&'a EndlessExecution>,
}

/// Per file, per model and fairness: `terminates`, and the evidence where it need not and it
/// was asked for.
pub fn oracle_json<'a>(tests: &'a [(&'a str, Vec<TerminationVerdict>)]) -> Vec<OracleFile<'a>> {
    tests
        .iter()
        .map(|(name, verdicts)| {
            let mut models: BTreeMap<Model, BTreeMap<Fairness, OracleVerdict>> = BTreeMap::new();
            for v in verdicts {
                models.entry(v.scheduler.model).or_default().insert(
                    v.scheduler.fairness,
                    OracleVerdict {
                        terminates: v.terminates,
                        evidence: v.evidence.as_ref(),
                    },
                );
            }
            OracleFile { file: name, models }
        })
        .collect()
}

/// The suite's size per configuration, its Table 4 counted as the seed's is beside the seed's,
/// and each model's own counts under their own heading.
pub fn generated(dir: &Path, sizes: &[((usize, usize), usize)], table: &Table) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "progress litmus suite: {}, written to {}",
        crate::present::numbers::count(table.tests, "test", "tests"),
        dir.display()
    );
    let _ = writeln!(
        s,
        "  {} terminate under weak fairness, {} need strong fairness (OOPSLA'21: 323 and 160)\n",
        table.weak_tests, table.strong_tests
    );
    let _ = writeln!(s, "threads  instructions  tests");
    for ((t, i), n) in sizes {
        let _ = writeln!(s, "{t:>7}  {i:>12}  {n:>5}");
    }
    let header = |s: &mut String, width: usize| {
        let _ = writeln!(
            s,
            "{:8}  {:>width$}  {:>width$}  {:>width$}  {:>width$}",
            "model", "weak D", "weak C", "strong D", "strong C"
        );
    };
    let name = |model: Model| {
        if model == Model::Fair {
            "full"
        } else {
            model.name()
        }
    };
    let _ = writeln!(
        s,
        "\nTable 4 as OOPSLA'21 counts it: each test to the first of HSA, OBE and LOBE that \
         guarantees its termination, else to full; C is a model's D with those of the models \
         below it (D distinguishing, C conformance; OOPSLA'21's 483 tests in brackets)"
    );
    header(&mut s, 14);
    for row in &table.rows {
        let seed = SEED_TABLE_4.iter().find(|r| r.model == row.model);
        let cell = |ours: usize, theirs: Option<usize>| match theirs {
            Some(t) => format!("{ours} ({t})"),
            None => format!("{ours}"),
        };
        let _ = writeln!(
            s,
            "{:8}  {:>14}  {:>14}  {:>14}  {:>14}",
            name(row.model),
            cell(row.weak_distinguishing, seed.map(|r| r.weak_distinguishing)),
            cell(row.weak_conformance, seed.map(|r| r.weak_conformance)),
            cell(
                row.strong_distinguishing,
                seed.map(|r| r.strong_distinguishing)
            ),
            cell(row.strong_conformance, seed.map(|r| r.strong_conformance)),
        );
    }
    let _ = writeln!(
        s,
        "\nPer model, this project's counts (not OOPSLA'21's table's): C every test the model \
         guarantees, D those that no model below it does (HSA and OBE: unfair; LOBE: HSA and \
         OBE; full: LOBE; HSA+OBE, which OOPSLA'21 leaves out: HSA and OBE)"
    );
    header(&mut s, 8);
    for row in &table.per_model {
        let _ = writeln!(
            s,
            "{:8}  {:>8}  {:>8}  {:>8}  {:>8}",
            name(row.model),
            row.weak_distinguishing,
            row.weak_conformance,
            row.strong_distinguishing,
            row.strong_conformance,
        );
    }
    s.push_str("(docs/progress.md explains where the suite and OOPSLA'21's differ)\n");
    s
}

/// Per scheduler whether the adapter conformed, the tests that did not terminate, and the
/// strongest models consistent with the runs.
pub fn run_report(
    adapter: &str,
    tests: usize,
    observed: &[Observed],
    judgement: &ConformanceJudgement,
    error: Option<&str>,
    interrupted: bool,
) -> String {
    let mut s = String::new();
    let mut names: Vec<&str> = observed.iter().map(|o| o.test.as_str()).collect();
    names.dedup();
    let runs: u64 = observed.iter().map(|o| u64::from(o.iterations)).sum();
    let _ = writeln!(
        s,
        "progress litmus tests on {adapter}: {} of {} ran, {}",
        names.len(),
        crate::present::numbers::count(tests, "test", "tests"),
        crate::present::numbers::count(runs, "run", "runs")
    );
    for mapping in wgstress_progress::wgsl::Mapping::ALL {
        let of: Vec<&Observed> = observed.iter().filter(|o| o.mapping == mapping).collect();
        if let Some(first) = of.first() {
            let hung = of.iter().filter(|o| o.hung()).count();
            let _ = writeln!(
                s,
                "  {:12} {} a run: {hung} of {} did not terminate",
                mapping.name(),
                crate::present::numbers::count(first.instances, "instance", "instances"),
                crate::present::numbers::count(of.len(), "test", "tests")
            );
        }
    }
    if observed.is_empty() {
        s.push_str("no test ran\n");
        if let Some(e) = error {
            let _ = writeln!(s, "aborted: {e}");
        }
        return s;
    }
    let _ = writeln!(
        s,
        "\n{:14}  {:>17}  {:>17}  conformed",
        "model", "conformance tests", "did not terminate"
    );
    for c in &judgement.schedulers {
        let mut failed: Vec<&str> = c.violations.iter().map(|h| h.test.as_str()).collect();
        failed.dedup();
        let _ = writeln!(
            s,
            "{:14}  {:>17}  {:>17}  {}",
            c.scheduler.to_string(),
            c.tests,
            failed.len(),
            match (c.conformed(), c.tests) {
                (false, _) => "no",
                (true, 0) => "(no test)",
                (true, _) => "yes",
            }
        );
    }
    if !judgement.hangs.is_empty() {
        let _ = writeln!(s, "\ndid not terminate:");
        for h in &judgement.hangs {
            let _ = writeln!(
                s,
                "  {}  {}  in {} of {}",
                h.test,
                h.mapping.name(),
                h.hung_iterations,
                crate::present::numbers::count(h.iterations, "run", "runs")
            );
        }
    }
    let strongest: Vec<String> = judgement.strongest.iter().map(|s| s.to_string()).collect();
    let _ = writeln!(
        s,
        "\nstrongest models consistent with these runs: {}",
        strongest.join(", ")
    );
    if interrupted {
        let _ = writeln!(s, "interrupted: the results cover the runs that finished");
    }
    if let Some(e) = error {
        let _ = writeln!(s, "aborted: {e}; the results cover the runs that finished");
    }
    s
}
