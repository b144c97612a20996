//! An application compiled for a device, ready to run batches: recreates the device when it
//! is lost, and measures how many stress iterations match the application's own duration.

use crate::app::failure::CheckFailure;
use crate::app::init::Init;
use crate::app::spec::{App, BindingKind};
use crate::error::{Result, RuntimeError};
use crate::gpu::checks::device::RunRead;
use crate::gpu::checks::Prepared;
use crate::gpu::device::{self, AdapterChoice, Gpu};
use crate::gpu::hang_timeout::HangTimeout;
use crate::gpu::params::{Pacing, Stalls};
use crate::gpu::program::Program;
use crate::gpu::session::Session;
use crate::gpu::timing::Timed;
use crate::stress::shapes::{most_iterations, MAX_CALIBRATED};
use std::time::{Duration, Instant};
use wgstress_instrument::EditedShader;
use wgstress_instrument::Manifest;
use wgstress_model::run::calibration::Calibration;
use wgstress_model::run::loop_limit::LoopLimit;
use wgstress_model::run::results_block::{Record, RunOutcome};
use wgstress_model::stress::params::{
    RunParams, Scheduling, Settings, StressPlacement, StressShape,
};
use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::strategy::Strategy;

/// The result of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub params: RunParams,
    pub outcome: RunOutcome,
    pub record: Record,
    /// What a host check found wrong, if anything.
    pub host: Option<CheckFailure>,
    /// Where the run's first attempt was suspected of hanging (the detector saw a stall, or
    /// the driver cut a loop), what running it again showed.
    pub rerun: Option<Rerun>,
}

/// A suspected hang run again without the detector's verdict (`Engine::confirm`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rerun {
    /// What the first attempt showed.
    pub first: Suspect,
    /// Attempts after the first.
    pub attempts: u32,
    /// Wall-clock seconds from the first of them to the end of the last.
    pub seconds: f64,
    /// Whether an attempt's wait ended by itself: a slow wait (the device did not give it the
    /// time it needed: on a CPU driver, a thread the operating system did not run), not a
    /// failure of the application; `outcome` and `record` are then that attempt's. Else the
    /// suspicion stands: a hang, or a loop the driver cut however long it was given.
    pub ended: bool,
    /// Whether these attempts were another run's, an earlier one of the same configuration
    /// that waited at the same loops: its wait, run again, did not end, nor is this one run.
    pub earlier: bool,
}

/// A suspicion confirmed: what it was, and the attempts that confirmed it.
#[derive(Clone, Debug)]
struct Confirmed {
    key: SuspectKey,
    rerun: Rerun,
}

/// What tells one suspected wait from another: the kind, the loops its waits were in (a
/// stall) or the loop the driver ended (a cut), and the schedule that ran it.
type SuspectKey = (Suspect, Vec<u32>, Schedule, u32);

impl Confirmed {
    fn key(r: &RunResult, first: Suspect) -> SuspectKey {
        let loops = match first {
            Suspect::Stall => {
                let mut loops: Vec<u32> = r.record.scheduler.waits().iter().map(|w| w.1).collect();
                loops.sort_unstable();
                loops.dedup();
                loops
            }
            Suspect::Cut => vec![r.record.cut.site],
        };
        (first, loops, r.params.schedule, r.params.occupancy)
    }
}

/// Why a run's first attempt was run again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suspect {
    /// The detector saw a wait without progress anywhere while nothing was held.
    Stall,
    /// The driver ended a loop (llvmpipe's 65,535 iterations).
    Cut,
}

/// How long a suspected hang's wait is given, run again without the detector's verdict,
/// before the host calls it a hang: a wait that is still not over after this much wall time,
/// with nothing else getting anywhere, is one no scheduler delay explains. A quarter of the
/// hang timeout where that is shorter.
pub(crate) const CONFIRM_SPAN: Duration = Duration::from_millis(500);

/// Attempts at most to confirm a suspected hang; at least two, so that one attempt a burst
/// of the machine's load slowed does not decide it.
const CONFIRM_ATTEMPTS: u32 = 24;
const CONFIRM_MIN_ATTEMPTS: u32 = 2;

/// The pause between attempts on a device whose driver ends long loops (llvmpipe): the
/// operating system then runs the threads it had not, and the next attempt meets another
/// moment of the machine's load.
const CONFIRM_PAUSE: Duration = Duration::from_millis(20);

/// How long a loop the driver cut is given instead of `CONFIRM_SPAN`, its attempts spread by
/// pauses that double from `CONFIRM_PAUSE` up to `CUT_PAUSE_MAX`: a wait the driver cut ends
/// only once the thread it waits on runs, which a machine whose cores are all busy may not
/// let happen for a while, and a cut is refused (no run of its batch counts), so it is given
/// the longer chance. A quarter of the hang timeout where that is shorter.
const CUT_SPAN: Duration = Duration::from_secs(2);
const CUT_PAUSE_MAX: Duration = Duration::from_millis(320);

