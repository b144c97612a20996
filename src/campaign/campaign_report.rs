//! What a campaign shows: its items and their shards (`--list`), each item as it starts and
//! ends, and per item and GPU its outcome, what the baseline expected, and its attempts.

use crate::fanout::Subscriber;
use crate::notes::Notes;
use wgstress_campaign::execute::ItemOutcome;
use wgstress_campaign::hash::item_seed;
use wgstress_campaign::outcome::BaselineJudgement;
use wgstress_campaign::plan::CampaignPlan;
use wgstress_campaign::shard::Shard;
use wgstress_model::event::{EventKind, ShardEvent};

/// Every item of `plan`: its shard of `count`, its seed (for the commands that take one) and
/// its name, this shard's marked.
pub fn list(plan: &CampaignPlan, shard: Shard) -> String {
    let mut out = format!(
        "plan {} ({}), master seed {:#x}, {}\n",
        plan.name,
        plan.digest,
        plan.master_seed,
        crate::present::numbers::count(plan.items.len(), "item", "items")
    );
    for item in &plan.items {
        let index = item.hash % u64::from(shard.count);
        let seed = match item.command.seeded() {
            true => format!("{:#018x}", item_seed(plan.master_seed, item.hash)),
            false => "-".repeat(18),
        };
        let mark = if shard.owns(item) { '*' } else { ' ' };
        out.push_str(&format!(
            "{mark} shard {index}/{}  {seed}  {}\n",
            shard.count, item.name
        ));
    }
    out
}

/// The shards' events as notes, one as each item's attempt starts or ends.
pub struct ShardNotes(pub Notes);

impl Subscriber for ShardNotes {
    fn notice(&mut self, event: EventKind<'_>) {
        if let EventKind::Shard(event) = event {
            self.0.note(&self::event(&event));
        }
    }
}

/// A note as an item's attempt starts or ends.
fn event(event: &ShardEvent) -> String {
    let rerun = |attempt: u32| match attempt {
        0 => String::new(),
        n => format!(" (re-run {n})"),
    };
    match event {
        ShardEvent::Started {
            adapter,
            item,
            attempt,
        } => format!("{} {}{}: started", adapter, item, rerun(*attempt)),
        ShardEvent::Finished {
            adapter,
            item,
            attempt,
            exit,
            seconds,
        } => format!(
            "{} {}{}: {exit} in {seconds:.1} s",
            adapter,
            item,
            rerun(*attempt)
        ),
    }
}

pub fn table(outcomes: &[ItemOutcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let attempts: Vec<String> = o.attempts.iter().map(|e| e.to_string()).collect();
        out.push_str(&format!(
            "{} {}: {} ({}; {})\n",
            o.adapter.place,
            o.item,
            o.outcome.name(),
            BaselineJudgement::of(o.expected, o.outcome).name(),
            attempts.join(", then ")
        ));
    }
    out
}
