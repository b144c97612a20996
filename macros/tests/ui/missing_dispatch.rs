use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "nodispatch", shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl")]
struct NoDispatch {
    #[storage(binding = 0)]
    out: Vec<u32>,
}

#[postconditions]
impl NoDispatch {}

fn main() {}
