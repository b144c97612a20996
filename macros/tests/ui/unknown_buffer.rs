use wgstress_macros::{postconditions, Application};

#[derive(Clone, Application)]
#[wgstress(name = "unknown", shader = "$WGSTRESS_MACROS_TESTS/wgsl/tiny.wgsl")]
struct Unknown {
    #[storage(binding = 0)]
    out: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
}

#[postconditions]
impl Unknown {
    #[postcondition]
    fn result_is_one(&self, result: &[u32]) -> Result<(), String> {
        if result[0] == 1 { Ok(()) } else { Err("no".into()) }
    }
}

fn main() {}