/// What a session dispatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The instrumented shaders, with stress.
    Instrumented,
    /// The user's shaders exactly as given (no stress, watchdog or assertion hooks), checked
    /// by the same postcondition and host checks: whether a failure is the application's own.
    Raw,
}

/// How an engine is built and runs: everything but the application. The one way to make an
/// engine is `Engine::new(app, &config)`; nothing is set after it is built.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// The adapter to open (`device::pick`); the best one by default.
    pub adapter: AdapterChoice,
    /// Runs per submission at most: the session's buffers hold this many.
    pub batch: usize,
    /// Words of the stress scratchpad.
    pub scratch_words: u32,
    /// How long a batch may run before it counts as hung.
    pub timeout: HangTimeout,
    /// Where the watchdog's loop limit starts.
    pub loop_limit: LoopStart,
    pub mode: Mode,
    /// Whether runs may hold a workgroup back (a progress model other than fair, an occupancy
    /// bound): the shaders then carry the parking code, which costs some applications much of
    /// their speed (`wgstress_instrument::InstrumentOptions::parking`).
    pub parking: bool,
    /// Whether runs may follow a script (`RunParams::script`; with `parking` only):
    /// `wgstress_instrument::InstrumentOptions::scripting`.
    pub scripting: bool,
    /// Whether runs may hold a workgroup after each of its writes (`RunParams::park_place`;
    /// with `parking` only): `wgstress_instrument::InstrumentOptions::hold_writes`.
    pub hold_writes: bool,
    /// Whether every declared check is verified on the host, its binding read back in full
    /// after every run, even those a kernel could compare on the device: the path checks
    /// took before they ran where the data is, kept for tests that compare both.
    pub host_checks: bool,
}

/// Where an engine's watchdog loop limit starts.
#[derive(Clone, Debug)]
pub enum LoopStart {
    /// Learned from this engine's passing runs, from the adapter's ceiling.
    Learn,
    /// Fixed by the user (`--watchdog-limit`).
    Fixed(u32),
    /// Learning on from what earlier runs of the same application taught: a fresh engine
    /// would start at the ceiling, where stalled runs of a slow lock convoy outlast the hang
    /// timeout.
    From(LoopLimit),
}

impl EngineConfig {
    /// The best adapter, instrumented runs that may park (every progress model), a learned
    /// loop limit and the default timeout.
    pub fn new(batch: usize, scratch_words: u32) -> EngineConfig {
        EngineConfig {
            adapter: AdapterChoice::default(),
            batch,
            scratch_words,
            timeout: HangTimeout::Default,
            loop_limit: LoopStart::Learn,
            mode: Mode::Instrumented,
            parking: true,
            scripting: false,
            hold_writes: true,
            host_checks: false,
        }
    }

    /// Whether the shaders follow scripts: scripting is part of the parking code.
    pub(crate) fn scripts(&self) -> bool {
        self.parking && self.scripting
    }
}

/// An application compiled for a device, with what its runs have taught so far.
pub struct Engine {
    app: App,
    program: Program,
    gpu: Gpu,
    pub(crate) session: Session,
    checks: Vec<Prepared>,
    config: EngineConfig,
    /// The hang timeout now: the config's, grown by calibration where it may grow.
    timeout: Duration,
    /// Times the device was lost and recreated.
    recreated: u32,
    /// The watchdog's loop limit, learned from this application's passing runs.
    pub(crate) loop_limit: LoopLimit,
    /// What the driver said when the device was last lost and recreated, until the caller
    /// takes it to report it.
    pub(crate) lost: Option<String>,
    /// Time spent confirming suspected hangs since the caller last took it: a batch's cost,
    /// not its runs', which pacing keeps apart.
    pub(crate) confirming: Duration,
    /// The suspicions confirmed since the engine's contents last changed.
    confirmed: Vec<Confirmed>,
    /// Whether the pipelines have run once since they were built (`prime`).
    primed: bool,
}

/// Stress iterations when calibration saw no passing run of the application: a few hundred
/// expose as many bugs as thousands, at many times the runs per second
/// (bench/results/constants.md).
pub(crate) const FALLBACK_ITERATIONS: u32 = 512;

/// The stress iterations calibration times stress at.
pub(crate) const PROBE_ITERATIONS: u32 = 256;

/// How long a batch without the application may take (`Engine::run_batch`): the first
/// dispatch of an engine's pipelines compiles them on a driver whose shader cache is cold
/// (`Engine::prime`), and stress alone may be slow, but neither can hang.
const COMPILE_WAIT: Duration = Duration::from_secs(300);

