//! `wgstress progress APP`: the application under each progress model (fair, OBE, HSA, LOBE,
//! unfair: Table 1 of the progress-models seed) and under occupancy bounds of 1, 2, 4, ...
//! workgroups, each for the same budget; per model whether it terminates or starves, the wait
//! that starves and the run that replays it; the weakest model it needs.

use crate::fanout::Fanout;
use crate::notes::{emit, Notes};
use crate::options::{
    AppOptions, BudgetOptions, LogOptions, ProgressRunOptions, SessionOptions, SizeArg,
    StressOptions, VariantArg,
};
use crate::present::bar::Progress;
use crate::session::SessionPlan;
use crate::status::Status;
use anyhow::Result;
use std::time::Duration;
use wgstress_log::{JsonLog, ProgressAppSummary};
use wgstress_model::run::progress_verdict::{
    needs, ModelResult, ProgressReport, ProgressVerdict, MIN_RUNS,
};
use wgstress_model::run::summary::RunSummary;
use wgstress_model::stress::params::Scheduling;
use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::strategy::Strategy;
use wgstress_runtime::error::RuntimeError;
use wgstress_runtime::run::runner::{self, RunConfig};

/// The options of `progress APP` that the litmus tests' modes do not take.
#[derive(clap::Args)]
pub struct AppArgs {
    /// Which variant of a bundled application [default: fixed]
    #[arg(long, value_enum)]
    variant: Option<VariantArg>,
    /// Problem size of a bundled application [default: small]
    #[arg(long, value_enum)]
    size: Option<SizeArg>,
    /// The application's @compute entry point, where the shader has several
    #[arg(long)]
    entry: Option<String>,
    /// A @compute entry point that checks the results on the GPU
    #[arg(long)]
    postcondition: Option<String>,
    /// With APP: runs under each model and occupancy bound [default: 5 seconds of runs when
    /// neither --runs nor --time is given]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    runs: Option<u64>,
    /// With APP: seconds of runs under each model and occupancy bound
    #[arg(long, value_parser = crate::options::seconds, allow_negative_numbers = true)]
    time: Option<Duration>,
    /// With APP: stop a model's runs at this many failing runs (a starved run decides a
    /// model); the runs of the batch after the last of them are not counted
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    until_failures: Option<u64>,
    /// With APP: runs per GPU submission
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    batch: u32,
    /// With APP: seed from which every run's seed derives (random when left out)
    #[arg(long, value_parser = crate::options::seed)]
    master_seed: Option<u64>,
    /// With APP: memory stress beside the application (none: the scheduler alone)
    #[arg(long, value_parser = crate::options::strategies(), default_value = "none")]
    strategy: Strategy,
    /// With APP: the progress models to run under, comma-separated
    #[arg(
        long,
        value_parser = crate::options::schedules(),
        value_delimiter = ',',
        default_value = "fair,obe,hsa,lobe,unfair"
    )]
    models: Vec<Schedule>,
    /// With APP: skip the occupancy bounds (1, 2, 4, ... workgroups at once, under the fair
    /// model)
    #[arg(long)]
    no_occupancy: bool,
    /// With APP: shuffle the application's workgroup ids (off: ids follow the order the
    /// device starts workgroups in, as GPUs start them, so that only the model holds a
    /// workgroup back)
    #[arg(long)]
    shuffle: bool,
}

impl AppArgs {
    /// The options that only an application takes, refused without one.
    pub fn refuse_without_app(&self) -> Result<()> {
        let given = [
            ("--variant", self.variant.is_some()),
            ("--size", self.size.is_some()),
            ("--entry", self.entry.is_some()),
            ("--postcondition", self.postcondition.is_some()),
            ("--runs", self.runs.is_some()),
            ("--time", self.time.is_some()),
            ("--until-failures", self.until_failures.is_some()),
            ("--master-seed", self.master_seed.is_some()),
            ("--no-occupancy", self.no_occupancy),
            ("--shuffle", self.shuffle),
        ];
        if let Some((name, _)) = given.iter().find(|(_, g)| *g) {
            anyhow::bail!("{name} is for `progress APP`, which runs an application");
        }
        Ok(())
    }
}

