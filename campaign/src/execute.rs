//! Running a shard: one worker thread per adapter, each running the shard's items in turn,
//! each item a child process of the wgstress binary with the item's options and the
//! campaign's (its seed, its log, `--json`, its adapter). A crashed item does not take the
//! shard with it, and each child flushes its log line by line.

use crate::baseline::Baseline;
use crate::children::Children;
use crate::error::{CampaignError, Result};
use crate::hash::{attempt_seed, item_seed};
use crate::layout::{ItemFiles, SHARD_LOG};
use crate::outcome::{ExpectedOutcome, SessionOutcome};
use crate::plan::{CampaignPlan, Command, Item};
use crate::shard::Shard;
use crate::shard_log::{
    self, Adapter, AdapterPlace, Exit, ItemDone, ItemRef, ItemStart, Line, PlanRef, Writer,
};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use wgstress_model::event::ShardEvent;
use wgstress_model::reporter::Reporter;

/// One adapter's worker, the directory its shard writes to, and how its items reach the
/// adapter.
#[derive(Clone)]
pub struct Worker {
    pub adapter: Adapter,
    pub dir: PathBuf,
    pub reach: Reach,
}

/// How a worker's items find their device.
#[derive(Clone)]
pub enum Reach {
    /// By the adapter's place: `--adapter #N`, or `--browser` (each item starts its own).
    Place,
    /// Through a device another process holds (a page `wgstress serve` serves), which says
    /// when each item may start and how it reaches the device.
    Relay(Arc<dyn Relay>),
}

/// A device held elsewhere, lent to one item at a time.
pub trait Relay: Send + Sync {
    /// Waits until `item` may start (an item that may hang the machine waits for the
    /// device's owner to agree); what the item's command line and environment need to reach
    /// the device, or None where it will not start (the device has gone, or the campaign is
    /// stopping while it waits), which ends the worker.
    fn admit(&self, item: &Item) -> Option<Admission>;

    /// Whether the device has gone: the item running then was cut short (the relay stops
    /// it), and no other starts.
    fn gone(&self) -> bool;
}

/// What reaches a relayed device: arguments for the item's command line, and environment
/// variables (a secret, which a command line would show to every user of the machine).
#[derive(Clone, Debug)]
pub struct Admission {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// A shard to run, validated: its directories exist and hold no earlier shard.
pub struct Campaign<'a> {
    pub plan: &'a CampaignPlan,
    pub shard: Shard,
    pub host: String,
    pub workers: Vec<Worker>,
    /// The wgstress binary the items run (the campaign's own).
    pub binary: PathBuf,
    /// Re-runs of an unexpected failure, to tell a flake from a regression.
    pub rerun_unexpected: u32,
    pub baseline: Option<&'a Baseline>,
    pub stop: Arc<AtomicBool>,
    /// The items running now, which the signals that stop the shard reach too.
    pub children: Arc<Children>,
}

/// An item's attempts on one adapter.
#[derive(Clone, Debug)]
pub struct ItemOutcome {
    pub item: String,
    pub adapter: Adapter,
    pub attempts: Vec<Exit>,
    pub expected: ExpectedOutcome,
    pub outcome: SessionOutcome,
}

/// The directory of each adapter's shard, created; one that already holds a shard's log is
/// refused, so that no result is written over. The items reach their adapters by place.
pub fn prepare(out: &Path, host: &str, adapters: &[Adapter], shard: Shard) -> Result<Vec<Worker>> {
    adapters
        .iter()
        .map(|adapter| {
            let dir = crate::layout::shard_dir(out, host, adapter, shard.index);
            let log = dir.join(SHARD_LOG);
            if log.exists() {
                return Err(CampaignError::Input(format!(
                    "{}: shard {} already ran here; give another --out or remove it",
                    log.display(),
                    shard.index
                )));
            }
            std::fs::create_dir_all(&dir).map_err(|e| CampaignError::io(&dir, e))?;
            Ok(Worker {
                adapter: adapter.clone(),
                dir,
                reach: Reach::Place,
            })
        })
        .collect()
}

/// The reporter the workers share, one event at a time.
type Shared<'a, 'r> = Mutex<&'a mut (dyn Reporter + Send + 'r)>;

