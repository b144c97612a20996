// A pipeline of two dispatches and a postcondition in its own file.
use wgstress_macros::{postconditions, Application};
use wgstress_runtime::app::spec::{Application as _, Dispatch, Outputs};

#[derive(Clone, Application)]
#[wgstress(
    name = "tiny-pipeline",
    shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl",
    postcondition = "check",
    postcondition_shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny_check.wgsl"
)]
struct TinyPipeline {
    #[storage(binding = 0)]
    out: Vec<u32>,
    #[pipeline]
    passes: Vec<Dispatch>,
}

#[postconditions]
impl TinyPipeline {}

fn main() {
    let pass = |groups: u32| Dispatch {
        shader: None,
        entry: None,
        workgroups: [groups, 1, 1],
        stress: true,
        uniforms: Vec::new(),
        bind: Vec::new(),
    };
    let app = TinyPipeline { out: vec![0; 4], passes: vec![pass(1), pass(2)] }.app();
    assert_eq!(app.dispatches().len(), 2);
    assert_eq!(app.dispatches()[1].workgroups, [2, 1, 1]);
    assert!(app.validate().is_ok());
    assert!(app.postcondition_shader.unwrap().source.contains("fn check"));
    let _ = Outputs::new(Vec::new());
}