/// Stress options at their defaults: `progress APP` runs without memory stress unless
/// --strategy asks for it, with iterations measured as `run` measures them.
#[derive(clap::Parser)]
struct Defaults {
    #[command(flatten)]
    stress: StressOptions,
}

/// Seconds each model runs for when neither --runs nor --time is given.
const DEFAULT_SECONDS: u64 = 5;

/// A validated `progress APP`.
pub struct Plan {
    session: SessionPlan,
    strategy: Strategy,
    shuffle: bool,
    /// The configurations, in order: each model, then each occupancy bound.
    configs: Vec<Scheduling>,
    /// How the app was named, for replay commands.
    app_args: String,
    /// The most workgroups one of its dispatches has: a model that holds one workgroup a
    /// run terminates only after as many runs.
    groups: u32,
}

pub fn plan(
    app_name: &str,
    args: &AppArgs,
    run: &ProgressRunOptions,
    log: &LogOptions,
    json: bool,
) -> Result<Plan> {
    let app = AppOptions {
        app: app_name.to_string(),
        variant: args.variant,
        size: args.size,
        entry: args.entry.clone(),
        postcondition: args.postcondition.clone(),
    };
    let budget = BudgetOptions {
        runs: args.runs,
        time: args.time,
        batch: args.batch,
        timeout: Some(run.timeout),
        until_failures: args.until_failures,
    };
    let session_options = SessionOptions {
        device: run.device.clone(),
        master_seed: args.master_seed,
        json,
        log: log.clone(),
    };
    let defaults = <Defaults as clap::Parser>::parse_from(["progress"]);
    let mut session = SessionPlan::new(
        &app,
        &budget,
        &defaults.stress,
        &session_options,
        Scheduling::default(),
    )?;
    // One engine runs every model.
    session.parking = true;
    if args.runs.is_none() && args.time.is_none() {
        session.budget.runs = None;
        session.budget.time = Some(Duration::from_secs(DEFAULT_SECONDS));
    }
    let mut models = args.models.clone();
    models.dedup();
    let mut configs: Vec<Scheduling> = models
        .iter()
        .map(|&schedule| Scheduling {
            schedule,
            occupancy: None,
        })
        .collect();
    let groups = session.app.max_groups();
    if !args.no_occupancy {
        let mut n = 1u32;
        while n < groups {
            configs.push(Scheduling {
                schedule: Schedule::Fair,
                occupancy: Some(n),
            });
            n = n.saturating_mul(2);
        }
    }
    let mut app_args = app_name.to_string();
    if let Some(v) = args.variant {
        app_args.push_str(&format!(" --variant {}", arg_name(v)));
    }
    if let Some(s) = args.size {
        app_args.push_str(&format!(" --size {}", arg_name(s)));
    }
    if let Some(e) = &args.entry {
        app_args.push_str(&format!(" --entry {e}"));
    }
    Ok(Plan {
        session,
        strategy: args.strategy,
        shuffle: args.shuffle,
        configs,
        app_args,
        groups,
    })
}