/// Runs the shard on every worker at once, reporting each item's attempt as it starts and
/// ends to `reporter`; returns every item's outcome per adapter.
pub fn run(campaign: &Campaign, reporter: &mut (dyn Reporter + Send)) -> Result<Vec<ItemOutcome>> {
    let reporter: Shared = Mutex::new(reporter);
    let items: Vec<&Item> = campaign
        .plan
        .items
        .iter()
        .filter(|i| campaign.shard.owns(i))
        .collect();
    let results: Vec<Result<Vec<ItemOutcome>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = campaign
            .workers
            .iter()
            .map(|worker| scope.spawn(|| work(campaign, worker, &items, &reporter)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker does not panic"))
            .collect()
    });
    let mut all = Vec::new();
    for result in results {
        all.extend(result?);
    }
    Ok(all)
}

fn work(
    campaign: &Campaign,
    worker: &Worker,
    items: &[&Item],
    reporter: &Shared,
) -> Result<Vec<ItemOutcome>> {
    let started = Instant::now();
    let mut log = Writer::create(&worker.dir.join(SHARD_LOG))?;
    log.write(&Line::Start(start_line(campaign, worker, items)))?;
    let mut outcomes = Vec::new();
    let mut relay_ended = false;
    for item in items {
        if campaign.stop.load(Ordering::SeqCst) {
            break;
        }
        let adapter = &worker.adapter;
        let expected = campaign.baseline.map_or(ExpectedOutcome::Pass, |b| {
            b.expect(&item.name, &adapter.model())
        });
        let mut attempts = Vec::new();
        // What each attempt showed: None for one its device's going cut short.
        let mut ended = Vec::new();
        for n in 0..=campaign.rerun_unexpected {
            let last = attempts.last().copied();
            // Only a failure nobody expected is re-run: a flake passes in one of them.
            let rerun = last.is_some_and(Exit::failed) && expected == ExpectedOutcome::Pass;
            if n > 0 && (!rerun || campaign.stop.load(Ordering::SeqCst)) {
                break;
            }
            match attempt(campaign, worker, item, n, &mut log, reporter)? {
                Attempted::Ended(exit) => {
                    attempts.push(exit);
                    ended.push(Some(exit));
                }
                Attempted::CutShort(exit) => {
                    attempts.push(exit);
                    ended.push(None);
                    relay_ended = true;
                    break;
                }
                Attempted::Unstarted => {
                    relay_ended = true;
                    break;
                }
            }
        }
        if !attempts.is_empty() {
            outcomes.push(ItemOutcome {
                item: item.name.clone(),
                adapter: adapter.clone(),
                outcome: SessionOutcome::of(&ended),
                attempts,
                expected,
            });
        }
        // A relay that ended ends the worker: the items left are not run.
        if relay_ended {
            break;
        }
    }
    log.write(&Line::End(shard_log::End {
        seconds: started.elapsed().as_secs_f64(),
        interrupted: relay_ended || campaign.stop.load(Ordering::SeqCst),
        ended: shard_log::now(),
    }))?;
    Ok(outcomes)
}

/// How an attempt went.
enum Attempted {
    Ended(Exit),
    /// Its relayed device went while it ran, and it was stopped: how it ended says nothing
    /// of the item, and its shard log has no end of it (merge counts it as cut short).
    CutShort(Exit),
    /// Its relay would not let it start (its device had gone, or the campaign stopped while
    /// it waited).
    Unstarted,
}

fn start_line(campaign: &Campaign, worker: &Worker, items: &[&Item]) -> shard_log::Start {
    let plan = campaign.plan;
    shard_log::Start {
        version: shard_log::VERSION,
        host: campaign.host.clone(),
        adapter: worker.adapter.clone(),
        shard: campaign.shard,
        plan: PlanRef {
            name: plan.name.clone(),
            path: plan.path.display().to_string(),
            digest: plan.digest.clone(),
            master_seed: format!("{:#x}", plan.master_seed),
            items: plan.items.len(),
        },
        items: items
            .iter()
            .map(|i| ItemRef {
                key: i.key.clone(),
                name: i.name.clone(),
                command: i.command,
                description: i.description.clone(),
                app_args: i.app_args.clone(),
            })
            .collect(),
        started: shard_log::now(),
    }
}

