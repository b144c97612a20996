//! The device features an application's shaders need: naga's validation capabilities mapped
//! to wgpu features (subgroups, f16, 64-bit integers, ...), found by validating each shader
//! without one feature at a time; and the one-line refusal when the adapter lacks one.

use crate::error::{Result, RuntimeError};
use naga::valid::{ValidationFlags, Validator};

/// The shader features wgstress knows how to ask for, with wgpu's names. Each maps to naga
/// capabilities through wgpu's own mapping (`wgpu_naga_bridge`), so what naga needs is what
/// wgpu checks.
const CANDIDATES: [(wgpu::Features, &str); 10] = [
    (wgpu::Features::SUBGROUP, "SUBGROUP"),
    (wgpu::Features::SUBGROUP_BARRIER, "SUBGROUP_BARRIER"),
    (wgpu::Features::SHADER_F16, "SHADER_F16"),
    (wgpu::Features::SHADER_F64, "SHADER_F64"),
    (wgpu::Features::SHADER_I16, "SHADER_I16"),
    (wgpu::Features::SHADER_INT64, "SHADER_INT64"),
    (
        wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX,
        "SHADER_INT64_ATOMIC_MIN_MAX",
    ),
    (
        wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS,
        "SHADER_INT64_ATOMIC_ALL_OPS",
    ),
    (
        wgpu::Features::SHADER_FLOAT32_ATOMIC,
        "SHADER_FLOAT32_ATOMIC",
    ),
    (wgpu::Features::IMMEDIATES, "IMMEDIATES"),
];

fn all_candidates() -> wgpu::Features {
    CANDIDATES
        .iter()
        .fold(wgpu::Features::empty(), |all, (f, _)| all | *f)
}

fn validates_with(module: &naga::Module, features: wgpu::Features) -> bool {
    let caps =
        wgpu_naga_bridge::features_to_naga_capabilities(features, wgpu::DownlevelFlags::all());
    Validator::new(ValidationFlags::all(), caps)
        .validate(module)
        .is_ok()
}

/// The features `module` cannot validate without.
pub(crate) fn required(module: &naga::Module) -> wgpu::Features {
    let all = all_candidates();
    CANDIDATES
        .iter()
        .filter(|(f, _)| !validates_with(module, all - *f))
        .fold(wgpu::Features::empty(), |needed, (f, _)| needed | *f)
}

/// `Err` naming the first of `needed` that `offered` lacks, and who needs it: injectable, so
/// that the refusal is tested without an adapter that lacks a feature.
pub(crate) fn check(
    needed: wgpu::Features,
    offered: wgpu::Features,
    adapter: &str,
    needed_by: &str,
) -> Result<()> {
    let missing = needed - offered;
    match CANDIDATES.iter().find(|(f, _)| missing.contains(*f)) {
        None => Ok(()),
        Some((_, name)) => Err(RuntimeError::Input(format!(
            "{needed_by} needs the device feature {name}, which {adapter} does not offer"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(source: &str) -> naga::Module {
        naga::front::wgsl::parse_str(source).unwrap()
    }

    #[test]
    fn subgroup_operations_need_the_subgroup_feature() {
        let m = module(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
             @compute @workgroup_size(32)
             fn main(@builtin(global_invocation_id) id: vec3<u32>) {
                 out[id.x] = subgroupAdd(id.x);
             }",
        );
        assert_eq!(required(&m), wgpu::Features::SUBGROUP);
    }

    #[test]
    fn f16_needs_shader_f16_and_plain_shaders_need_nothing() {
        let m = module(
            "enable f16;
             @group(0) @binding(0) var<storage, read_write> out: array<f16>;
             @compute @workgroup_size(1) fn main() { out[0] = 1.5h; }",
        );
        assert_eq!(required(&m), wgpu::Features::SHADER_F16);
        let plain = module("@compute @workgroup_size(1) fn main() {}");
        assert_eq!(required(&plain), wgpu::Features::empty());
    }

    #[test]
    fn a_missing_feature_is_one_line_naming_it() {
        let e = check(
            wgpu::Features::SUBGROUP | wgpu::Features::SHADER_F16,
            wgpu::Features::SUBGROUP,
            "llvmpipe",
            "app.wgsl",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "app.wgsl needs the device feature SHADER_F16, which llvmpipe does not offer"
        );
        assert!(check(
            wgpu::Features::SUBGROUP,
            wgpu::Features::all(),
            "any",
            "app.wgsl"
        )
        .is_ok());
    }
}
