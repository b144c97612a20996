//! The report as text: what was read and what is missing, a row per item and GPU, the
//! adapter models side by side, the first failures with their replays, the throughput.

use super::cells::{counts, label, rate, seconds, table, verdict};
use crate::merge::report::{MergedReport, ShardRow};
use wgstress_model::plural::count;

pub fn text(r: &MergedReport) -> String {
    let mut out = read(r);
    out.push_str("\nper item and GPU\n");
    let rows: Vec<Vec<String>> = r
        .rows
        .iter()
        .map(|row| {
            vec![
                label(&row.item, row.config.as_ref()),
                row.host.clone(),
                format!("{} {}", row.adapter.place, row.adapter.model()),
                row.unit.words().0.to_string(),
                counts(&row.counts),
                seconds(row.counts.time_to_first_failure),
                verdict(row),
            ]
        })
        .collect();
    let header = [
        "item",
        "host",
        "gpu",
        "of",
        "failures / total  rate [95%]",
        "first failure",
        "outcome",
    ];
    out.push_str(&table(&header, &rows));
    out.push_str(&side_by_side(r));
    out.push_str(&first_failures(r));
    out.push_str(&throughput(r));
    out.push_str(&judged(r));
    out
}

/// What was read, and the shards missing or cut short.
fn read(r: &MergedReport) -> String {
    let mut plans: Vec<String> = r
        .shards
        .iter()
        .map(|s| format!("{} ({})", s.plan, s.digest))
        .collect();
    plans.dedup();
    let mut out = format!(
        "merged {} of plan {} from {}, {}\n",
        count(r.shards.len(), "shard log", "shard logs"),
        plans.join(", "),
        count(r.total.hosts, "host", "hosts"),
        count(r.total.gpus, "GPU", "GPUs")
    );
    for m in &r.missing {
        let list: Vec<String> = m.missing.iter().map(u32::to_string).collect();
        out.push_str(&format!(
            "missing: {} {} of {} of plan {}: {} of its {} items in no shard log read\n",
            if list.len() == 1 { "shard" } else { "shards" },
            list.join(", "),
            m.shards,
            m.plan,
            m.items_unseen,
            m.plan_items
        ));
    }
    for path in &r.unreadable {
        out.push_str(&format!(
            "unreadable: {path} (no start line: killed as it began)\n"
        ));
    }
    for d in &r.duplicates {
        out.push_str(&format!(
            "duplicate: {} copies {} (the same shard's start): counted once\n",
            d.log, d.of
        ));
    }
    for d in &r.damaged {
        out.push_str(&format!(
            "damaged: {}: {} not JSON skipped\n",
            d.log,
            count(d.lines, "line that is", "lines that are")
        ));
    }
    for s in r
        .shards
        .iter()
        .filter(|s| !s.finished || s.interrupted || !s.cut_short.is_empty())
    {
        out.push_str(&partial(s));
    }
    out
}

fn partial(s: &ShardRow) -> String {
    let what = if s.finished {
        "interrupted"
    } else {
        "cut short"
    };
    let mut line = format!(
        "{what}: shard {} on {} {} ({})",
        s.shard, s.host, s.adapter.place, s.dir
    );
    if !s.cut_short.is_empty() {
        line.push_str(&format!(
            "; cut short, counted to its last log line: {}",
            s.cut_short.join("; ")
        ));
    }
    if !s.not_run.is_empty() {
        line.push_str(&format!("; not run: {}", s.not_run.join("; ")));
    }
    line + "\n"
}

fn side_by_side(r: &MergedReport) -> String {
    let series = super::cells::series(r);
    if series.names.len() < 2 {
        return String::new();
    }
    let rows: Vec<Vec<String>> = (0..series.labels.len())
        .map(|l| {
            let mut row = vec![series.labels[l].clone()];
            for n in 0..series.names.len() {
                let cell = series.cells.get(&(l, n));
                row.push(cell.map_or("-".to_string(), counts));
            }
            row
        })
        .collect();
    let mut header = vec!["item"];
    header.extend(series.names.iter().map(String::as_str));
    format!(
        "\nper {} side by side (failures / total  rate [95%])\n{}",
        series.of,
        table(&header, &rows)
    )
}

fn first_failures(r: &MergedReport) -> String {
    let mut out = String::new();
    for row in &r.rows {
        for f in &row.first_failures {
            out.push_str(&format!(
                "{} on {} {} (shard {}, attempt {}): {} after {:.2} s, run {}: {}\n  {}\n",
                label(&row.item, row.config.as_ref()),
                f.at.host,
                f.at.gpu,
                f.at.shard,
                f.at.attempt,
                f.failure.outcome,
                f.failure.after_seconds,
                f.failure.run,
                f.failure.detail,
                f.replay
            ));
        }
    }
    match out.is_empty() {
        true => out,
        false => {
            format!("\nfirst failures (replay: the run's stress, shuffle and layout again)\n{out}")
        }
    }
}

fn throughput(r: &MergedReport) -> String {
    let mut rows: Vec<Vec<String>> = r
        .gpus
        .iter()
        .map(|g| {
            vec![
                g.host.clone(),
                format!("{} {}", g.adapter.place, g.adapter.model()),
                g.runs.to_string(),
                format!("{:.1}", g.busy_seconds),
                format!("{:.1}", g.runs_per_second),
            ]
        })
        .collect();
    let t = &r.total;
    rows.push(vec![
        format!("all ({} hosts)", t.hosts),
        format!("{} GPUs, wall clock", t.gpus),
        t.runs.to_string(),
        format!("{:.1}", t.wall_seconds),
        format!("{:.1}", t.runs_per_second),
    ]);
    format!(
        "\nthroughput (application runs)\n{}",
        table(&["host", "gpu", "runs", "seconds", "runs/s"], &rows)
    )
}

fn judged(r: &MergedReport) -> String {
    let mut out = String::new();
    let against = r.baseline.as_deref().map_or(
        "no baseline: every item expected to pass".to_string(),
        |b| format!("baseline {b}"),
    );
    let flakes = r
        .rows
        .iter()
        .filter(|row| row.judgement == crate::outcome::BaselineJudgement::Flake)
        .count();
    out.push_str(&format!(
        "\n{} unexpected, {} ({against})\n",
        r.unexpected,
        count(flakes, "flake", "flakes")
    ));
    for row in r.rows.iter().filter(|row| row.judgement.unexpected()) {
        let mut line = format!(
            "  {}: {} on {} {} {} ({}), expected {}",
            row.judgement.name(),
            label(&row.item, row.config.as_ref()),
            row.host,
            row.adapter.place,
            row.adapter.model(),
            rate(row.counts.rate),
            row.expected.name()
        );
        if !row.notes.is_empty() {
            line.push_str(&format!(": {}", row.notes.join("; ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}
