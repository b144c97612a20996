//! The report as one HTML page: the chart of rates per adapter, and the text report's
//! tables.

use super::cells::{counts, label, seconds, verdict};
use super::svg::{escape, rates};
use crate::merge::report::MergedReport;
use std::fmt::Write;
use wgstress_model::plural::count;

const STYLE: &str = "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;\
margin-bottom:2em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}\
.unexpected{background:#fdd}.flake{background:#ffd}code{font-size:90%}";

pub fn html(r: &MergedReport) -> String {
    let mut page = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>wgstress campaign</title>\
         <style>{STYLE}</style></head><body>\n<h1>wgstress campaign</h1>\n"
    );
    let _ = writeln!(
        page,
        "<p>{}, {}, {}; {} in {:.1} s ({:.1} runs/s); {} unexpected.</p>",
        count(r.shards.len(), "shard log", "shard logs"),
        count(r.total.hosts, "host", "hosts"),
        count(r.total.gpus, "GPU", "GPUs"),
        count(r.total.runs, "run", "runs"),
        r.total.wall_seconds,
        r.total.runs_per_second,
        r.unexpected
    );
    for m in &r.missing {
        let list: Vec<String> = m.missing.iter().map(u32::to_string).collect();
        let _ = writeln!(
            page,
            "<p class=\"unexpected\">missing: {} {} of {} of plan {}</p>",
            if list.len() == 1 { "shard" } else { "shards" },
            list.join(", "),
            m.shards,
            escape(&m.plan)
        );
    }
    for d in &r.duplicates {
        let _ = writeln!(
            page,
            "<p class=\"unexpected\">duplicate: {} copies {}: counted once</p>",
            escape(&d.log),
            escape(&d.of)
        );
    }
    for d in &r.damaged {
        let _ = writeln!(
            page,
            "<p class=\"unexpected\">damaged: {}: {} not JSON skipped</p>",
            escape(&d.log),
            count(d.lines, "line that is", "lines that are")
        );
    }
    for s in r
        .shards
        .iter()
        .filter(|s| !s.finished || !s.cut_short.is_empty())
    {
        let _ = writeln!(
            page,
            "<p class=\"flake\">cut short: shard {} on {} {}: {}</p>",
            s.shard,
            escape(&s.host),
            s.adapter.place,
            escape(&s.cut_short.join("; "))
        );
    }
    page.push_str(&format!(
        "<h2>Failure rate per {} (95% interval)</h2>\n",
        super::cells::series(r).of
    ));
    page.push_str(&rates(r));
    page.push_str(&rows(r));
    page.push_str(&gpus(r));
    page.push_str("</body></html>\n");
    page
}

fn rows(r: &MergedReport) -> String {
    let mut out = String::from(
        "\n<h2>Per item and GPU</h2>\n<table><tr><th>item</th><th>host</th><th>GPU</th><th>of</th>\
         <th>failures / total, rate [95%]</th><th>first failure</th><th>outcome</th><th>replay</th></tr>\n",
    );
    for row in &r.rows {
        let class = match (row.judgement.unexpected(), row.judgement) {
            (true, _) => " class=\"unexpected\"",
            (false, crate::outcome::BaselineJudgement::Flake) => " class=\"flake\"",
            _ => "",
        };
        let replay = row.first_failures.first().map_or(String::new(), |f| {
            format!("<code>{}</code>", escape(&f.replay))
        });
        let _ = writeln!(
            out,
            "<tr{class}><td>{}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{replay}</td></tr>",
            escape(&label(&row.item, row.config.as_ref())),
            escape(&row.host),
            row.adapter.place,
            escape(&row.adapter.model()),
            row.unit.words().0,
            escape(&counts(&row.counts)),
            seconds(row.counts.time_to_first_failure),
            escape(&verdict(row)),
        );
    }
    out + "</table>\n"
}

fn gpus(r: &MergedReport) -> String {
    let mut out = String::from(
        "<h2>Throughput</h2>\n<table><tr><th>host</th><th>GPU</th><th>runs</th><th>seconds</th><th>runs/s</th></tr>\n",
    );
    for g in &r.gpus {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{} {}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td></tr>",
            escape(&g.host),
            g.adapter.place,
            escape(&g.adapter.model()),
            g.runs,
            g.busy_seconds,
            g.runs_per_second
        );
    }
    let t = &r.total;
    let _ = writeln!(
        out,
        "<tr><th>all</th><th>{} GPUs (wall clock)</th><th>{}</th><th>{:.1}</th><th>{:.1}</th></tr>",
        t.gpus, t.runs, t.wall_seconds, t.runs_per_second
    );
    out + "</table>\n"
}
