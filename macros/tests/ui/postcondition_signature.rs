use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "sig", shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl")]
struct Sig {
    #[storage(binding = 0)]
    out: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
}

#[postconditions]
impl Sig {
    #[postcondition]
    fn out_is_one(&self, out: Vec<u32>) -> bool {
        out[0] == 1
    }
}

fn main() {}
