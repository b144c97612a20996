//! `campaign --browser`: a plan's items on the GPU of a headless Chromium, each item with
//! `--browser`, logged under the browser's adapter beside the same plan run natively into the
//! same directory, and merged into one report naming both. Chromium must be there: without
//! it the campaign cannot open the browser's device and the test fails.

mod common;

use common::wgstress;
use serde_json::Value;
use std::path::Path;

const PLAN: &str = r#"
name = "browser-and-native"

[[item]]
command = "run"
app = "cbe-dot"
variant = "fixed"
size = "small"
runs = 6

[[item]]
command = "litmus"
test = "mp"
iterations = 10
testing_groups = 8
"#;

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_plan_in_the_browser_and_natively_merges_into_one_report_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(&plan, PLAN).unwrap();
    let out = dir.path().join("out");
    let campaign = |extra: &[&str]| {
        let mut args = vec!["campaign", plan.to_str().unwrap(), "--out"];
        args.push(out.to_str().unwrap());
        args.extend(["--host", "h"]);
        args.extend(extra);
        let run = wgstress(&args, dir.path());
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{args:?}: {stderr}");
    };
    campaign(&["--browser"]);
    campaign(&[]);

    let gpus: Vec<String> = std::fs::read_dir(out.join("h"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(gpus.len(), 2, "{gpus:?}");
    let browser = gpus
        .iter()
        .find(|g| g.starts_with("browser-"))
        .unwrap_or_else(|| panic!("no browser's directory: {gpus:?}"));
    assert!(gpus.iter().any(|g| g.starts_with("gpu0-")), "{gpus:?}");
    // The browser's items were given `--browser`, not an adapter by place.
    let log = lines(&out.join("h").join(browser).join("shard-0/shard.jsonl"));
    assert_eq!(log[0]["adapter"]["index"], "browser", "{}", log[0]);
    let items: Vec<&Value> = log.iter().filter(|l| l["type"] == "item").collect();
    assert_eq!(items.len(), 2);
    for item in items {
        let args: Vec<&str> = item["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(args.contains(&"--browser"), "{args:?}");
        assert!(!args.contains(&"--adapter"), "{args:?}");
    }

    let merged = wgstress(&["merge", "--json", out.to_str().unwrap()], dir.path());
    assert_eq!(
        merged.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let report: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let names: Vec<&str> = report["model_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.iter().any(|n| n.contains("WebGPU in Chromium")),
        "the browser's adapter, named with the browser: {names:?}"
    );
    assert!(
        names.iter().any(|n| !n.contains("WebGPU")),
        "the native adapter: {names:?}"
    );
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "two items on two adapters: {report}");
    for row in rows {
        assert_eq!(row["outcome"], "pass", "{row}");
        assert!(row["runs"].as_u64().unwrap() > 0, "{row}");
    }
    let text = wgstress(&["merge", out.to_str().unwrap()], dir.path());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("browser ") && text.contains("WebGPU in Chromium"),
        "{text}"
    );
}