/// How long, under the default hang timeout, calibration's warm-up waits for the
/// application's first instrumented run (`Engine::warm_up`): nothing is known of its time
/// yet, and a slow kernel is not a hang. The timeout is then grown from that run, as
/// calibration grows it from a stressed one.
const FIRST_RUN_WAIT: Duration = Duration::from_secs(120);

/// Consecutive device losses after which the engine gives up.
const MAX_LOSSES: u32 = 3;

impl Engine {
    /// Validates `app`, instruments its shaders, opens the adapter `config` names and builds
    /// the application's pipelines and buffers there.
    pub fn new(app: App, config: &EngineConfig) -> Result<Engine> {
        Engine::on(app, config, None)
    }

    /// `new`, on the device `gpu` where one is given that has not been lost and has the
    /// features the shaders need; else on a device of its own. A fence search builds an
    /// engine for every fix it tries: on one device, the driver is not asked for dozens of
    /// them in turn (a driver asked so ends a search partway with "no GPU adapter found").
    pub fn on(app: App, config: &EngineConfig, gpu: Option<&Gpu>) -> Result<Engine> {
        Engine::edited(app, &[], config, gpu)
    }

    /// `on`, with the dispatches of each of `edited` running that module (a fence search's
    /// trial) instead of parsing the app's text.
    pub fn edited(
        app: App,
        edited: &[EditedShader],
        config: &EngineConfig,
        gpu: Option<&Gpu>,
    ) -> Result<Engine> {
        app.validate()
            .map_err(|invalid| RuntimeError::Input(format!("{}: {invalid}", app.name)))?;
        let build = |start_order: bool| {
            Program::build(
                &app,
                config.parking,
                config.scripts(),
                config.parking && config.hold_writes,
                start_order,
                edited,
            )
        };
        let program = build(false)?;
        let gpu = match gpu {
            Some(gpu) if !gpu.is_lost() && gpu.features().contains(program.features) => gpu.clone(),
            _ => device::open_with(&config.adapter, program.features, &app.name)?,
        };
        // A device that starts workgroups out of id order runs holding shaders that give ids
        // in start order; which device it is is known only once it is open.
        let program = if config.parking && Pacing::for_adapter(&gpu.info.name).in_order {
            build(true)?
        } else {
            program
        };
        crate::gpu::limits::check_sizes(&app, &gpu.limits)?;
        crate::gpu::limits::check(&app, &program, &gpu.limits)?;
        let checks = crate::gpu::checks::prepare(&app, &gpu)?;
        let session = Session::new(
            &gpu,
            &app,
            &program,
            config.mode == Mode::Raw,
            config.batch,
            config.scratch_words,
            &checks,
            config.host_checks,
        )?;
        let loop_limit = match &config.loop_limit {
            LoopStart::Learn => LoopLimit::learned(LoopLimit::ceiling_for(&gpu.info.name)),
            LoopStart::Fixed(limit) => LoopLimit::fixed(*limit),
            LoopStart::From(learned) => learned.clone(),
        };
        Ok(Engine {
            app,
            program,
            gpu,
            session,
            checks,
            config: config.clone(),
            timeout: config.timeout.initial(),
            recreated: 0,
            loop_limit,
            lost: None,
            confirming: Duration::ZERO,
            confirmed: Vec::new(),
            primed: false,
        })
    }

    /// Sets the initial contents of the storage binding at `(group, binding)` for the runs
    /// that follow, without building anything again: one engine runs many inputs of one
    /// shader (the progress suite's tests, each a program for one interpreter).
    pub fn set_contents(&mut self, (group, binding): (u32, u32), words: Vec<u32>) -> Result<()> {
        let slot = self
            .app
            .bindings
            .iter_mut()
            .find(|b| (b.group, b.binding) == (group, binding))
            .filter(|b| b.kind == BindingKind::Storage && b.words as usize == words.len());
        let Some(slot) = slot else {
            return Err(RuntimeError::Input(format!(
                "{}: no storage binding @group({group}) @binding({binding}) of {} words",
                self.app.name,
                words.len()
            )));
        };
        if !self
            .session
            .set_pristine(&self.gpu, (group, binding), &words)?
        {
            return Err(RuntimeError::Input(format!(
                "{}: @group({group}) @binding({binding}) is not a buffer the shaders use",
                self.app.name
            )));
        }
        slot.init = Init::Words { words };
        // Another program for the same shader: what its waits did says nothing of these.
        self.confirmed.clear();
        // A check may be computed from the initial contents.
        self.checks = crate::gpu::checks::prepare(&self.app, &self.gpu)?;
        self.session.set_expected(&self.gpu, &self.checks)?;
        Ok(())
    }

