//! A litmus test environment: how many instances, where their locations lie, and how they
//! are stressed (the parameters of the MC Mutants / GPUHarbor line of work).

use crate::strategy::Sequence;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Env {
    pub testing_groups: u32,
    pub workgroup_size: u32,
    /// Words between consecutive instances' x (the location stride); at least distance + 1.
    pub stride: u32,
    /// Words from x to y.
    pub distance: u32,
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

    /// Words per instance region.
    pub fn region(&self) -> u32 {
        self.stride
            .max(self.distance + 1)
            .max(self.stress_offset + self.line_size.max(1))
    }

    /// Words of test memory.
    pub fn memory_words(&self) -> u64 {
        u64::from(self.instances()) * u64::from(self.region())
    }

    /// Checks the environment against the device's limits, before anything is dispatched.
    pub fn check(&self, limits: &wgpu::Limits) -> Result<(), String> {
        if self.testing_groups == 0 {
            return Err("--testing-groups must be at least 1".into());
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
                "test memory of {bytes} bytes ({} instances x {} words) is beyond this adapter's limit of {} bytes (max_storage_buffer_binding_size): lower --stride or --testing-groups",
                self.instances(),
                self.region(),
                limits.max_storage_buffer_binding_size
            ));
        }
        let stressed = self.stress_offset..self.stress_offset + self.line_size.max(1);
        if self.stress_groups > 0 && (stressed.contains(&0) || stressed.contains(&self.distance)) {
            return Err(format!(
                "the stressed words {stressed:?} hold a test location (x = 0, y = {}): pick another --stress-offset or --line-size",
                self.distance
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
