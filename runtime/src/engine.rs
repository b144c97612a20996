//! An application compiled for a device, ready to run batches: recreates the device when it
//! is lost, and measures how many stress iterations match the application's own duration.

use crate::checks::Prepared;
use crate::device::{self, Gpu};
use crate::error::{Error, Result};
use crate::record::{Outcome, Record};
use crate::session::Session;
use crate::spec::{App, Outputs};
use crate::strategy::{RunParams, Settings, Strategy};
use std::time::{Duration, Instant};
use wgstress_instrument::{Instrumented, Options};

/// The result of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub params: RunParams,
    pub outcome: Outcome,
    pub record: Record,
    /// What a host check found wrong, if anything.
    pub host: Option<String>,
}

pub struct Engine {
    pub app: App,
    pub inst: Instrumented,
    pub gpu: Gpu,
    pub session: Session,
    checks: Vec<Prepared>,
    adapter: Option<String>,
    batch: usize,
    scratch_words: u32,
    pub timeout: Duration,
    /// Times the device was lost and recreated.
    pub recreated: u32,
    /// What the driver said when the device was last lost and recreated, until the caller
    /// takes it to report it.
    pub lost: Option<String>,
}

/// The stress iterations calibration times stress at.
pub const PROBE_ITERATIONS: u32 = 256;

/// Consecutive device losses after which the engine gives up.
const MAX_LOSSES: u32 = 3;

impl Engine {
    pub fn new(
        app: App,
        adapter: Option<&str>,
        batch: usize,
        scratch_words: u32,
    ) -> Result<Engine> {
        let options = Options {
            entry: app.entry.clone(),
            postcondition: app.postcondition.clone(),
            file_name: Some(app.shader_path.clone()),
        };
        app.validate()
            .map_err(|invalid| Error::Input(format!("{}: {invalid}", app.name)))?;
        let inst = wgstress_instrument::instrument_wgsl(&app.source, &options)?;
        let gpu = device::open(adapter)?;
        app.check_limits(&gpu.limits)?;
        let checks = app
            .checks
            .iter()
            .map(|c| Prepared::new(c, &app))
            .collect::<Result<Vec<_>>>()?;
        let session = Session::new(&gpu, &app, &inst, batch, scratch_words)?;
        Ok(Engine {
            app,
            inst,
            gpu,
            session,
            checks,
            adapter: adapter.map(str::to_string),
            batch,
            scratch_words,
            timeout: Duration::from_secs(60),
            recreated: 0,
            lost: None,
        })
    }

    pub fn batch_size(&self) -> usize {
        self.session.batch
    }

    fn host_check(&self, outputs: &Outputs) -> std::result::Result<(), String> {
        for check in &self.checks {
            check.verify(outputs)?;
        }
        match &self.app.host_check {
            Some(check) => check(outputs),
            None => Ok(()),
        }
    }

    /// Runs `runs`, one submission per batch.
    pub fn run(&mut self, runs: &[RunParams]) -> Result<Vec<RunResult>> {
        let mut out = Vec::with_capacity(runs.len());
        for chunk in runs.chunks(self.batch_size()) {
            out.extend(self.run_batch(chunk)?);
        }
        Ok(out)
    }

    /// Runs one batch. A lost device is recreated and the batch's runs count as lost.
    fn run_batch(&mut self, runs: &[RunParams]) -> Result<Vec<RunResult>> {
        let results = self
            .session
            .run_batch(&self.gpu, runs, self.timeout, &|o| self.host_check(o));
        match results {
            Ok(results) => {
                self.recreated = 0;
                Ok(runs
                    .iter()
                    .zip(results)
                    .map(|(params, (record, host))| RunResult {
                        params: params.clone(),
                        outcome: Outcome::classify(&record, &host),
                        record,
                        host: host.err(),
                    })
                    .collect())
            }
            Err(Error::DeviceLost(message)) if self.recreated < MAX_LOSSES => {
                self.recreated += 1;
                self.lost = Some(message);
                self.gpu = device::open(self.adapter.as_deref())?;
                self.session = Session::new(
                    &self.gpu,
                    &self.app,
                    &self.inst,
                    self.batch,
                    self.scratch_words,
                )?;
                Ok(runs
                    .iter()
                    .map(|params| RunResult {
                        params: params.clone(),
                        outcome: Outcome::DeviceLost,
                        record: Record::default(),
                        host: None,
                    })
                    .collect())
            }
            Err(e) => Err(e),
        }
    }

    /// Seconds per run of a batch of `params`, the best of three.
    fn seconds_per_run(&mut self, params: &RunParams) -> Result<f64> {
        let n = self.batch_size().min(16);
        let runs = vec![params.clone(); n];
        self.run(&runs)?; // warm-up
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            self.run(&runs)?;
            best = best.min(start.elapsed().as_secs_f64() / n as f64);
        }
        Ok(best)
    }

    /// Stress iterations per thread that make stress last `ratio` times as long as the
    /// application kernel, measured on this device: time the application alone, stress alone
    /// at a probe count, and an empty dispatch for the fixed cost of a run.
    pub fn calibrate(&mut self, settings: &Settings, ratio: f64) -> Result<u32> {
        let groups = self.session.app_groups();
        let mut probe = settings.clone();
        probe.iterations = PROBE_ITERATIONS;
        let stress = RunParams::draw(1, &probe, groups);
        let mut quiet = settings.clone();
        quiet.strategy = Strategy::None;
        let app_alone = RunParams::draw(1, &quiet, groups);
        let empty = RunParams {
            app_enabled: false,
            ..app_alone.clone()
        };
        let stress_alone = RunParams {
            app_enabled: false,
            ..stress
        };
        let t_empty = self.seconds_per_run(&empty)?;
        let t_app = (self.seconds_per_run(&app_alone)? - t_empty).max(1e-7);
        let t_stress = (self.seconds_per_run(&stress_alone)? - t_empty).max(1e-7);
        let iterations = f64::from(PROBE_ITERATIONS) * ratio * t_app / t_stress;
        Ok(iterations.clamp(8.0, 65536.0) as u32)
    }
}
