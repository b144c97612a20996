//! `wgstress serve [PLAN] --out DIR`: serves a page whose every visitor's browser becomes a
//! device that runs the plan's items, each a child wgstress process that reaches the page
//! through this one (`--browser-relay`), logged under `DIR/<host>/browser-<adapter>/` as a
//! campaign's shards are, for `wgstress merge`. Without a plan, the bundled "test this GPU"
//! plan (deploy/plans/test-this-gpu.toml).

mod lent_page;

use crate::notes::{emit, Notes};
use crate::status::Status;
use anyhow::{anyhow, Result};
use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wgstress_browser::PageServer;
use wgstress_campaign::plan::{CampaignPlan, ItemCheck};

/// The plan a serve without one runs.
const DEFAULT_PLAN: &str = include_str!("../../deploy/plans/test-this-gpu.toml");
/// Where it lives in the source tree, as errors and shard logs name it.
const DEFAULT_PLAN_PATH: &str = "deploy/plans/test-this-gpu.toml";

#[derive(clap::Args)]
pub struct Args {
    /// The campaign plan (TOML; docs/campaigns.md) every device runs [default: the bundled
    /// "test this GPU" plan: the bundled applications' small variants, MP/SB/LB, the MC
    /// Mutants conformance tests, the progress suite]
    plan: Option<PathBuf>,
    /// Where each device's logs go (DIR/<host>/browser-<adapter>/shard-0/); merge reads them
    #[arg(long)]
    out: PathBuf,
    /// Where the page is served: 127.0.0.1 (this machine alone), or this machine's address on
    /// the network (or 0.0.0.0) for a phone or another computer; its WebSocket takes the next
    /// port; port 0 lets the system pick both
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// End once N devices have run the plan or gone [default: serve until interrupted]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    devices: Option<u32>,
}

/// A validated serve: the plan and every item checked, the output directory there, the page
/// served.
pub struct Plan {
    plan: CampaignPlan,
    out: PathBuf,
    server: PageServer,
    devices: Option<u32>,
}

pub fn plan(args: &Args, check: ItemCheck) -> Result<Plan> {
    let plan = match &args.plan {
        Some(path) => CampaignPlan::load(path, check)?,
        None => CampaignPlan::bundled(Path::new(DEFAULT_PLAN_PATH), DEFAULT_PLAN, check)?,
    };
    if args.out.exists() && !args.out.is_dir() {
        return Err(anyhow!("--out {}: not a directory", args.out.display()));
    }
    // The address first: a serve that cannot listen leaves nothing behind.
    let server =
        PageServer::start(args.listen).map_err(|e| anyhow!("--listen {}: {e}", args.listen))?;
    std::fs::create_dir_all(&args.out).map_err(|e| anyhow!("--out {}: {e}", args.out.display()))?;
    Ok(Plan {
        plan,
        out: args.out.clone(),
        server,
        devices: args.devices,
    })
}

pub fn execute(plan: Plan, notes: Notes) -> Result<Status> {
    let url = plan.server.url().to_string();
    emit(&format!("{url}\n"))?;
    if std::io::stdout().is_terminal() {
        emit(&qr(&url))?;
    }
    let (http, _) = plan.server.addresses();
    if http.ip().is_unspecified() {
        notes.note(
            "serving on every address: from another machine, open the address above with \
             this machine's address in place of 127.0.0.1",
        );
    }
    notes.note(&format!(
        "serving plan {} ({} items) to every browser that opens the address; logs under {}",
        plan.plan.name,
        plan.plan.items.len(),
        plan.out.display()
    ));
    let stop = crate::interrupt::stop_flag(notes.on);
    let binary = std::env::current_exe()?;
    let taken = Mutex::new(Vec::new());
    let context = lent_page::Context {
        plan: &plan.plan,
        out: &plan.out,
        binary: &binary,
        stop: stop.clone(),
        notes,
        taken: &taken,
    };
    let results: Vec<Result<lent_page::Ran>> = std::thread::scope(|scope| {
        let mut pages = Vec::new();
        while !stop.load(Ordering::SeqCst) && plan.devices.is_none_or(|n| pages.len() < n as usize)
        {
            let Some(page) = plan.server.next_page(Duration::from_millis(200)) else {
                continue;
            };
            let context = &context;
            pages.push(scope.spawn(move || lent_page::run(Arc::new(page), context)));
        }
        pages
            .into_iter()
            .map(|p| p.join().expect("a page's worker does not panic"))
            .collect()
    });
    let mut ran = Vec::new();
    for result in results {
        match result {
            Ok(r) => ran.push(r),
            Err(e) => notes.warn(&crate::one_line(&e)),
        }
    }
    Ok(if stop.load(Ordering::SeqCst) {
        Status::Interrupted
    } else if ran.iter().any(|r| r.errors) {
        Status::Aborted
    } else {
        Status::of(None, ran.iter().any(|r| r.unexpected))
    })
}

/// The address as a QR code in the terminal, two rows of modules a line, for a phone's
/// camera.
fn qr(url: &str) -> String {
    match qrcode::QrCode::new(url.as_bytes()) {
        Ok(code) => {
            let text = code
                .render::<qrcode::render::unicode::Dense1x2>()
                .dark_color(qrcode::render::unicode::Dense1x2::Light)
                .light_color(qrcode::render::unicode::Dense1x2::Dark)
                .build();
            format!("{text}\n")
        }
        // An address too long for a QR code is shown as text alone.
        Err(_) => String::new(),
    }
}