    pub fn app(&self) -> &App {
        &self.app
    }

    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    pub(crate) fn mode(&self) -> Mode {
        self.config.mode
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The watchdog's loop limit and what passing runs taught it.
    pub(crate) fn loop_limit(&self) -> &LoopLimit {
        &self.loop_limit
    }

    /// Application workgroups per run (the dispatch's, or the pipeline's largest).
    pub fn app_groups(&self) -> u32 {
        self.session.app_groups()
    }

    /// Checks `settings` against the device's limits before any run uses them.
    pub(crate) fn check(&self, settings: &Settings) -> Result<()> {
        let scheduling = &settings.scheduling;
        if scheduling.holds() && !self.config.parking && self.config.mode == Mode::Instrumented {
            let what = match scheduling.occupancy {
                Some(n) => format!("--occupancy {n}"),
                None => format!("--schedule {}", scheduling.schedule.name()),
            };
            return Err(RuntimeError::Input(format!(
                "{}: runs under {what} need shaders that can hold a workgroup back, and this \
                 engine was built without (EngineConfig::parking)",
                self.app.name,
            )));
        }
        self.session.check(settings)
    }

    /// The manifest of each results block of a run (a record's `dispatch` indexes it).
    pub fn manifests(&self) -> Vec<&Manifest> {
        self.program.manifests()
    }

    /// Bytes of device memory the engine's buffers hold.
    pub(crate) fn bytes(&self) -> u64 {
        self.session.bytes()
    }

    pub(crate) fn batch_size(&self) -> usize {
        self.session.batch()
    }

    /// Bytes a batch of `runs` runs reads back from the device: the runs' results blocks,
    /// the bindings the host checks read, and the result blocks of the checks compared on
    /// the device.
    pub fn read_back_bytes(&self, runs: usize) -> u64 {
        self.session.read_bytes(runs)
    }

    /// The verdict of a run's checks, in the order the spec declares them (the first that
    /// fails is the run's failure), each from its result block where it was compared on the
    /// device, else from its binding read back; then the application's own host check.
    fn host_check(&self, read: &RunRead) -> std::result::Result<(), CheckFailure> {
        for (index, check) in self.checks.iter().enumerate() {
            match read.block(index) {
                Some(block) => check.verify_block(block)?,
                None => check.verify(&read.outputs)?,
            }
        }
        match &self.app.host_check {
            Some(check) => check(&read.outputs),
            None => Ok(()),
        }
    }

    /// Runs `runs`, one submission per batch; `confirming` is then the time these spent
    /// confirming suspected hangs.
    pub fn run(&mut self, runs: &[RunParams]) -> Result<Vec<RunResult>> {
        self.confirming = Duration::ZERO;
        if !self.config.scripts() && runs.iter().any(|r| r.script.is_some()) {
            return Err(RuntimeError::Input(format!(
                "{}: runs that follow a script need shaders built for it, and this engine was \
                 built without (EngineConfig::scripting)",
                self.app.name
            )));
        }
        self.prime()?;
        let mut out = Vec::with_capacity(runs.len());
        for chunk in runs.chunks(self.batch_size()) {
            out.extend(self.run_batch(chunk)?);
        }
        Ok(out)
    }

    /// Runs each pipeline once before the first run after it was built, waiting for it at
    /// most `COMPILE_WAIT` rather than the hang timeout: a driver whose shader cache is cold
    /// compiles a pipeline at its first dispatch (llvmpipe does: seconds for an instrumented
    /// shader, many times that on a loaded machine), which is start-up, not a run. The run
    /// has neither the application nor stress in it, so nothing in it can hang. A raw engine
    /// runs the application as is, which can: its first batch compiles.
    fn prime(&mut self) -> Result<()> {
        if self.primed || self.config.mode == Mode::Raw {
            return Ok(());
        }
        let idle = Settings {
            strategy: Strategy::None,
            shuffle: false,
            shape: StressShape::default(),
            iterations: 0,
            cache_words: 0,
            watchdog_limit: self.loop_limit.limit(),
            stress_fraction: (0.0, 0.0),
            placement: StressPlacement::default(),
            buffer_shuffle: false,
            scheduling: Scheduling::default(),
        };
        let empty = RunParams {
            app_enabled: false,
            ..RunParams::draw(0, &idle, self.session.app_groups())
        };
        // A lost device recreated in this batch leaves `primed` false again. The run is
        // waited for as long as compiling may take (`run_batch`: it has no application).
        self.primed = true;
        self.run_batch(std::slice::from_ref(&empty)).map(|_| ())
    }

    /// A batch where the driver ended a loop is no result of the application's: an error
    /// naming the loop. Not where the scheduler found the run starved: the held workgroups
    /// were released then, and a waiter that spun on until the driver's limit while the
    /// released one's thread had not yet run (llvmpipe) came after the verdict, which stands
    /// (`RunOutcome` ranks starvation first for the same reason). `cut` are the records of
    /// the runs whose loops the driver still cut when they were run again.
    fn refuse_cut(&self, cut: &[Record]) -> Result<()> {
        let Some(first) = cut.first() else {
            return Ok(());
        };
        let manifests = self.program.manifests();
        let manifest = manifests[(first.dispatch as usize).min(manifests.len() - 1)];
        Err(RuntimeError::DriverCut {
            at: manifest.loop_at(first.cut.site),
            runs: cut.len(),
        })
    }

    /// Runs one batch, its suspected hangs confirmed or cleared (`confirm`). A lost device,
    /// in the batch or in a confirmation, is recreated and the batch's runs count as lost.
    fn run_batch(&mut self, runs: &[RunParams]) -> Result<Vec<RunResult>> {
        // A batch without the application cannot hang: an empty dispatch or stress alone,
        // whose loops are bounded (calibration's stress probe is its slowest), waited for as
        // long as a cold driver's compiling of it.
        let wait = if runs.iter().any(|r| r.app_enabled) {
            self.timeout
        } else {
            self.timeout.max(COMPILE_WAIT)
        };
        let results = self
            .session
            .run_batch(&self.gpu, runs, Stalls::Judged, wait, &|o| {
                self.host_check(o)
            })
            .and_then(|results| {
                let mut out: Vec<RunResult> = runs
                    .iter()
                    .zip(results)
                    .map(|(params, (record, host))| RunResult {
                        params: params.clone(),
                        outcome: crate::gpu::decode::classify(&record, &host),
                        record,
                        host: host.err(),
                        rerun: None,
                    })
                    .collect();
                let cut = self.confirm(&mut out)?;
                self.refuse_cut(&cut)?;
                Ok(out)
            });
        match results {
            Ok(out) => {
                self.recreated = 0;
                Ok(out)
            }
            Err(RuntimeError::DeviceLost(message)) if self.recreated < MAX_LOSSES => {
                self.recreated += 1;
                self.lost = Some(message);
                self.primed = false;
                self.gpu =
                    device::reopen(&self.config.adapter, self.program.features, &self.app.name)?;
                self.session = Session::new(
                    &self.gpu,
                    &self.app,
                    &self.program,
                    self.config.mode == Mode::Raw,
                    self.config.batch,
                    self.config.scratch_words,
                    &self.checks,
                    self.config.host_checks,
                )?;
                Ok(runs
                    .iter()
                    .map(|params| RunResult {
                        params: params.clone(),
                        outcome: RunOutcome::DeviceLost,
                        record: Record::default(),
                        host: None,
                        rerun: None,
                    })
                    .collect())
            }
            Err(e) => Err(e),
        }
    }

    /// A hang is a fact about time, not about iterations: the in-shader detector's verdict
    /// (a wait with no progress anywhere for its window, nothing held) and a loop the driver
    /// ended are suspicions, which this confirms or clears. The suspected runs are run again,
    /// with their own parameters, their stalls judged by the clock (`Stalls::Timed`): each
    /// wait lasts until it ends by itself, the watchdog's cap ends it or the driver does. A
    /// run whose wait then ends by itself takes that attempt's outcome and is marked a slow
    /// wait. On a device whose loops only the cap ends, a wait the cap ended sooner than
    /// `CONFIRM_SPAN` is run again with twice the cap, until one attempt lets it run that
    /// long; where the driver ended it (llvmpipe's loops end after 65,535 iterations, about
    /// a hundredth of a second), the attempts are spread over that span, or over `CUT_SPAN`
    /// where the first attempt was the driver's cut. What is left is a
    /// hang (as the detector said) or a loop the driver cut however long it was given: the
    /// cut ones' records are returned.
    ///
    /// Suspects go in groups sized so that an attempt lasts a small share of the hang timeout
    /// (a suspect run again spins its waits to the end: on llvmpipe each of its workgroups up
    /// to its budget). Once one suspect is confirmed, the others of the same schedule waiting
    /// at the same loops (or cut at the same loop) are too, in this batch and the engine's
    /// later ones until its contents change: the same wait, run again, did not end.
    fn confirm(&mut self, results: &mut [RunResult]) -> Result<Vec<Record>> {
        let suspect = |r: &RunResult| {
            if r.record.scheduler.starved {
                None
            } else if r.record.cut.count > 0 {
                Some(Suspect::Cut)
            } else if r.outcome == RunOutcome::Hang {
                Some(Suspect::Stall)
            } else {
                None
            }
        };
        let mut pending: std::collections::VecDeque<(usize, Suspect)> = results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| suspect(r).map(|s| (i, s)))
            .collect();
        if pending.is_empty() {
            return Ok(Vec::new());
        }
        let started = Instant::now();
        let budget = self.timeout.as_secs_f64() / 8.0;
        let mut held: Vec<usize> = Vec::new();
        let mut chunk = 1usize;
        let outcome = loop {
            let mut group = Vec::new();
            while group.len() < chunk {
                let Some((i, first)) = pending.pop_front() else {
                    break;
                };
                let key = Confirmed::key(&results[i], first);
                if let Some(by) = self.confirmed.iter().find(|c| c.key == key) {
                    results[i].rerun = Some(Rerun {
                        first,
                        earlier: true,
                        ..by.rerun
                    });
                    held.push(i);
                } else {
                    group.push((i, first));
                }
            }
            if group.is_empty() {
                if pending.is_empty() {
                    break Ok(());
                }
                continue;
            }
            let attempt = Instant::now();
            let (attempts, longest) = match self.confirm_group(results, &group) {
                Ok(done) => done,
                Err(e) => break Err(e),
            };
            let per = attempt.elapsed().as_secs_f64() / f64::from(attempts.max(1));
            for &(i, first) in &group {
                if let Some(rerun) = results[i].rerun.filter(|r| !r.ended) {
                    self.confirmed.push(Confirmed {
                        key: Confirmed::key(&results[i], first),
                        rerun,
                    });
                    held.push(i);
                }
            }
            // The next group: as many suspects as one attempt of this one's pace fits.
            let per_suspect = longest.max(per) / group.len() as f64;
            chunk = ((budget / per_suspect.max(1e-6)) as usize).clamp(1, self.batch_size());
        };
        self.confirming += started.elapsed();
        outcome?;
        Ok(held
            .into_iter()
            .filter(|&i| results[i].rerun.is_some_and(|r| r.first == Suspect::Cut))
            .map(|i| results[i].record)
            .collect())
    }

