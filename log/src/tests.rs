//! Lines written through `JsonLog` and read back through `parse`: each must come back as the
//! line written, field for field, or `merge` would count from a log what its command never
//! wrote (or refuse a log its command did write).

use crate::fixtures::*;
use crate::{parse, JsonLog, Line, Summary, VERSION};

/// Writes `lines` to a log through the writer, reads it back, and checks each line read is
/// the line written: the same JSON when written again (every field, the tags that name its
/// kind and command included).
fn round_trip(lines: &[Line]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let mut log = JsonLog::append_to(&path).unwrap();
    for line in lines {
        log.write(line).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let parsed = parse(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.damaged, 0);
    assert_eq!(parsed.lines.len(), lines.len());
    for (written, read) in lines.iter().zip(&parsed.lines) {
        let (written, read) = (
            serde_json::to_value(written).unwrap(),
            serde_json::to_value(read).unwrap(),
        );
        assert_eq!(read, written, "read back otherwise than written");
    }
}

#[test]
fn start_lines_round_trip() {
    round_trip(&[
        run_start(),
        compare_start(),
        fences_start(),
        litmus_start(),
        mutants_start(),
        mutants_search_start(),
        progress_start(),
        tune_start(),
    ]);
}

#[test]
fn a_tune_start_line_keeps_its_configuration_fields_at_the_top() {
    let value = serde_json::to_value(tune_start()).unwrap();
    for field in [
        "adapter",
        "distances",
        "locations",
        "max_sequence",
        "max_spread",
        "iterations_per_cell",
        "env",
    ] {
        assert!(value.get(field).is_some(), "{field} missing: {value}");
    }
    assert!(value.get("config").is_none(), "{value}");
}

#[test]
fn a_start_line_carries_the_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let Line::Start(start) = run_start() else {
        unreachable!("run_start is a start line")
    };
    JsonLog::append_to(&path)
        .unwrap()
        .start(start.command)
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["type"], "start");
    assert_eq!(value["command"], "run");
    assert_eq!(value["version"], VERSION);
}

#[test]
fn batch_lines_round_trip_with_and_without_failures() {
    use wgstress_model::stress::strategy::Strategy;
    let failing = batch(Strategy::Cache, 8, 3);
    assert_eq!(failing.failures.len(), 1, "a batch that lists a failure");
    round_trip(&[
        Line::Batch(batch(Strategy::None, 4, 0)),
        Line::Batch(failing),
    ]);
}

#[test]
fn test_lines_round_trip() {
    round_trip(&[Line::Test(observed())]);
}

/// The summary of every command `merge` counts.
#[test]
fn summary_lines_round_trip() {
    use wgstress_model::run::summary::Ran;
    use wgstress_model::stress::strategy::Strategy;
    round_trip(&[
        summary(Summary::Run(Box::new(run_summary(10, 0)))),
        summary(Summary::Run(Box::new(run_summary(10, 2)))),
        summary(Summary::Run(Box::new(run_row(
            Ran::Stressed(Strategy::Systematic),
            true,
            10,
            2,
        )))),
        summary(Summary::Compare(compare_summary())),
        summary(Summary::Fences(Box::new(fences_summary()))),
        summary(Summary::Litmus(litmus_summary())),
        summary(Summary::Mutants(mutants_summary())),
        summary(Summary::MutantsSearch(mutants_search_summary())),
        summary(Summary::Progress(progress_summary())),
    ]);
}

/// A run summary's flattened parts (why it stopped, its stats) come back as what they were,
/// not merely as the same JSON.
#[test]
fn a_run_summary_reads_back_its_stop_and_first_failure() {
    use wgstress_model::run::stop::Stop;
    let mut written = run_summary(10, 2);
    written.stopped = Some(Stop::Aborted("the batch hung".into()));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    JsonLog::append_to(&path)
        .unwrap()
        .summary(Summary::Run(Box::new(written)))
        .unwrap();
    let parsed = parse(&path, &std::fs::read(&path).unwrap()).unwrap();
    let [Line::Summary(s)] = parsed.lines.as_slice() else {
        panic!("one summary line: {:?}", parsed.lines)
    };
    let Summary::Run(read) = s.as_ref() else {
        panic!("a run summary: {s:?}")
    };
    assert!(matches!(&read.stopped, Some(Stop::Aborted(why)) if why == "the batch hung"));
    assert_eq!((read.stats.runs, read.stats.failures), (10, 2));
    let first = read.stats.first_failure.as_ref().unwrap();
    assert_eq!((first.run, first.seed.as_str()), (3, "0xabc"));
}

/// `lines` written through the writer with the key `from` (which must occur once) renamed
/// `to`: what `parse` says, and the place it must name (the file and the line of the key).
fn parse_renamed(lines: &[Line], from: &str, to: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let mut log = JsonLog::append_to(&path).unwrap();
    for line in lines {
        log.write(line).unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let key = format!("\"{from}\":");
    assert_eq!(text.matches(&key).count(), 1, "{key} once in {text}");
    let number = 1 + text.lines().position(|l| l.contains(&key)).unwrap();
    let text = text.replacen(&key, &format!("\"{to}\":"), 1);
    let message = match parse(&path, text.as_bytes()) {
        Ok(parsed) => panic!("read with {from} renamed {to}: {:?}", parsed.lines),
        Err(e) => e.to_string(),
    };
    (message, format!("{}:{number}: ", path.display()))
}

#[test]
fn a_field_renamed_is_refused_with_its_file_and_line() {
    use wgstress_model::stress::strategy::Strategy;
    let run = |failures| summary(Summary::Run(Box::new(run_summary(10, failures))));
    // A required field of a line that denies unknown ones.
    let lines = [
        run_start(),
        Line::Batch(batch(Strategy::None, 8, 0)),
        run(0),
    ];
    let (message, at) = parse_renamed(&lines, "total_runs", "total");
    assert!(
        message.starts_with(&at) && message.contains("`total`"),
        "{message}"
    );
    // An optional field of a summary, whose stats are flattened into it: serde cannot deny
    // unknown fields there, and alone would read the renamed field as none.
    let (message, at) = parse_renamed(&[run_start(), run(2)], "time_to_first_failure", "ttff");
    assert!(
        message.starts_with(&at) && message.contains("`ttff`"),
        "{message}"
    );
    // The same, a level deeper: the fences summary flattens the search's outcome into it.
    let fences = summary(Summary::Fences(Box::new(fences_summary())));
    let (message, at) = parse_renamed(&[fences_start(), fences], "relies_on", "relies");
    assert!(
        message.starts_with(&at) && message.contains("`relies`"),
        "{message}"
    );
}
