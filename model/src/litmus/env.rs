//! A litmus test environment: how many instances, where their locations lie, and how they
//! are stressed (the parameters of the MC Mutants / GPUHarbor line of work). `wgstress_litmus::env`
//! checks one against a device's limits.
//!
//! Layout: x of instance k lies at place(k) * stride, y at distance + place(k) * stride. With
//! `distance` below `stride` x and y share an instance's stride (the old layout); with
//! `distance` at least instances x stride they lie in two separate regions, and memory grows
//! by the distance, not by instances x distance.

use crate::stress::sequence::Sequence;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Env {
    pub testing_groups: u32,
    pub workgroup_size: u32,
    /// Words between consecutive instances' x (and y).
    pub stride: u32,
    /// Words from x to y of the same placed instance.
    pub distance: u32,
    /// How instances are placed in memory.
    #[serde(default)]
    pub placement: LitmusPlacement,
    pub shuffle: bool,
    pub stress_groups: u32,
    /// Word of each stressed instance region that stress hammers (never x or y).
    pub stress_offset: u32,
    /// How many instance regions (lines) stress spreads over.
    pub target_lines: u32,
    /// Words of each target line that stress spreads over, from `stress_offset` on.
    #[serde(default = "one")]
    pub line_size: u32,
    pub sequence: Sequence,
    pub stress_iterations: u32,
    /// Stress iterations every testing thread runs before its test.
    pub pre_stress: u32,
    /// storageBarrier() between the accesses of each thread.
    pub fence: bool,
    /// Each invocation runs both threads of the same instance, one after the other: every
    /// outcome is then sequential. A check of the harness, not a test of the device.
    #[serde(default)]
    pub same_thread: bool,
}

impl Default for Env {
    fn default() -> Self {
        Env {
            testing_groups: 256,
            workgroup_size: 256,
            stride: 64,
            distance: 32,
            placement: LitmusPlacement::Permuted,
            shuffle: true,
            stress_groups: 0,
            stress_offset: 48,
            target_lines: 2,
            line_size: 1,
            sequence: Sequence::default(),
            stress_iterations: 64,
            pre_stress: 0,
            fence: false,
            same_thread: false,
        }
    }
}

impl Env {
    pub fn instances(&self) -> u32 {
        self.testing_groups * self.workgroup_size
    }

    /// Words of the x region: every instance's stride.
    pub fn x_words(&self) -> u64 {
        u64::from(self.instances()) * u64::from(self.stride)
    }

    /// Whether x and y lie in separate regions.
    pub fn split(&self) -> bool {
        u64::from(self.distance) >= self.x_words()
    }

    /// Words of test memory.
    pub fn memory_words(&self) -> u64 {
        let stressed = u64::from(self.stress_offset) + u64::from(self.line_size.max(1));
        (u64::from(self.distance) + self.x_words()).max(self.x_words() + stressed)
    }

    /// Whether word `w` of an instance's stride (w < stride, from its x) is a test location.
    pub fn is_location(&self, w: u32) -> bool {
        let reaches_y = !self.split()
            || u64::from(w) + self.x_words() >= u64::from(self.distance) + u64::from(self.stride);
        w.is_multiple_of(self.stride)
            || (reaches_y && self.distance % self.stride == w % self.stride)
    }
}

fn one() -> u32 {
    1
}

/// Where instance k's locations go: k itself, a co-prime permutation of k for both x and y,
/// x at k and y at a permutation of k (the paper's PTE), or one permutation for x and
/// another for y.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LitmusPlacement {
    Direct,
    #[default]
    Permuted,
    YPermuted,
    Scattered,
}

impl std::str::FromStr for LitmusPlacement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "direct" => Ok(LitmusPlacement::Direct),
            "permuted" => Ok(LitmusPlacement::Permuted),
            "y-permuted" => Ok(LitmusPlacement::YPermuted),
            "scattered" => Ok(LitmusPlacement::Scattered),
            _ => Err(format!(
                "unknown placement `{s}` (known: direct, permuted, y-permuted, scattered)"
            )),
        }
    }
}

impl std::fmt::Display for LitmusPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LitmusPlacement::Direct => "direct",
            LitmusPlacement::Permuted => "permuted",
            LitmusPlacement::YPermuted => "y-permuted",
            LitmusPlacement::Scattered => "scattered",
        })
    }
}
