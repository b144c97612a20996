//! `override`s are resolved with the application's values before instrumenting: workgroup
//! sizes and array lengths from overrides, defaults, values for other files ignored.

use wgstress_instrument::{instrument_wgsl, InstrumentOptions};

const SHADER: &str = "
override size: u32 = 64;
override cells: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> scratch: array<u32, cells>;
@compute @workgroup_size(size)
fn main(@builtin(local_invocation_index) i: u32) {
    scratch[i % cells] = i;
    workgroupBarrier();
    out[i] = scratch[i % cells];
}
";

fn options(constants: &[(&str, f64)]) -> InstrumentOptions {
    InstrumentOptions {
        file_name: Some("app.wgsl".into()),
        constants: constants.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ..Default::default()
    }
}

#[test]
fn override_sized_workgroups_and_arrays_take_the_given_values() {
    let inst = instrument_wgsl(SHADER, &options(&[("size", 32.0), ("cells", 8.0)])).unwrap();
    assert_eq!(inst.manifest.entry_point.workgroup_size, [32, 1, 1]);
    assert!(
        inst.module.overrides.is_empty(),
        "{:?}",
        inst.module.overrides
    );
    assert!(inst.wgsl.contains("array<u32, 8>"), "{}", inst.wgsl);
    wgstress_tint::assert_valid(&[wgstress_tint::NamedWgsl::new("overrides", inst.wgsl)]);
}

#[test]
fn defaults_apply_and_values_for_other_files_are_ignored() {
    let inst = instrument_wgsl(SHADER, &options(&[("cells", 4.0), ("elsewhere", 1.0)])).unwrap();
    assert_eq!(inst.manifest.entry_point.workgroup_size, [64, 1, 1]);
}

#[test]
fn a_workgroup_size_of_zero_is_an_error() {
    let Err(e) = instrument_wgsl(SHADER, &options(&[("size", 0.0), ("cells", 4.0)])) else {
        panic!("a zero workgroup size was accepted")
    };
    assert_eq!(
        e.to_string(),
        "app.wgsl: a workgroup size computed from overrides is not positive"
    );
}
