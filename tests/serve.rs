//! `wgstress serve`: headless Chromium pages that open the printed address become devices,
//! each logging the plan under `DIR/<host>/browser-<adapter>/` for one merged report; a client
//! without the token gets 403 and nothing is written; an oversized message closes the page's
//! socket; a page killed mid-run keeps what it reported and the report says the rest was cut
//! short; items that may hang the machine wait for the consent click. Chromium must be there:
//! without it no page connects and the tests fail.

mod common;

use common::{json_lines, wgstress};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wgstress_chromium::DevTools;

/// How long a test waits for what a page does: Chromium's start and SwiftShader's compiles
/// are CPU-bound, slow on a machine whose two cores are busy with other tests.
const PATIENCE: Duration = Duration::from_secs(240);

/// A running `wgstress serve`, killed when dropped if it has not ended.
struct Serve {
    child: Child,
    url: String,
    stderr: PathBuf,
}

impl Serve {
    fn start(plan: &Path, out: &Path, devices: u32) -> Serve {
        Serve::start_with(Some(plan), out, devices)
    }

    /// serve of `plan`, or of its bundled plan.
    fn start_with(plan: Option<&Path>, out: &Path, devices: u32) -> Serve {
        let stderr = out.with_extension("stderr.txt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
            .arg("serve")
            .args(plan.map(|p| p.to_str().unwrap()))
            .args(["--out", out.to_str().unwrap()])
            .args(["--devices", &devices.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "{url:?}");
        Serve { child, url, stderr }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// `http://127.0.0.1:PORT`, the token, and the WebSocket's port.
    fn parts(&self) -> (String, String, u16) {
        let rest = self.url.strip_prefix("http://").unwrap();
        let (address, rest) = rest.split_once('/').unwrap();
        let (token, query) = rest.split_once("/?").unwrap();
        let ws = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("ws="))
            .unwrap()
            .parse()
            .unwrap();
        (address.to_string(), token.to_string(), ws)
    }

    /// Waits for serve to end; its exit status.
    fn wait(&mut self) -> Option<i32> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(
                Instant::now() < deadline,
                "serve did not end: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium showing a page, in a process group and profile of its own.
struct Client {
    child: Child,
    devtools: DevTools,
    _profile: tempfile::TempDir,
}

impl Client {
    fn open(url: &str) -> Client {
        let profile = tempfile::tempdir().unwrap();
        let mut command = wgstress_chromium::command(profile.path()).expect("Chromium is there");
        command.process_group(0);
        let mut child = command.spawn().unwrap();
        let address = wgstress_chromium::devtools_address(profile.path(), &mut || child.try_wait())
            .expect("Chromium listens for DevTools");
        let mut devtools = DevTools::connect(&address).unwrap();
        devtools.open_page().unwrap();
        devtools.navigate(url).unwrap();
        Client {
            child,
            devtools,
            _profile: profile,
        }
    }

    /// Kills the browser: its page goes without a word.
    fn kill(&mut self) {
        wgstress_chromium::kill_group(self.child.id() as libc::pid_t);
        let _ = self.child.wait();
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.kill();
    }
}

fn write_plan(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("plan.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The shard logs under `out`.
fn shard_logs(out: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![out.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|n| n == "shard.jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Waits until `done` holds of the shard logs under `out`.
fn wait_for(out: &Path, serve: &Serve, what: &str, done: impl Fn(&[Vec<Value>]) -> bool) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let logs: Vec<Vec<Value>> = shard_logs(out).iter().map(|p| json_lines(p)).collect();
        if done(&logs) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: {logs:?}\n{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// What the items under `out` said on stderr and how they ended, for a failure's message.
fn diagnose(out: &Path) -> String {
    let mut text = String::new();
    for log in shard_logs(out) {
        let dir = log.parent().unwrap();
        for line in json_lines(&log).iter().filter(|l| l["type"] == "done") {
            text.push_str(&format!("{line}\n"));
        }
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".stderr.txt") {
                let said = std::fs::read_to_string(entry.path()).unwrap_or_default();
                text.push_str(&format!("{name}: {said}\n"));
            }
        }
    }
    text
}

fn merged(out: &Path) -> Value {
    let merge = wgstress(&["merge", "--json", out.to_str().unwrap()], out);
    serde_json::from_slice(&merge.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&merge.stderr)))
}

const SMALL: &str = r#"
name = "served"

[[item]]
command = "run"
app = "cbe-dot"
variant = "fixed"
size = "small"
runs = 4

[[item]]
command = "litmus"
test = "mp"
iterations = 10
testing_groups = 8
"#;

#[test]
fn two_pages_are_two_devices_in_one_merged_report() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), SMALL);
    let out = dir.path().join("out");
    let mut serve = Serve::start(&plan, &out, 2);
    // A name that tries to climb out of the output directory lands inside it, made safe.
    let _alpha = Client::open(&format!("{}&name=alpha", serve.url));
    let _beta = Client::open(&format!("{}&name=../../beta", serve.url));
    let code = serve.wait();
    assert_eq!(code, Some(0), "{}", serve.stderr());
    let mut hosts: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    hosts.sort();
    assert_eq!(hosts, ["alpha", "beta"], "{}", serve.stderr());
    let logs = shard_logs(&out);
    assert_eq!(logs.len(), 2, "{logs:?}");
    for log in &logs {
        let dir = log.parent().unwrap().parent().unwrap();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("browser-"), "{name}");
        let lines = json_lines(log);
        assert_eq!(lines[0]["adapter"]["index"], "browser", "{}", lines[0]);
        // Each item reached its page through serve, by the relay's address alone: the secret
        // is in its environment, not on its command line.
        for item in lines.iter().filter(|l| l["type"] == "item") {
            let args: Vec<&str> = item["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            assert!(args.contains(&"--browser-relay"), "{args:?}");
            assert!(args.iter().all(|a| !a.contains("SECRET")), "{args:?}");
        }
        assert!(lines.last().unwrap()["type"] == "end", "{lines:?}");
    }
    let report = merged(&out);
    assert_eq!(report["total"]["gpus"], 2, "{report}");
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "two items on two devices: {report}");
    for row in rows {
        assert_eq!(
            row["outcome"],
            "pass",
            "{row}\n{}\n{}",
            diagnose(&out),
            serve.stderr()
        );
        assert!(
            row["adapter"]["name"]
                .as_str()
                .unwrap()
                .contains("WebGPU in"),
            "{row}"
        );
    }
}

/// Sends an HTTP GET of `path` to `address`; the status line.
fn get(address: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or_default().to_string()
}

/// A WebSocket to serve's page socket at `path`.
fn socket(ws: u16, path: &str) -> Result<tungstenite::WebSocket<TcpStream>, tungstenite::Error> {
    let stream = TcpStream::connect(("127.0.0.1", ws)).unwrap();
    tungstenite::client::client(format!("ws://127.0.0.1:{ws}/{path}"), stream)
        .map(|(socket, _)| socket)
        .map_err(|e| match e {
            tungstenite::HandshakeError::Failure(e) => e,
            tungstenite::HandshakeError::Interrupted(_) => panic!("a blocking handshake"),
        })
}

#[test]
fn no_token_no_answer_and_oversized_messages_close_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), SMALL);
    let out = dir.path().join("out");
    // Three pages connect with the token, each refused for what it sends.
    let serve = Serve::start(&plan, &out, 3);
    let (address, token, ws) = serve.parts();
    let wrong = format!("{:032x}", u128::from_str_radix(&token, 16).unwrap() ^ 1);
    for path in [
        format!("/{wrong}/"),
        format!("/{wrong}/executor.js"),
        "/".to_string(),
        format!("/{}/", &token[..31]),
        format!("/{token}/../../etc/passwd"),
    ] {
        assert!(get(&address, &path).contains(" 403"), "{path}");
    }
    assert!(get(&address, &format!("/{token}/")).contains(" 200"));
    match socket(ws, &wrong) {
        Err(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 403),
        other => panic!("a socket without the token: {:?}", other.map(drop)),
    }

    // With the token: a message without it closes the socket, and so does one over the
    // largest a page may send (its frame header says how long it is).
    let mut unsigned = socket(ws, &token).unwrap();
    unsigned
        .send(tungstenite::Message::text(
            r#"{"event":"hello","name":"x"}"#,
        ))
        .unwrap();
    let mut oversized = socket(ws, &token).unwrap();
    let stream = oversized.get_mut();
    // A masked text frame of 2^40 bytes: FIN and text, mask bit and a 64-bit length.
    let mut header = vec![0x81u8, 0xff];
    header.extend((1u64 << 40).to_be_bytes());
    header.extend([1, 2, 3, 4]);
    stream.write_all(&header).unwrap();
    stream.write_all(&[0; 64]).unwrap();
    let mut long_hello = socket(ws, &token).unwrap();
    let hello = serde_json::json!({
        "event": "hello", "name": "y".repeat(5000), "token": token,
    });
    long_hello
        .send(tungstenite::Message::text(hello.to_string()))
        .unwrap();
    for (what, socket) in [
        ("unsigned", &mut unsigned),
        ("oversized", &mut oversized),
        ("long hello", &mut long_hello),
    ] {
        socket
            .get_ref()
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        // The first thing serve sends is the close: no page news, no answer.
        match socket.read() {
            Ok(tungstenite::Message::Close(_)) | Err(_) => {}
            Ok(message) => panic!("{what}: serve said {message:?}"),
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(serve.stderr().contains("without its token")
        && serve.stderr().contains("over the largest")
        && serve.stderr().contains("over 4096 bytes"))
    {
        assert!(Instant::now() < deadline, "{}", serve.stderr());
        std::thread::sleep(Duration::from_millis(100));
    }
    let written: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
    assert!(written.is_empty(), "nothing is written: {written:?}");
}

#[test]
fn a_killed_page_keeps_what_it_reported_and_the_report_says_it_was_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        r#"
name = "cut"

[[item]]
command = "litmus"
name = "first"
test = "mp"
iterations = 10
testing_groups = 8

[[item]]
command = "run"
name = "long"
app = "cbe-dot"
variant = "fixed"
size = "small"
time = 600

[[item]]
command = "litmus"
name = "never"
test = "sb"
iterations = 10
"#,
    );
    let out = dir.path().join("out");
    let mut serve = Serve::start(&plan, &out, 1);
    let mut client = Client::open(&format!("{}&name=doomed", serve.url));
    // Once the long item has logged runs, the browser is killed.
    wait_for(&out, &serve, "the long item's runs", |logs| {
        logs.len() == 1
            && logs[0].iter().filter(|l| l["type"] == "item").count() == 2
            && shard_logs(&out).iter().any(|p| {
                let dir = p.parent().unwrap();
                std::fs::read_dir(dir).unwrap().flatten().any(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with("run-cbe-dot")
                        && name.ends_with(".jsonl")
                        && json_lines(&e.path()).iter().any(|l| l["type"] == "batch")
                })
            })
    });
    client.kill();
    serve.wait();
    let stderr = serve.stderr();
    assert!(stderr.contains("the page went"), "{stderr}");
    let log = json_lines(&shard_logs(&out)[0]);
    let done: Vec<&Value> = log.iter().filter(|l| l["type"] == "done").collect();
    assert_eq!(done.len(), 1, "the first item's end, and no other: {log:?}");
    let report = merged(&out);
    let shard = &report["shards"][0];
    assert_eq!(shard["cut_short"], serde_json::json!(["long"]), "{report}");
    assert_eq!(shard["not_run"], serde_json::json!(["never"]), "{report}");
    let rows = report["rows"].as_array().unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["item"] == name)
            .unwrap_or_else(|| panic!("{name}: {report}"))
    };
    assert_eq!(row("first")["outcome"], "pass", "{report}");
    assert_eq!(row("long")["outcome"], "incomplete", "{report}");
    assert!(row("long")["runs"].as_u64().unwrap() > 0, "{report}");
    let text = wgstress(&["merge", out.to_str().unwrap()], dir.path());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("cut short, counted to its last log line: long"),
        "{text}"
    );
}

