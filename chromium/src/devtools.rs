//! One DevTools connection with one page session: commands and their answers, expressions
//! evaluated in the page, clicks, and the page's console lines and uncaught exceptions, kept
//! as events in the order they came for the caller to take.

use crate::console;
use crate::error::{ChromiumError, Result};
use crate::socket::{Received, WebSocket};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How long a command may wait for its answer.
const ANSWER: Duration = Duration::from_secs(60);

/// What the page said by itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageEvent {
    /// A console call, as the browser's console shows it.
    Console(String),
    /// An exception nothing caught: its description.
    Exception(String),
}

pub struct DevTools {
    socket: WebSocket,
    next: u64,
    session: Option<String>,
    events: Vec<PageEvent>,
}

impl DevTools {
    /// Connects to the browser's DevTools at `address` (`ws://HOST:PORT/PATH`).
    pub fn connect(address: &str) -> Result<DevTools> {
        Ok(DevTools {
            socket: WebSocket::connect(address)?,
            next: 0,
            session: None,
            events: Vec::new(),
        })
    }

    /// Opens a blank page and attaches to it, with its runtime and page events on; returns
    /// the browser's name and version. Commands from then on go to the page.
    pub fn open_page(&mut self) -> Result<String> {
        let version = self.call("Browser.getVersion", json!({}))?;
        let version = version["product"]
            .as_str()
            .unwrap_or("Chromium")
            .to_string();
        let target = self.call("Target.createTarget", json!({ "url": "about:blank" }))?;
        let target = target["targetId"]
            .as_str()
            .ok_or(ChromiumError::Missing("target"))?
            .to_string();
        let attached = self.call(
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        )?;
        self.session = attached["sessionId"].as_str().map(str::to_string);
        self.call("Runtime.enable", json!({}))?;
        self.call("Page.enable", json!({}))?;
        Ok(version)
    }

    /// Runs `source` in every document the page loads from now on, before its own scripts.
    pub fn before_scripts(&mut self, source: &str) -> Result<()> {
        self.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source }),
        )
        .map(drop)
    }

    /// Loads `url` in the page; an address the browser cannot load is an error that says why.
    pub fn navigate(&mut self, url: &str) -> Result<()> {
        let navigated = self.call("Page.navigate", json!({ "url": url }))?;
        match navigated["errorText"].as_str() {
            Some(error) => Err(ChromiumError::NotLoaded {
                url: url.to_string(),
                reason: error.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Sends a command (to the page's session once there is one) and waits for its answer,
    /// keeping the page's events that come meanwhile.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        self.next += 1;
        let id = self.next;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        self.socket.send(&message.to_string())?;
        let deadline = Instant::now() + ANSWER;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let text = match self.socket.receive(left)? {
                Received::Message(text) => text,
                Received::Closed => return Err(ChromiumError::Closed(method.to_string())),
                Received::TimedOut => {
                    return Err(ChromiumError::NoAnswer {
                        method: method.to_string(),
                        seconds: ANSWER.as_secs(),
                    })
                }
            };
            let value: Value = serde_json::from_str(&text)?;
            if value["id"].as_u64() == Some(id) {
                if let Some(error) = value.get("error") {
                    return Err(ChromiumError::Failed {
                        method: method.to_string(),
                        message: error["message"].as_str().unwrap_or("failed").to_string(),
                    });
                }
                return Ok(value["result"].clone());
            }
            self.keep(&value);
        }
    }

    /// The value of `expression` in the page (awaited when it is a promise); an exception
    /// it throws is an error that says what it was.
    pub fn evaluate(&mut self, expression: &str) -> Result<Value> {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        )?;
        if let Some(details) = result.get("exceptionDetails") {
            let text = thrown(details);
            return Err(ChromiumError::Thrown(
                text.lines().next().unwrap_or(text).to_string(),
            ));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Clicks the centre of the page's first element that matches `selector`, with the
    /// mouse, as a user would.
    pub fn click(&mut self, selector: &str) -> Result<()> {
        let quoted = serde_json::to_string(selector)?;
        let place = self.evaluate(&format!(
            "(() => {{ const e = document.querySelector({quoted}); if (!e) return null; \
             e.scrollIntoView({{ block: 'center', inline: 'center' }}); \
             const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ))?;
        let (Some(x), Some(y)) = (place[0].as_f64(), place[1].as_f64()) else {
            return Err(ChromiumError::NoElement(selector.to_string()));
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )?;
        }
        Ok(())
    }

    /// Waits at most `timeout` for a message from the browser, keeping it if it is a page
    /// event; whether one came (an answer to no command counts as none).
    pub fn wait(&mut self, timeout: Duration) -> Result<bool> {
        match self.socket.receive(timeout)? {
            Received::Message(text) => {
                if let Ok(value) = serde_json::from_str::<Value>(&text) {
                    self.keep(&value);
                }
                Ok(true)
            }
            Received::Closed => Err(ChromiumError::Closed("the page's run".to_string())),
            Received::TimedOut => Ok(false),
        }
    }

    /// The page's events since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<PageEvent> {
        std::mem::take(&mut self.events)
    }

    fn keep(&mut self, value: &Value) {
        match value["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let args = value["params"]["args"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                self.events.push(PageEvent::Console(console::format(&args)));
            }
            Some("Runtime.exceptionThrown") => {
                let text = thrown(&value["params"]["exceptionDetails"]);
                self.events.push(PageEvent::Exception(text.to_string()));
            }
            _ => {}
        }
    }
}

/// What an exception's details say it was.
fn thrown(details: &Value) -> &str {
    details["exception"]["description"]
        .as_str()
        .or(details["text"].as_str())
        .unwrap_or("an exception")
}
