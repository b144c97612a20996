//! cbe-dot: a dot product whose workgroups add partial sums under a spin lock
//! ("CUDA by Example", appendix A.1). See apps/wgsl/cbe_dot.wgsl.

use crate::{random_words, Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "cbe-dot";
pub(crate) const SUMMARY: &str =
    "dot product, partial sums added under a spin lock (CUDA by Example)";

#[derive(Clone, Application)]
#[wgstress(name = "cbe-dot", shader = "wgsl/cbe_dot.wgsl")]
pub(crate) struct Dot {
    #[storage(binding = 0)]
    a: Vec<u32>,
    #[storage(binding = 1)]
    b: Vec<u32>,
    #[storage(binding = 2)]
    total: Vec<u32>,
    #[storage(binding = 3)]
    mutex: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
    expected: u32,
}

impl Dot {
    pub(crate) fn new(variant: Variant, size: Size) -> Dot {
        let n = size.pick(1 << 16, 1 << 20);
        let (a, b) = (random_words(1, n, 16), random_words(2, n, 16));
        let expected = a
            .iter()
            .zip(&b)
            .fold(0u32, |s, (x, y)| s.wrapping_add(x * y));
        Dot {
            a,
            b,
            total: vec![0],
            mutex: vec![0],
            groups: [size.pick(16, 132), 1, 1],
            fences: variant == Variant::Fixed,
            expected,
        }
    }
}

#[postconditions]
impl Dot {
    #[postcondition]
    fn total_is_the_exact_sum(&self, total: &[u32]) -> Result<(), String> {
        if total[0] == self.expected {
            Ok(())
        } else {
            Err(format!(
                "total = {}, expected {} (an update was lost)",
                total[0], self.expected
            ))
        }
    }
}