    /// Runs `group`'s suspects again until each ended by itself or was confirmed (`confirm`);
    /// sets each one's `rerun`. Returns the attempts made and the longest attempt's seconds.
    fn confirm_group(
        &mut self,
        results: &mut [RunResult],
        group: &[(usize, Suspect)],
    ) -> Result<(u32, f64)> {
        let cuts = group.iter().any(|&(_, first)| first == Suspect::Cut);
        let span = if cuts { CUT_SPAN } else { CONFIRM_SPAN }.min(self.timeout / 4);
        let mut pause = CONFIRM_PAUSE;
        let started = Instant::now();
        let mut open = group.to_vec();
        let mut cap_scale = 1u32;
        let mut attempts = 0;
        let mut longest = 0f64;
        let mut capped = false;
        let done = |rerun: &mut Option<Rerun>, first, attempts, ended| {
            *rerun = Some(Rerun {
                first,
                attempts,
                seconds: started.elapsed().as_secs_f64(),
                ended,
                earlier: false,
            });
        };
        while !open.is_empty() && attempts < CONFIRM_ATTEMPTS {
            // Spread attempts (the driver's bound) stop at the span; a wait the cap ended
            // too soon goes on until one attempt lasted it.
            if attempts >= CONFIRM_MIN_ATTEMPTS && started.elapsed() >= span && !capped {
                break;
            }
            let runs: Vec<RunParams> = open
                .iter()
                .map(|&(i, _)| results[i].params.clone())
                .collect();
            let attempt = Instant::now();
            let again = self.session.run_batch(
                &self.gpu,
                &runs,
                Stalls::Timed { cap_scale },
                self.timeout,
                &|o| self.host_check(o),
            )?;
            attempts += 1;
            let took = attempt.elapsed();
            longest = longest.max(took.as_secs_f64());
            capped = false;
            let mut driver = false;
            let mut left = Vec::new();
            for (&(i, first), (record, host)) in open.iter().zip(again) {
                let ended = record.scheduler.starved
                    || (record.cut.count == 0
                        && record.watchdog.count == 0
                        && !record.scheduler.hung);
                if ended {
                    results[i] = RunResult {
                        params: results[i].params.clone(),
                        outcome: crate::gpu::decode::classify(&record, &host),
                        record,
                        host: host.err(),
                        rerun: None,
                    };
                    done(&mut results[i].rerun, first, attempts, true);
                } else if record.cut.count > 0 || record.scheduler.hung {
                    // The driver bounded the wait (its cut, or the detector's floor below it).
                    driver = true;
                    left.push((i, first));
                } else if took < span {
                    // The cap ended it sooner than the span: not yet a fact about time.
                    capped = true;
                    left.push((i, first));
                } else {
                    // The cap ended a wait that had the whole span: a hang, confirmed.
                    done(&mut results[i].rerun, first, attempts, false);
                }
            }
            open = left;
            if capped {
                cap_scale = cap_scale.saturating_mul(2);
            }
            if driver && !open.is_empty() {
                std::thread::sleep(pause);
                if cuts {
                    pause = (pause * 2).min(CUT_PAUSE_MAX);
                }
            }
        }
        for &(i, first) in &open {
            done(&mut results[i].rerun, first, attempts, false);
        }
        Ok((attempts, longest))
    }

