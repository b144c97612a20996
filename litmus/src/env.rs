//! A litmus environment against a device: whether it fits the adapter's limits and keeps its
//! stress off the test locations (the environment is `wgstress_model`'s).

use wgstress_model::litmus::env::Env;

/// Checks `env` against the device's limits, before anything is dispatched.
pub(crate) fn check(env: &Env, limits: &wgpu::Limits) -> Result<(), String> {
    if env.testing_groups == 0 {
        return Err("--testing-groups must be at least 1".into());
    }
    if env.stride == 0 {
        return Err("--stride must be at least 1".into());
    }
    if !env.split() && env.distance.is_multiple_of(env.stride) {
        return Err(format!(
            "y would land on another instance's x: --distance {} must not be a multiple of --stride {} unless it is at least instances x stride ({}); --y-gap puts y in a region of its own",
            env.distance,
            env.stride,
            env.x_words()
        ));
    }
    if env.workgroup_size == 0 {
        return Err("--workgroup-size must be at least 1".into());
    }
    if env.workgroup_size > limits.max_compute_invocations_per_workgroup
        || env.workgroup_size > limits.max_compute_workgroup_size_x
    {
        return Err(format!(
            "a workgroup of {} threads is beyond this adapter's limit of {} (max_compute_invocations_per_workgroup)",
            env.workgroup_size,
            limits.max_compute_invocations_per_workgroup.min(limits.max_compute_workgroup_size_x)
        ));
    }
    // In u64: the counts are checked before anything multiplies or adds them in u32.
    let groups = u64::from(env.testing_groups) + u64::from(env.stress_groups);
    let max_groups = u64::from(limits.max_compute_workgroups_per_dimension).pow(2);
    if groups > max_groups {
        return Err(format!(
            "{groups} workgroups are beyond this adapter's limit of {max_groups}"
        ));
    }
    let instances = u64::from(env.testing_groups) * u64::from(env.workgroup_size);
    if instances >= 1 << 31 {
        return Err(format!(
            "{instances} instances are too many: keep testing groups x workgroup size below 2^31"
        ));
    }
    let words = [env.stride, env.distance, env.stress_offset, env.line_size];
    if words.iter().any(|&w| w > 1 << 30) {
        return Err(
            "--stride, --distance, --stress-offset and --line-size must be at most 2^30 words"
                .into(),
        );
    }
    let bytes = env.memory_words() * 4;
    if bytes > limits.max_storage_buffer_binding_size {
        return Err(format!(
            "test memory of {bytes} bytes ({} instances x {} words + distance {}) is beyond this adapter's limit of {} bytes (max_storage_buffer_binding_size): lower --stride, --distance or --testing-groups",
            env.instances(),
            env.stride,
            env.distance,
            limits.max_storage_buffer_binding_size
        ));
    }
    let mut stressed = env.stress_offset..env.stress_offset + env.line_size.max(1);
    let stresses = env.stress_groups > 0 || env.pre_stress > 0;
    if stresses && stressed.any(|w| env.is_location(w)) {
        return Err(format!(
            "the stressed words {:?} hold a test location (x = 0, y = {} modulo the stride {}): pick another --stress-offset or --line-size",
            env.stress_offset..env.stress_offset + env.line_size.max(1),
            env.distance,
            env.stride
        ));
    }
    if env.target_lines == 0 || env.target_lines > env.instances() {
        return Err(format!(
            "--target-lines must be between 1 and the number of instances ({})",
            env.instances()
        ));
    }
    Ok(())
}
