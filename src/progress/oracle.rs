//! `progress --oracle FILE...`: each test's verdict under every scheduler, no GPU.

use crate::notes::emit;
use crate::progress::plan::{NamedTest, OracleOutput};
use crate::status::Status;
use anyhow::Result;
use wgstress_progress::oracle::{TerminationOracle, TerminationVerdict};

pub fn oracle(tests: &[NamedTest], output: OracleOutput) -> Result<Status> {
    let evidence = output == OracleOutput::Json { evidence: true };
    let verdicts: Vec<(&str, Vec<TerminationVerdict>)> = tests
        .iter()
        .map(|t| (t.name.as_str(), verdicts(&t.test, evidence)))
        .collect();
    match output {
        OracleOutput::Json { .. } => emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&crate::progress::termination::oracle_json(&verdicts))?
        ))?,
        OracleOutput::Table => emit(&crate::progress::termination::oracle_table(&verdicts))?,
    }
    Ok(Status::Passed)
}

/// Every scheduler's verdict, the unfair model under both notions; the evidence only where it
/// is asked for (`--json --evidence`).
fn verdicts(test: &wgstress_progress::AxbTest, evidence: bool) -> Vec<TerminationVerdict> {
    let oracle = TerminationOracle::new(test);
    crate::progress::termination::columns()
        .into_iter()
        .map(|scheduler| {
            if evidence {
                oracle.decide(scheduler)
            } else {
                TerminationVerdict {
                    scheduler,
                    terminates: oracle.terminates(scheduler),
                    evidence: None,
                }
            }
        })
        .collect()
}