    /// Seconds per passing run of runs made by `make(seed)`, the best batch of up to four
    /// (1, 2, 4, then 8 runs, after a warm-up run), measured before `until`. Batches with a
    /// failing run do not count: a run that spins to the watchdog limit says nothing about the
    /// application's time. Passing runs of the application teach the loop limit.
    ///
    /// Each batch after the first measured one holds only the runs that, at the time a run
    /// took so far, end before `until` and within a quarter of the hang timeout: a slow but
    /// correct kernel (0.6 s a run on lavapipe) outlasted a 3 s timeout in a batch of 8.
    /// One measured run follows the warm-up even past `until`, and one slow run does not end
    /// the measuring (`Timed::next_batch`).
    fn passing_run_time(
        &mut self,
        make: &dyn Fn(u64) -> RunParams,
        until: Instant,
    ) -> Result<Timed> {
        let mut timed = Timed::default();
        let mut seed = 1;
        let quarter = self.timeout.as_secs_f64() / 4.0;
        for (round, n) in [1u64, 1, 2, 4, 8].into_iter().enumerate() {
            let left = until
                .saturating_duration_since(Instant::now())
                .as_secs_f64();
            let Some(n) = timed.next_batch(round, n, left, quarter) else {
                break;
            };
            let runs: Vec<RunParams> = (seed..seed + n)
                .map(|s| RunParams {
                    watchdog_limit: self.loop_limit.limit(),
                    ..make(s)
                })
                .collect();
            seed += n;
            let start = Instant::now();
            let results = self.run(&runs)?;
            let per_run = start
                .elapsed()
                .saturating_sub(self.confirming)
                .as_secs_f64()
                / n as f64;
            for r in results.iter().filter(|r| r.params.app_enabled) {
                if r.outcome == RunOutcome::Pass {
                    self.loop_limit.observe_pass(r.record.max_trips);
                }
            }
            // Runs without the application check nothing of it: only their time counts.
            let passed = |r: &RunResult| !r.params.app_enabled || r.outcome == RunOutcome::Pass;
            timed.record(round, per_run, results.iter().all(passed));
        }
        Ok(timed)
    }

