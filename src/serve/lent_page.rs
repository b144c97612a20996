//! One page's run of the plan: its name and adapter, its directory (`DIR/<host>/browser-
//! <adapter>/shard-0/`, the host its name, made safe, or its address; a second page of the
//! same host and adapter gets `<host>-2`), the plan's items as a campaign's worker runs them,
//! each lent the page through serve, and the items' news on the page as they go. A page that
//! goes stops the item it runs (killed: its device is gone), which its shard log leaves
//! without an end, and the items after it are not run.

use crate::fanout::{Fanout, Subscriber};
use crate::notes::Notes;
use crate::options::RELAY_SECRET;
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wgstress_browser::{News, ServedPage};
use wgstress_campaign::children::Children;
use wgstress_campaign::execute::{self, Admission, Campaign, Reach, Relay};
use wgstress_campaign::outcome::{BaselineJudgement, SessionOutcome};
use wgstress_campaign::plan::{CampaignPlan, Item};
use wgstress_campaign::shard::Shard;
use wgstress_campaign::CampaignError;
use wgstress_model::event::{EventKind, ShardEvent};

/// How long a page may take to say its name once connected.
const HELLO: Duration = Duration::from_secs(30);

/// Suffixes tried for a host whose adapter's directory holds a shard already.
const MAX_SUFFIX: u32 = 1000;

/// What every page's run shares.
pub(super) struct Context<'a> {
    pub plan: &'a CampaignPlan,
    pub out: &'a Path,
    pub binary: &'a Path,
    pub stop: Arc<AtomicBool>,
    pub notes: Notes,
    /// The shard directories this serve has given pages, so that two pages that come at
    /// once do not take one.
    pub taken: &'a Mutex<Vec<PathBuf>>,
}

/// How a page's run went.
pub(super) struct Ran {
    pub errors: bool,
    pub unexpected: bool,
}

