use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "nodispatch", shader = "../../../../macros/tests/wgsl/tiny.wgsl")]
struct NoDispatch {
    #[storage(binding = 0)]
    out: Vec<u32>,
}

#[postconditions]
impl NoDispatch {}

fn main() {}