/// One attempt of `item`: the child's command line, its run, its lines in the shard's log.
fn attempt(
    campaign: &Campaign,
    worker: &Worker,
    item: &Item,
    n: u32,
    log: &mut Writer,
    reporter: &Shared,
) -> Result<Attempted> {
    let files = ItemFiles::new(&worker.dir, &item.key, n);
    let seed = item
        .command
        .seeded()
        .then(|| attempt_seed(item_seed(campaign.plan.master_seed, item.hash), n));
    let admission = match &worker.reach {
        Reach::Place => Admission {
            args: match worker.adapter.place {
                AdapterPlace::Listed(index) => vec!["--adapter".into(), format!("#{index}")],
                AdapterPlace::Browser => vec!["--browser".into()],
            },
            env: Vec::new(),
        },
        Reach::Relay(relay) => match relay.admit(item) {
            Some(admission) => admission,
            None => return Ok(Attempted::Unstarted),
        },
    };
    let args = arguments(item, &files, &admission.args, seed);
    log.write(&Line::Item(ItemStart {
        key: item.key.clone(),
        attempt: n,
        seed: seed.map(|s| format!("{s:#018x}")),
        args: args.clone(),
        started: shard_log::now(),
    }))?;
    let adapter = worker.adapter.place;
    report(
        reporter,
        ShardEvent::Started {
            adapter,
            item: &item.name,
            attempt: n,
        },
    )?;
    let started = Instant::now();
    let exit = spawn(campaign, &args, &admission.env, &files)?;
    let seconds = started.elapsed().as_secs_f64();
    if let Reach::Relay(relay) = &worker.reach {
        if relay.gone() {
            return Ok(Attempted::CutShort(exit));
        }
    }
    log.write(&Line::Done(ItemDone {
        key: item.key.clone(),
        attempt: n,
        exit,
        seconds,
    }))?;
    report(
        reporter,
        ShardEvent::Finished {
            adapter,
            item: &item.name,
            attempt: n,
            exit,
            seconds,
        },
    )?;
    Ok(Attempted::Ended(exit))
}

/// Reports `event`; a reporter that cannot take it ends the worker with its error, as a
/// shard log that cannot be written does. A worker's panic while it held the reporter
/// leaves nothing half done that the others' events depend on.
fn report(reporter: &Shared, event: ShardEvent) -> Result<()> {
    let mut reporter = reporter.lock().unwrap_or_else(PoisonError::into_inner);
    reporter.emit(event.into()).map_err(CampaignError::read)
}

/// The item's arguments and the campaign's: those that reach its device, its seed, its files.
fn arguments(item: &Item, files: &ItemFiles, device: &[String], seed: Option<u64>) -> Vec<String> {
    let mut args = item.args.clone();
    let path = |p: &Path| p.display().to_string();
    args.extend(device.iter().cloned());
    args.extend(["--log".into(), path(&files.log), "--json".into()]);
    if let Some(seed) = seed {
        args.extend(["--master-seed".into(), format!("{seed:#x}")]);
    }
    match item.command {
        Command::Compare => args.extend(["--svg".into(), path(&files.svg)]),
        Command::Fences => args.extend(["--output".into(), path(&files.fixed)]),
        Command::Mutants => args.extend(["--write-env".into(), path(&files.env)]),
        Command::Run | Command::Litmus | Command::Progress => {}
    }
    args
}

fn spawn(
    campaign: &Campaign,
    args: &[String],
    env: &[(String, String)],
    files: &ItemFiles,
) -> Result<Exit> {
    let binary = &campaign.binary;
    let stdout = File::create(&files.json).map_err(|e| CampaignError::io(&files.json, e))?;
    let stderr = File::create(&files.stderr).map_err(|e| CampaignError::io(&files.stderr, e))?;
    let mut command = std::process::Command::new(binary);
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    #[cfg(target_os = "linux")]
    stop_with_the_campaign(&mut command);
    let child = command.spawn().map_err(|e| CampaignError::io(binary, e))?;
    let status = campaign
        .children
        .wait(child)
        .map_err(|e| CampaignError::io(binary, e))?;
    Ok(match status.code() {
        Some(code) => Exit::Status(code),
        None => signal(&status).map_or(Exit::NotStarted, Exit::Signal),
    })
}

/// Has the kernel send the item SIGHUP should the campaign die without passing a signal on
/// (SIGKILL, a crash): the item then stops with its summary rather than run on, unwatched,
/// in a process group of its own. SIGHUP rather than SIGTERM: the kernel sends it again as
/// each thread of the dying campaign goes, and a second SIGTERM would quit the item at once.
#[cfg(target_os = "linux")]
fn stop_with_the_campaign(command: &mut std::process::Command) {
    // SAFETY: prctl(2) is async-signal-safe, and the closure touches nothing else between
    // fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(command, || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGHUP) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(unix)]
fn signal(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal(_: &std::process::ExitStatus) -> Option<i32> {
    None
}
