use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "typed", shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl")]
struct Typed {
    #[storage(binding = 0)]
    out: String,
    #[dispatch]
    groups: [u32; 3],
}

#[postconditions]
impl Typed {}

fn main() {}
