//! What a shard ran: per item and GPU, its outcome, what the baseline expected, and its
//! attempts (the run and its re-runs).

use wgstress_campaign::execute::ItemOutcome;
use wgstress_campaign::outcome::Judgement;

pub fn table(outcomes: &[ItemOutcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let attempts: Vec<String> = o.attempts.iter().map(|e| e.to_string()).collect();
        out.push_str(&format!(
            "#{} {}: {} ({}; {})\n",
            o.adapter.index,
            o.item,
            o.outcome.name(),
            Judgement::of(o.expected, o.outcome).name(),
            attempts.join(", then ")
        ));
    }
    out
}
