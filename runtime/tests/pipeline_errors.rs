//! What wgpu refuses when a shader's pipeline is made, on lavapipe: the error names the
//! shader and its entry point and gives wgpu's reason on one line, with the line and column
//! of a shader diagnostic.

use wgstress_runtime::gpu::device::{self, shader_pipeline};
use wgstress_runtime::RuntimeError;

fn empty_layout(gpu: &device::Gpu) -> wgpu::PipelineLayout {
    gpu.device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[],
            immediate_size: 0,
        })
}

fn refusal(wgsl: &str, entry: &str) -> (String, String) {
    let gpu = device::open(&Default::default()).unwrap();
    let layout = empty_layout(&gpu);
    match shader_pipeline(&gpu.device, &layout, "shader app.wgsl", wgsl, entry, &[]) {
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
