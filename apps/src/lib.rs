//! The bundled applications: the seed study's GPU applications in WGSL, each with a buggy
//! variant (fences removed, as the seed's "-nf" variants) and a fixed one, and postconditions;
//! a nofence variant is the buggy one with its fence sites cut out of the source.
//! docs/apps.md describes each.
//!
//! The variants share one WGSL source: the fixed variant sets the pipeline-override constant
//! `FENCES`, which turns on the fences.

#![deny(unreachable_pub)]

mod cbe_dot;
mod cbe_ht;
mod ct_octree;
mod cub_scan;
mod global_barrier;
mod ls_bh;
mod nofence;
mod sdk_red;
mod tpo_tm;

use nofence::strip_fences;
use rand::{Rng, SeedableRng};
use wgstress_runtime::app::spec::{App, Application};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Buggy,
    Fixed,
    /// The buggy variant's behaviour with its `if FENCES` fence sites taken out of the
    /// source (see `nofence::strip_fences`), so that nothing in it points at where fences go.
    NoFence,
}

/// Problem size: small enough for a CPU Vulkan driver in CI, or large for a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Small,
    Large,
}

impl Size {
    /// `small` or `large` by size.
    fn pick<T>(self, small: T, large: T) -> T {
        match self {
            Size::Small => small,
            Size::Large => large,
        }
    }
}

macro_rules! display_enum {
    ($ty:ident { $($text:literal => $value:ident),* }) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self { $($ty::$value => $text,)* })
            }
        }
    };
}
display_enum!(Variant { "buggy" => Buggy, "fixed" => Fixed, "nofence" => NoFence });
display_enum!(Size { "small" => Small, "large" => Large });

/// A bundled application.
pub struct Bundled {
    pub name: &'static str,
    pub summary: &'static str,
    build: fn(Variant, Size) -> Box<dyn Application>,
}

impl Bundled {
    pub fn build(&self, variant: Variant, size: Size) -> App {
        let mut app = (self.build)(variant, size).app();
        app.name = format!("{}-{variant}", app.name);
        if variant == Variant::NoFence {
            // The bundled sources are fixed at compile time and the apps suite strips every
            // one of them, so this holds for every bundled app.
            app.source =
                strip_fences(&app.source).unwrap_or_else(|e| panic!("{}: {e}", app.shader_path));
        }
        app
    }
}

macro_rules! bundled {
    ($($module:ident :: $ty:ident),* $(,)?) => {
        vec![$(Bundled {
            name: $module::NAME,
            summary: $module::SUMMARY,
            build: |variant, size| Box::new($module::$ty::new(variant, size)),
        }),*]
    };
}

pub fn all() -> Vec<Bundled> {
    bundled![
        cbe_dot::Dot,
        cbe_ht::HashTable,
        sdk_red::Reduction,
        cub_scan::Scan,
        ct_octree::WorkStealing,
        tpo_tm::TaskQueue,
        ls_bh::BarnesHut,
        global_barrier::Stencil,
    ]
}

pub fn find(name: &str) -> Option<Bundled> {
    all().into_iter().find(|a| a.name == name)
}

/// Seeded pseudo-random words below `below`: inputs are the same in every run.
fn random_words(seed: u64, n: usize, below: u32) -> Vec<u32> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(0..below)).collect()
}

/// The first index where `got` differs from `want`, as a postcondition message.
fn first_difference(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        Some(i) => Err(format!("{what}[{i}] = {}, expected {}", got[i], want[i])),
        None if got.len() != want.len() => Err(format!(
            "{what} has {} words, expected {}",
            got.len(),
            want.len()
        )),
        None => Ok(()),
    }
}
