//! A page in a real headless Chromium, driven over the DevTools protocol: the recorder is
//! injected before the page's own scripts, the page's console goes to stderr, and the
//! recording is taken from the page when it logs `wgstress:done` or its time is up.

use super::websocket::{Received, WebSocket};
use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The recorder as a classic script that keeps its names to itself, and the function the
/// page is asked for its recording by.
fn injected(recorder: &str) -> String {
    let body = recorder
        .replace("export function install", "function install")
        .replace("export function serialize", "function serialize");
    format!(
        "(() => {{\n{body}\nif (!globalThis.GPUDevice) return;\n\
         const recording = install(globalThis);\n\
         Object.defineProperty(globalThis, '__wgstressRecording', {{ enumerable: false, value: async () => {{\n\
           for (let i = 0; i < 250 && recording.pending > 0; i++) await new Promise((r) => setTimeout(r, 20));\n\
           return serialize(recording);\n\
         }} }});\n}})();\n"
    )
}

/// The Chromium to run: `chromium` (Debian's), else `chromium-browser` or `google-chrome`.
fn chromium() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    bail!("no Chromium found (chromium, chromium-browser or google-chrome on PATH): --browser needs one (Debian: apt-get install chromium)")
}

struct Browser {
    child: Child,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long Chromium may take to listen for DevTools. Its start-up is CPU-bound: on a machine
/// whose cores are all busy (a CI runner running tests beside it) it takes many times longer
/// than on an idle one, and a slow start is not a failure.
const STARTUP: Duration = Duration::from_secs(180);

/// The DevTools address Chromium wrote into its profile directory once it listens.
fn devtools_address(profile: &Path, browser: &mut Browser) -> Result<String> {
    let deadline = Instant::now() + STARTUP;
    let file = profile.join("DevToolsActivePort");
    loop {
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                return Ok(format!("ws://127.0.0.1:{port}{path}"));
            }
        }
        if let Some(status) = browser.child.try_wait()? {
            bail!("Chromium ended ({status}) before it listened for DevTools");
        }
        if Instant::now() > deadline {
            bail!(
                "Chromium did not listen for DevTools within {} s",
                STARTUP.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One DevTools connection, with a page session.
struct DevTools {
    socket: WebSocket,
    next: u64,
    session: Option<String>,
    done: bool,
    /// The page's console lines so far.
    console: Vec<String>,
    /// Whether they also go to stderr as they come.
    echo: bool,
}

impl DevTools {
    /// Sends a command (to the page's session once there is one) and waits for its answer,
    /// passing on the page's console lines that come meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        self.next += 1;
        let id = self.next;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        self.socket.send(&message.to_string())?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let text = match self.socket.receive(left)? {
                Received::Message(text) => text,
                Received::Closed => bail!("Chromium closed DevTools during {method}"),
                Received::TimedOut => bail!("DevTools did not answer {method} within 60 s"),
            };
            let value: Value = serde_json::from_str(&text)?;
            if value["id"].as_u64() == Some(id) {
                if let Some(error) = value.get("error") {
                    bail!(
                        "DevTools {method}: {}",
                        error["message"].as_str().unwrap_or("failed")
                    );
                }
                return Ok(value["result"].clone());
            }
            self.event(&value);
        }
    }

    /// A page's console line goes to stderr; `wgstress:done` ends the recording.
    fn event(&mut self, value: &Value) {
        match value["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let args = value["params"]["args"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let line: Vec<String> = args
                    .iter()
                    .map(|a| match &a["value"] {
                        Value::String(s) => s.clone(),
                        Value::Null => a["description"].as_str().unwrap_or("").to_string(),
                        other => other.to_string(),
                    })
                    .collect();
                let line = line.join(" ");
                if line == "wgstress:done" {
                    self.done = true;
                } else {
                    if self.echo {
                        eprintln!("page: {line}");
                    }
                    self.console.push(line);
                }
            }
            Some("Runtime.exceptionThrown") => {
                let details = &value["params"]["exceptionDetails"];
                let text = details["exception"]["description"]
                    .as_str()
                    .or(details["text"].as_str())
                    .unwrap_or("an exception");
                if self.echo {
                    eprintln!("page: uncaught {text}");
                }
                self.console.push(format!("uncaught {text}"));
            }
            _ => {}
        }
    }
}

/// Loads `url` in a headless Chromium with the recorder, until the page logs
/// `wgstress:done` or `time` passes; returns the recording's JSON. The page's console goes to
/// stderr.
pub fn record(
    url: &str,
    time: Duration,
    recorder: &str,
    scratch: &Path,
    k: usize,
) -> Result<String> {
    let page = load(
        url,
        time,
        Some(recorder),
        &scratch.join(format!("chromium-{k}")),
        true,
    )?;
    page.recording.ok_or_else(|| {
        let said = page
            .console
            .last()
            .map(|l| format!(" (its last console line: {l})"))
            .unwrap_or_default();
        anyhow!("{url}: the page has no WebGPU, or the recorder did not load in it{said}")
    })
}

