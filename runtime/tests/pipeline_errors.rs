//! What wgpu refuses when a shader's pipeline is made, on lavapipe: the error names the
//! shader and its entry point and gives wgpu's reason on one line, with the line and column
//! of a shader diagnostic.

use wgstress_runtime::gpu::device;
use wgstress_runtime::gpu::device::commands::{LayoutDesc, PipelineDesc};
use wgstress_runtime::RuntimeError;

fn refusal(wgsl: &str, entry: &str) -> (String, String) {
    let gpu = device::open(&Default::default()).unwrap();
    let layout = gpu.layout(&LayoutDesc::default()).unwrap();
    let made = gpu.pipeline(&PipelineDesc {
        label: "shader app.wgsl".to_string(),
        layout: layout.id(),
        wgsl: wgsl.to_string(),
        entry: entry.to_string(),
        constants: Vec::new(),
    });
    match made.map_err(RuntimeError::from) {
        Err(RuntimeError::Wgpu { what, message }) => (what, message),
        Err(other) => panic!("not a wgpu refusal: {other}"),
        Ok(_) => panic!("wgpu made the pipeline"),
    }
}

#[test]
fn a_pipeline_wgpu_refuses_names_shader_entry_point_and_reason() {
    let wgsl = "@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = 1u; }";
    let (what, message) = refusal(wgsl, "main");
    assert_eq!(what, "shader app.wgsl (entry point `main`)");
    assert!(!message.contains('\n'), "one line: {message}");
    assert!(
        message.contains("binding: 3") && !message.starts_with("Validation Error"),
        "the reason, not wgpu's heading: {message}"
    );
}

#[test]
fn a_shader_wgpu_cannot_read_gives_its_line_and_column() {
    let (what, message) = refusal(
        "@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = nosuch;\n}",
        "main",
    );
    assert!(what.contains("entry point `main`"), "{what}");
    assert!(!message.contains('\n'), "one line: {message}");
    assert!(message.contains("(at 3:"), "line and column: {message}");
}
