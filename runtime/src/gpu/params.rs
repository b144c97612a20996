//! Writing a run's parameters into the uniform block, at the offsets the manifest gives.

use crate::stress::strategy::RunParams;
use wgstress_instrument::manifest::Layout;

/// Fills `out` (one params block) with `run`'s values for an application of `workgroups`.
pub fn encode(run: &RunParams, workgroups: [u32; 3], layout: &Layout, out: &mut [u8]) {
    let mut put = |name: &str, index: u32, value: u32| {
        let base = layout
            .offset(name)
            .unwrap_or_else(|| panic!("the wgstress library lays out `{name}`"));
        let at = (base + 4 * index) as usize;
        out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    };
    for (i, n) in workgroups.iter().enumerate() {
        put("app_groups", i as u32, *n);
    }
    put("app_total", 0, workgroups.iter().product());
    put("stress_groups", 0, run.stress_groups);
    put("strategy", 0, run.strategy.code());
    put("shuffle_mul", 0, run.shuffle_mul);
    put("shuffle_add", 0, run.shuffle_add);
    put("iterations", 0, run.iterations);
    put("patch_words", 0, run.patch_words);
    put("patch_offset", 0, run.patch_offset);
    put("spread", 0, run.patches.len() as u32);
    put("sequence", 0, run.sequence);
    put("sequence_len", 0, run.sequence_len);
    put("watchdog_limit", 0, run.watchdog_limit);
    put("scratch_words", 0, run.scratch_words);
    put("seed", 0, run.seed as u32 ^ (run.seed >> 32) as u32);
    put("app_enabled", 0, u32::from(run.app_enabled));
    put("placement", 0, run.placement.code());
    for (i, patch) in run.patches.iter().enumerate() {
        put("patches", i as u32, *patch);
    }
}