pub(super) fn run(page: Arc<ServedPage>, context: &Context) -> Result<Ran> {
    let peer = page.peer();
    let Some(name) = page.name(HELLO) else {
        let why = page
            .gone()
            .unwrap_or_else(|| format!("it said no hello within {} s", HELLO.as_secs()));
        page.close("no hello");
        return Err(anyhow!("the page from {peer} was refused: {why}"));
    };
    let host = match name.trim() {
        "" => peer.ip().to_string(),
        name => name.to_string(),
    };
    let host = wgstress_campaign::layout::safe_host(&host);
    let info = page
        .adapter()
        .map_err(|e| anyhow!("the page from {peer} ({host}): {e}"))?;
    let adapter = crate::session::adapters::browser_adapter(&info);
    let (host, mut worker) = claim(context, &host, &adapter)?;
    let notes = context.notes;
    notes.note(&format!(
        "a device from {peer}: {} as {host}, logs in {}",
        adapter.model(),
        worker.dir.display()
    ));
    let items: Vec<(String, bool)> = context
        .plan
        .items
        .iter()
        .map(|i| (i.name.clone(), i.may_hang()))
        .collect();
    page.tell(News::Plan { items: &items });
    worker.reach = Reach::Relay(Arc::new(Lent {
        page: page.clone(),
        stop: context.stop.clone(),
    }));
    let children = Arc::new(Children::new());
    crate::interrupt::forward_to(children.clone());
    let _forwarded = Forwarded(children.clone());
    let campaign = Campaign {
        plan: context.plan,
        shard: Shard::WHOLE,
        host: host.clone(),
        workers: vec![worker],
        binary: context.binary.to_path_buf(),
        rerun_unexpected: 0,
        baseline: None,
        stop: context.stop.clone(),
        children: children.clone(),
    };
    let finished = AtomicBool::new(false);
    let outcomes = std::thread::scope(|scope| {
        // The page's going stops its item at once: nothing it does can reach the device.
        scope.spawn(|| {
            while !finished.load(Ordering::SeqCst) {
                if page.gone().is_some() {
                    children.signal(libc::SIGKILL);
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let mut reporter = Fanout::new(None);
        reporter.show(PageNews {
            page: page.clone(),
            names: items.iter().map(|(n, _)| n.clone()).collect(),
            host: host.clone(),
            notes,
        });
        let outcomes = execute::run(&campaign, &mut reporter);
        finished.store(true, Ordering::SeqCst);
        outcomes
    })?;
    let why = match page.gone() {
        Some(why) => {
            notes.note(&format!(
                "{host}: the page went ({why}); what it ran is kept"
            ));
            "the page went".to_string()
        }
        None if context.stop.load(Ordering::SeqCst) => "wgstress serve was stopped".into(),
        None => format!("{} of {} items ran", outcomes.len(), items.len()),
    };
    page.tell(News::Done { why: &why });
    notes.note(&format!("{host}: done: {why}"));
    Ok(Ran {
        errors: outcomes.iter().any(|o| o.outcome == SessionOutcome::Error),
        unexpected: outcomes
            .iter()
            .any(|o| BaselineJudgement::of(o.expected, o.outcome).unexpected()),
    })
}

/// The page's host name and its worker, in a directory that holds no shard yet and that no
/// other page of this serve has: `host`, else `host-2`, `host-3`...
fn claim(
    context: &Context,
    host: &str,
    adapter: &wgstress_campaign::shard_log::Adapter,
) -> Result<(String, execute::Worker)> {
    let mut taken = context.taken.lock().unwrap_or_else(|e| e.into_inner());
    for n in 1..=MAX_SUFFIX {
        let name = match n {
            1 => host.to_string(),
            n => format!("{host}-{n}"),
        };
        match execute::prepare(
            context.out,
            &name,
            std::slice::from_ref(adapter),
            Shard::WHOLE,
        ) {
            Ok(mut workers) => {
                let worker = workers.remove(0);
                if taken.contains(&worker.dir) {
                    continue;
                }
                taken.push(worker.dir.clone());
                return Ok((name, worker));
            }
            // A shard ran there already: the next name.
            Err(CampaignError::Input(_)) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(anyhow!(
        "{host}: {MAX_SUFFIX} devices of this host and adapter ran into {} already",
        context.out.display()
    ))
}

/// Signals stop reaching the page's items once its run is over.
struct Forwarded(Arc<Children>);

impl Drop for Forwarded {
    fn drop(&mut self) {
        crate::interrupt::stop_forwarding_to(&self.0);
    }
}

/// The page, lent to one item at a time.
struct Lent {
    page: Arc<ServedPage>,
    /// Serve's stop (Ctrl-C): an item waiting for consent then waits no longer.
    stop: Arc<AtomicBool>,
}

impl Relay for Lent {
    fn admit(&self, item: &Item) -> Option<Admission> {
        let stopped = || self.stop.load(Ordering::SeqCst);
        if item.may_hang() && !self.page.consent(&stopped) {
            return None;
        }
        if self.page.gone().is_some() {
            return None;
        }
        let lease = self.page.lend().ok()?;
        Some(Admission {
            args: vec!["--browser-relay".into(), lease.address.to_string()],
            env: vec![(RELAY_SECRET.to_string(), lease.secret)],
        })
    }

    fn gone(&self) -> bool {
        self.page.gone().is_some()
    }
}

/// Each item's start and end, on the page and as notes.
struct PageNews {
    page: Arc<ServedPage>,
    /// The plan's items' names, in order: the page knows them by place.
    names: Vec<String>,
    host: String,
    notes: Notes,
}

impl Subscriber for PageNews {
    fn notice(&mut self, event: EventKind<'_>) {
        let EventKind::Shard(event) = event else {
            return;
        };
        let place = |name: &str| self.names.iter().position(|n| n == name);
        match event {
            ShardEvent::Started { item, .. } => {
                self.notes.note(&format!("{}: {item}: started", self.host));
                if let Some(item) = place(item) {
                    self.page.tell(News::Started { item });
                }
            }
            ShardEvent::Finished {
                item,
                exit,
                seconds,
                ..
            } => {
                let result = format!("{exit} in {seconds:.1} s");
                self.notes.note(&format!("{}: {item}: {result}", self.host));
                if let Some(item) = place(item) {
                    self.page.tell(News::Ended {
                        item,
                        result: &result,
                        passed: exit.passed(),
                    });
                }
            }
        }
    }
}
