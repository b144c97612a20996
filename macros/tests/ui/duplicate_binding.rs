use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "dup", shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl")]
struct Dup {
    #[storage(binding = 0)]
    a: Vec<u32>,
    #[storage(binding = 0)]
    b: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
}

#[postconditions]
impl Dup {}

fn main() {}
