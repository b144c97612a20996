// Built by trybuild in a crate of its own under the build directory: the shader path comes from WGSTRESS_MACROS_TESTS (tests/ui.rs sets it).
use wgstress_macros::{postconditions, Application};
use wgstress_runtime::app::failure::CheckFailure;
use wgstress_runtime::app::spec::{Application as _, Outputs};

#[derive(Clone, Application)]
#[wgstress(name = "tiny", shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl")]
struct Tiny {
    #[storage(binding = 0)]
    out: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
}

#[postconditions]
impl Tiny {
    #[postcondition]
    fn out_is_one(&self, out: &[u32]) -> Result<(), String> {
        if out[0] == 1 { Ok(()) } else { Err(format!("out[0] = {}", out[0])) }
    }
}

fn main() {
    let app = Tiny { out: vec![0; 4], groups: [1, 1, 1] }.app();
    assert!(app.shader_path.ends_with("/tests/wgsl/tiny.wgsl"), "{}", app.shader_path);
    assert_eq!(app.bindings.len(), 1);
    assert_eq!(app.host_reads, vec![(0, 0)]);
    let check = app.host_check.unwrap();
    let good = [1u32, 0, 0, 0];
    assert!(check(&Outputs::new(vec![((0, 0), &good[..])])).is_ok());
    let bad = [2u32, 0, 0, 0];
    let failure = check(&Outputs::new(vec![((0, 0), &bad[..])])).unwrap_err();
    assert_eq!(failure.to_string(), "out_is_one: out[0] = 2");
    assert_eq!(failure, CheckFailure::Postcondition { name: "out_is_one".into(), message: "out[0] = 2".into() });
    let unread = check(&Outputs::new(Vec::new())).unwrap_err();
    assert_eq!(unread.to_string(), "buffer `out` was not read back");
}