/// A safe item, then one that waits for consent.
const GATED: &str = r#"
name = "consent"

[[item]]
command = "litmus"
name = "safe"
test = "mp"
iterations = 10
testing_groups = 8

[[item]]
command = "run"
name = "raw"
app = "cbe-dot"
variant = "fixed"
size = "small"
raw = true
runs = 2
"#;

#[test]
fn items_that_may_hang_wait_for_the_consent_click() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), GATED);
    let out = dir.path().join("out");
    let mut serve = Serve::start(&plan, &out, 1);
    let mut client = Client::open(&format!("{}&name=careful", serve.url));
    wait_for(&out, &serve, "the safe item's end", |logs| {
        logs.len() == 1 && logs[0].iter().any(|l| l["type"] == "done")
    });
    // The raw run waits: a while later it has not started.
    std::thread::sleep(Duration::from_secs(3));
    let log = json_lines(&shard_logs(&out)[0]);
    let started: Vec<&Value> = log.iter().filter(|l| l["type"] == "item").collect();
    assert_eq!(started.len(), 1, "only the safe item started: {log:?}");
    let shown = client
        .devtools
        .evaluate("getComputedStyle(document.getElementById('consent')).display")
        .unwrap();
    assert_eq!(shown, "block", "the page asks for consent");
    client.devtools.click("#agree").unwrap();
    assert_eq!(serve.wait(), Some(0), "{}", serve.stderr());
    let log = json_lines(&shard_logs(&out)[0]);
    let ended: Vec<&Value> = log.iter().filter(|l| l["type"] == "done").collect();
    assert_eq!(ended.len(), 2, "{log:?}");
    let report = merged(&out);
    for row in report["rows"].as_array().unwrap() {
        assert_eq!(row["outcome"], "pass", "{row}\n{}", diagnose(&out));
    }
}

