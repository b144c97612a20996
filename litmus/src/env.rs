//! A litmus test environment: how many instances, where their locations lie, and how they
//! are stressed (the parameters of the MC Mutants / GPUHarbor line of work).
//!
//! Layout: x of instance k lies at place(k) * stride, y at distance + place(k) * stride. With
//! `distance` below `stride` x and y share an instance's stride (the old layout); with
//! `distance` at least instances x stride they lie in two separate regions, and memory grows
//! by the distance, not by instances x distance.

use serde::{Deserialize, Serialize};
use wgstress_runtime::stress::strategy::Sequence;

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
    pub placement: Placement,
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
            placement: Placement::Permuted,
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
    fn x_words(&self) -> u64 {
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
    fn is_location(&self, w: u32) -> bool {
        let reaches_y = !self.split()
            || u64::from(w) + self.x_words() >= u64::from(self.distance) + u64::from(self.stride);
        w.is_multiple_of(self.stride)
            || (reaches_y && self.distance % self.stride == w % self.stride)
    }

    /// Checks the environment against the device's limits, before anything is dispatched.
    pub fn check(&self, limits: &wgpu::Limits) -> Result<(), String> {
        if self.testing_groups == 0 {
            return Err("--testing-groups must be at least 1".into());
        }
        if self.stride == 0 {
            return Err("--stride must be at least 1".into());
        }
        if !self.split() && self.distance.is_multiple_of(self.stride) {
            return Err(format!(
                "y would land on another instance's x: --distance {} must not be a multiple of --stride {} unless it is at least instances x stride ({}); --y-gap puts y in a region of its own",
                self.distance,
                self.stride,
                self.x_words()
            ));
        }
        if self.workgroup_size == 0 {
            return Err("--workgroup-size must be at least 1".into());
        }
        if self.workgroup_size > limits.max_compute_invocations_per_workgroup
            || self.workgroup_size > limits.max_compute_workgroup_size_x
        {
            return Err(format!(
                "a workgroup of {} threads is beyond this adapter's limit of {} (max_compute_invocations_per_workgroup)",
                self.workgroup_size,
                limits.max_compute_invocations_per_workgroup.min(limits.max_compute_workgroup_size_x)
            ));
        }
        // In u64: the counts are checked before anything multiplies or adds them in u32.
        let groups = u64::from(self.testing_groups) + u64::from(self.stress_groups);
        let max_groups = u64::from(limits.max_compute_workgroups_per_dimension).pow(2);
        if groups > max_groups {
            return Err(format!(
                "{groups} workgroups are beyond this adapter's limit of {max_groups}"
            ));
        }
        let instances = u64::from(self.testing_groups) * u64::from(self.workgroup_size);
        if instances >= 1 << 31 {
            return Err(format!(
                "{instances} instances are too many: keep testing groups x workgroup size below 2^31"
            ));
        }
        let words = [
            self.stride,
            self.distance,
            self.stress_offset,
            self.line_size,
        ];
        if words.iter().any(|&w| w > 1 << 30) {
            return Err(
                "--stride, --distance, --stress-offset and --line-size must be at most 2^30 words"
                    .into(),
            );
        }
        let bytes = self.memory_words() * 4;
        if bytes > limits.max_storage_buffer_binding_size {
            return Err(format!(
                "test memory of {bytes} bytes ({} instances x {} words + distance {}) is beyond this adapter's limit of {} bytes (max_storage_buffer_binding_size): lower --stride, --distance or --testing-groups",
                self.instances(),
                self.stride,
                self.distance,
                limits.max_storage_buffer_binding_size
            ));
        }
        let mut stressed = self.stress_offset..self.stress_offset + self.line_size.max(1);
        let stresses = self.stress_groups > 0 || self.pre_stress > 0;
        if stresses && stressed.any(|w| self.is_location(w)) {
            return Err(format!(
                "the stressed words {:?} hold a test location (x = 0, y = {} modulo the stride {}): pick another --stress-offset or --line-size",
                self.stress_offset..self.stress_offset + self.line_size.max(1),
                self.distance,
                self.stride
            ));
        }
        if self.target_lines == 0 || self.target_lines > self.instances() {
            return Err(format!(
                "--target-lines must be between 1 and the number of instances ({})",
                self.instances()
            ));
        }
        Ok(())
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
pub enum Placement {
    Direct,
    #[default]
    Permuted,
    YPermuted,
    Scattered,
}

impl std::str::FromStr for Placement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "direct" => Ok(Placement::Direct),
            "permuted" => Ok(Placement::Permuted),
            "y-permuted" => Ok(Placement::YPermuted),
            "scattered" => Ok(Placement::Scattered),
            _ => Err(format!(
                "unknown placement `{s}` (known: direct, permuted, y-permuted, scattered)"
            )),
        }
    }
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Placement::Direct => "direct",
            Placement::Permuted => "permuted",
            Placement::YPermuted => "y-permuted",
            Placement::Scattered => "scattered",
        })
    }
}