/// What a page did: its console lines, and the recording when the recorder was loaded.
pub struct Page {
    pub console: Vec<String>,
    pub recording: Option<String>,
}

/// Loads `url` in a headless Chromium, with the recorder before the page's scripts when
/// given one, until the page logs `wgstress:done` or `time` passes.
pub fn load(
    url: &str,
    time: Duration,
    recorder: Option<&str>,
    profile: &Path,
    echo: bool,
) -> Result<Page> {
    std::fs::create_dir_all(profile)?;
    let mut command = Command::new(chromium()?);
    command
        .arg("--headless=new")
        .arg("--enable-unsafe-webgpu")
        // SwiftShader where the machine has no GPU Chromium can use.
        .arg("--enable-unsafe-swiftshader")
        .arg("--remote-debugging-port=0")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--no-first-run")
        .arg("--no-default-browser-check")
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Chromium refuses to run as root inside its sandbox.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        command.arg("--no-sandbox");
    }
    let mut browser = Browser {
        child: command.spawn().context("cannot start Chromium")?,
    };
    let address = devtools_address(profile, &mut browser)?;
    let socket = WebSocket::connect(&address)?;
    let mut devtools = DevTools {
        socket,
        next: 0,
        session: None,
        done: false,
        console: Vec::new(),
        echo,
    };
    let target = devtools.call("Target.createTarget", json!({ "url": "about:blank" }))?;
    let target = target["targetId"]
        .as_str()
        .ok_or_else(|| anyhow!("DevTools gave no target"))?
        .to_string();
    let attached = devtools.call(
        "Target.attachToTarget",
        json!({ "targetId": target, "flatten": true }),
    )?;
    devtools.session = attached["sessionId"].as_str().map(str::to_string);
    devtools.call("Runtime.enable", json!({}))?;
    devtools.call("Page.enable", json!({}))?;
    if let Some(recorder) = recorder {
        devtools.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": injected(recorder) }),
        )?;
    }
    let navigated = devtools.call("Page.navigate", json!({ "url": url }))?;
    if let Some(error) = navigated["errorText"].as_str() {
        bail!("{url}: {error}");
    }
    let deadline = Instant::now() + time;
    while !devtools.done {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        match devtools.socket.receive(left)? {
            Received::Message(text) => {
                if let Ok(value) = serde_json::from_str::<Value>(&text) {
                    devtools.event(&value);
                }
            }
            Received::Closed => bail!("Chromium closed DevTools while the page ran"),
            Received::TimedOut => {}
        }
    }
    let recording = match recorder {
        None => None,
        Some(_) => {
            let result = devtools.call(
                "Runtime.evaluate",
                json!({
                    "expression": "globalThis.__wgstressRecording ? globalThis.__wgstressRecording() : null",
                    "returnByValue": true,
                    "awaitPromise": true,
                }),
            )?;
            match &result["result"]["value"] {
                Value::String(s) => Some(s.clone()),
                _ => None,
            }
        }
    };
    Ok(Page {
        console: devtools.console,
        recording,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example page's result is the same with and without the recorder (Chromium on
    /// SwiftShader here; tools/test-deps.sh installs it). The fixed page's result is known;
    /// the buggy one's may be wrong by itself now and then, so it is only read.
    #[test]
    fn the_recorder_changes_nothing_a_page_sees() {
        let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/record/web/scan.html");
        let dir = tempfile::tempdir().unwrap();
        for query in ["?fixed", ""] {
            let url = format!("file://{}{query}", page.display());
            let time = Duration::from_secs(60);
            let alone = load(
                &url,
                time,
                None,
                &dir.path().join(format!("a{query}")),
                false,
            )
            .unwrap();
            let recorded = load(
                &url,
                time,
                Some(super::super::RECORDER),
                &dir.path().join(format!("r{query}")),
                false,
            )
            .unwrap();
            if query == "?fixed" {
                assert_eq!(alone.console, ["count right"], "{url}");
                assert_eq!(recorded.console, alone.console, "{url}");
            } else {
                for page in [&alone, &recorded] {
                    assert!(
                        page.console.len() == 1 && page.console[0].starts_with("count "),
                        "{url}: {:?}",
                        page.console
                    );
                }
            }
            assert!(alone.recording.is_none());
            assert!(recorded
                .recording
                .is_some_and(|r| r.contains("\"dispatch\"")));
        }
    }
}