    /// Stress iterations per thread that make stress last `ratio` times as long as the
    /// application kernel, measured on this device within `share`: time an empty dispatch
    /// (the fixed cost of a run), the application alone and stress alone at a probe count.
    /// An error of the runs (a hang, a lost device) ends calibration with the default count
    /// and says why, as the run loop does: the caller's summary reports it.
    ///
    /// The pipelines are warmed first, untimed: a driver whose shader cache is cold compiles
    /// at the first dispatch (hundreds of milliseconds on llvmpipe), which is start-up, not
    /// the application's time, and would leave the runs of a short budget sized for it.
    pub(crate) fn calibrate(
        &mut self,
        settings: &Settings,
        ratio: f64,
        share: Duration,
    ) -> Result<Calibration> {
        // The warm-up is calibration's too: a stop in it says how long it waited.
        let waited = Instant::now();
        let (start, measured) = match self.warm_up(settings) {
            Ok(()) => {
                let start = Instant::now();
                (start, self.measure_iterations(settings, ratio, share))
            }
            Err(e) => (Instant::now(), Err(e)),
        };
        match measured {
            Ok((iterations, app_seconds)) => Ok(Calibration {
                iterations,
                app_seconds,
                seconds: start.elapsed().as_secs_f64(),
                timeout_seconds: (self.timeout > self.config.timeout.initial())
                    .then_some(self.timeout.as_secs_f64()),
                aborted: None,
            }),
            Err(e @ (RuntimeError::Hang(_) | RuntimeError::DeviceLost(_))) => Ok(Calibration {
                iterations: FALLBACK_ITERATIONS,
                app_seconds: None,
                seconds: waited.elapsed().as_secs_f64(),
                timeout_seconds: None,
                aborted: Some(e.to_string()),
            }),
            Err(e) => Err(e),
        }
    }

