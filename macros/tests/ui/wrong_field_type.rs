use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "typed", shader = "../../../../macros/tests/wgsl/tiny.wgsl")]
struct Typed {
    #[storage(binding = 0)]
    out: String,
    #[dispatch]
    groups: [u32; 3],
}

#[postconditions]
impl Typed {}

fn main() {}