/// What the scheduler emulation cannot promise on the adapter `info` names. Its holds, its
/// release rules and its occupancy bound are made for GPUs, and for the CPU drivers whose
/// threads and start order it knows (llvmpipe, SwiftShader: docs/progress.md).
fn emulation_caveat(info: &wgstress_runtime::gpu::device::Info) -> Option<&'static str> {
    let name = info.name.to_lowercase();
    let known = name.contains("llvmpipe") || name.contains("swiftshader");
    (wgstress_runtime::gpu::device::on_cpu(info) && !known).then_some(
        "a CPU driver other than llvmpipe and SwiftShader: the scheduler emulation's holds and \
         stall windows are made for GPUs and those two, so its verdicts here may not be this \
         device's",
    )
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let session = &plan.session;
    let stop = crate::interrupt::stop_flag(notes.on);
    let mut engine = session.engine()?;
    crate::session::announce::announce(&engine, notes);
    if let Some(caveat) = emulation_caveat(&engine.gpu().info) {
        notes.note(caveat);
    }
    let (shape, _) = session.stress.shape(&engine)?;
    let (base, _) = session.stress.settings(
        &mut engine,
        plan.strategy,
        plan.shuffle,
        &shape,
        &session.budget,
    )?;
    // Start-up (the pipelines' first dispatch compiles them) outside every model's budget.
    // A run that fails here (a hang, a loop the driver ended) fails again in the first
    // model's runs, which report it as what ended them.
    match engine.warm(&base) {
        Ok(()) => {}
        Err(
            RuntimeError::Hang(_) | RuntimeError::DriverCut { .. } | RuntimeError::DeviceLost(_),
        ) => {}
        Err(e) => return Err(e.into()),
    }
    let log = session.log.as_deref().map(JsonLog::append_to).transpose()?;
    let mut reporter = Fanout::new(log);
    let mut results = Vec::new();
    let mut stopped = None;
    for (i, scheduling) in plan.configs.iter().enumerate() {
        let mut settings = base.clone();
        settings.scheduling = *scheduling;
        notes.note(&format!("progress: {}", label(scheduling)));
        let config = RunConfig {
            settings,
            budget: session.budget,
            master_seed: session
                .master_seed
                .wrapping_add((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            replay: None,
            adaptive: false,
            calibration: None,
            stop: stop.clone(),
        };
        reporter.show(Progress::runs(
            &config.budget,
            notes.on && !session.json,
            notes.on,
        ));
        let summary = runner::run(&mut engine, &config, &mut reporter)?;
        reporter.finish();
        results.push(result(*scheduling, &summary, &plan.app_args, plan.groups));
        if summary.stopped.is_some() {
            stopped = summary.stopped;
            break;
        }
    }
    let (models, occupancy): (Vec<ModelResult>, Vec<ModelResult>) =
        results.into_iter().partition(|r| r.occupancy.is_none());
    let verdicts: Vec<(Schedule, ProgressVerdict)> =
        models.iter().map(|r| (r.model, r.verdict)).collect();
    let needs_occupancy = occupancy
        .iter()
        .filter(|r| r.verdict == ProgressVerdict::Starves)
        .filter_map(|r| r.occupancy)
        .max()
        .map(|n| n.saturating_mul(2));
    let report = ProgressReport {
        app: engine.app().name.clone(),
        adapter: engine.gpu().describe(),
        models,
        occupancy,
        needs: needs(&verdicts),
        needs_occupancy,
        stopped,
    };
    if let Some(log) = reporter.log() {
        log.summary(wgstress_log::Summary::ProgressApp(ProgressAppSummary {
            report: report.clone(),
        }))?;
    }
    if session.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&crate::progress::app_report::table(&report))?;
    }
    let starved = report
        .models
        .iter()
        .chain(&report.occupancy)
        .any(|r| r.verdict == ProgressVerdict::Starves);
    Ok(Status::of(report.stopped.as_ref(), starved))
}

fn arg_name(value: impl clap::ValueEnum) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

fn label(s: &Scheduling) -> String {
    match s.occupancy {
        Some(n) => format!("occupancy {n}"),
        None => s.schedule.to_string(),
    }
}

fn result(
    scheduling: Scheduling,
    summary: &RunSummary,
    app_args: &str,
    groups: u32,
) -> ModelResult {
    let stats = &summary.stats;
    let holds_workgroups = scheduling.schedule.parks() && scheduling.occupancy.is_none();
    let enough = if holds_workgroups {
        u64::from(groups).max(MIN_RUNS)
    } else {
        MIN_RUNS
    };
    let holds = holds_workgroups.then(|| stats.holds.coverage(scheduling.schedule, groups));
    let (verdict, unsettled) =
        ProgressVerdict::of(stats.runs, &stats.counts, enough, holds.as_ref());
    let failure = stats.first_failure.as_ref();
    ModelResult {
        model: scheduling.schedule,
        occupancy: scheduling.occupancy,
        verdict,
        unsettled,
        holds,
        runs: stats.runs,
        starved_runs: stats.counts.starved,
        other_failures: stats.failures - stats.counts.starved,
        wait: failure.map(|f| f.detail.clone()),
        replay: failure.map(|f| {
            format!(
                "wgstress run {app_args} --seed {} {}",
                f.seed,
                crate::present::replay::options(&f.replay)
            )
        }),
    }
}