    /// One throwaway run of each kind calibration times (the application alone, an empty
    /// dispatch, stress alone), each in a batch of its own, so that every pipeline and its first dispatch are compiled
    /// before a budget's time starts: a driver whose shader cache is cold compiles at the
    /// first dispatch (seconds on llvmpipe).
    pub fn warm(&mut self, settings: &Settings) -> Result<()> {
        self.warm_up(settings)
    }

    fn warm_up(&mut self, settings: &Settings) -> Result<()> {
        let groups = self.session.app_groups();
        let mut quiet = settings.clone();
        quiet.strategy = Strategy::None;
        // Stress alone compiles its pipeline in one iteration: how many it takes is a value
        // in the run's parameters, and an uncalibrated count may outlast the timeout alone.
        let mut stress = settings.clone();
        stress.iterations = stress.iterations.min(1);
        let limit = self.loop_limit.limit();
        let runs = [
            RunParams::draw(0, &quiet, groups),
            RunParams {
                app_enabled: false,
                ..RunParams::draw(0, &quiet, groups)
            },
            RunParams {
                app_enabled: false,
                ..RunParams::draw(0, &stress, groups)
            },
        ]
        .map(|r| RunParams {
            watchdog_limit: limit,
            ..r
        });
        // Each run a batch of its own: nothing is known yet of an instrumented run's time (a
        // raw run says little of it: a scan's instrumented run took several times its raw
        // one, and three in one batch outlasted the hang timeout where each alone did not),
        // and only a single run longer than the timeout is a hang. Under the default timeout
        // the application's run may take `FIRST_RUN_WAIT`, and the timeout grows from its
        // time (a look-back scan whose workgroups spin on each other across llvmpipe's
        // threads outlasted the default in its first run); the pipelines are compiled first,
        // so that their compiling is not taken for the run's time.
        self.prime()?;
        let [app, rest @ ..] = runs;
        if self.config.timeout == HangTimeout::Default {
            let timeout = self.timeout;
            self.timeout = timeout.max(FIRST_RUN_WAIT);
            let started = Instant::now();
            let ran = self.run(std::slice::from_ref(&app));
            self.timeout = self
                .config
                .timeout
                .calibrated(started.elapsed())
                .max(timeout);
            ran?;
        } else {
            self.run(std::slice::from_ref(&app))?;
        }
        for run in rest {
            self.run(std::slice::from_ref(&run))?;
        }
        Ok(())
    }

    /// Calibration's measurements: the iterations, and the application's time alone.
    fn measure_iterations(
        &mut self,
        settings: &Settings,
        ratio: f64,
        share: Duration,
    ) -> Result<(u32, Option<f64>)> {
        let start = Instant::now();
        let until = start + share;
        let groups = self.session.app_groups();
        let mut probe = settings.clone();
        probe.iterations = PROBE_ITERATIONS;
        let mut quiet = settings.clone();
        quiet.strategy = Strategy::None;
        // Each step gets an equal share of what is left, the application alone the most.
        let step =
            |parts: u32| Instant::now() + until.saturating_duration_since(Instant::now()) / parts;
        let app_timed = self.passing_run_time(&|s| RunParams::draw(s, &quiet, groups), step(2))?;
        let t_app = app_timed.best;
        let t_empty = self
            .passing_run_time(
                &|s| RunParams {
                    app_enabled: false,
                    ..RunParams::draw(s, &quiet, groups)
                },
                step(2),
            )?
            .best;
        let t_stress = self
            .passing_run_time(
                &|s| RunParams {
                    app_enabled: false,
                    ..RunParams::draw(s, &probe, groups)
                },
                until,
            )?
            .best;
        let iterations = match (t_app, t_empty, t_stress) {
            (Some(app), Some(empty), Some(stress)) => {
                let app = (app - empty).max(1e-7);
                let stress = (stress - empty).max(1e-7);
                (f64::from(PROBE_ITERATIONS) * ratio * app / stress)
                    .clamp(8.0, f64::from(MAX_CALIBRATED)) as u32
            }
            _ => FALLBACK_ITERATIONS,
        };
        // The longest stressed run: the application's longest time alone and that of the
        // most stress an arm runs beyond the empty dispatch, which on a device that shares
        // its threads between them (llvmpipe) add up. The longest, not the best: runs of an
        // application whose workgroups spin on each other vary, and the timeout is for all.
        if let (Some(app), Some(empty), Some(stress)) = (t_app, t_empty, t_stress) {
            let app = app_timed.longest.map_or(app, |longest| longest.max(app));
            let stress = (stress - empty).max(0.0) * f64::from(most_iterations(iterations))
                / f64::from(PROBE_ITERATIONS);
            self.timeout = self
                .config
                .timeout
                .calibrated(Duration::from_secs_f64(app + stress));
        }
        Ok((iterations, t_app))
    }
}