#[test]
fn ctrl_c_ends_serve_while_an_item_waits_for_consent() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), GATED);
    let out = dir.path().join("out");
    let mut serve = Serve::start(&plan, &out, 1);
    let _client = Client::open(&format!("{}&name=waiting", serve.url));
    wait_for(&out, &serve, "the safe item's end", |logs| {
        logs.len() == 1 && logs[0].iter().any(|l| l["type"] == "done")
    });
    // SAFETY: kill(2) on the serve this test started and has not reaped.
    unsafe {
        libc::kill(serve.child.id() as libc::pid_t, libc::SIGINT);
    }
    assert_eq!(serve.wait(), Some(130), "{}", serve.stderr());
    let log = json_lines(&shard_logs(&out)[0]);
    assert_eq!(log.last().unwrap()["type"], "end", "{log:?}");
    assert_eq!(log.last().unwrap()["interrupted"], true, "{log:?}");
    let report = merged(&out);
    assert_eq!(
        report["shards"][0]["not_run"],
        serde_json::json!(["raw"]),
        "{report}"
    );
}

#[test]
fn without_a_plan_serve_serves_the_bundled_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let serve = Serve::start_with(None, &out, 1);
    let (address, token, _) = serve.parts();
    assert!(get(&address, &format!("/{token}/serve.js")).contains(" 200"));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !serve
        .stderr()
        .contains("serving plan test-this-gpu (21 items)")
    {
        assert!(Instant::now() < deadline, "{}", serve.stderr());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Its items, as campaign lists them.
    let plan = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/plans/test-this-gpu.toml");
    let list = wgstress(&["campaign", plan.to_str().unwrap(), "--list"], dir.path());
    let list = String::from_utf8_lossy(&list.stdout);
    for item in [
        "fixed cbe-dot",
        "litmus mp",
        "litmus sb",
        "litmus lb",
        "mutants --tests conformance",
        "raw buggy ls-bh",
        "progress suite",
    ] {
        assert!(list.contains(item), "{item}: {list}");
    }
}
