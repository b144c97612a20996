//! sdk-red: a reduction whose last workgroup, found with an atomic ticket, adds up the
//! partial sums (CUDA SDK threadFenceReduction). See apps/wgsl/sdk_red.wgsl.

use crate::{random_words, Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "sdk-red";
pub(crate) const SUMMARY: &str =
    "reduction finished by the last workgroup to take a ticket (CUDA SDK threadFenceReduction)";

#[derive(Clone, Application)]
#[wgstress(name = "sdk-red", shader = "wgsl/sdk_red.wgsl")]
pub(crate) struct Reduction {
    #[storage(binding = 0)]
    input: Vec<u32>,
    #[storage(binding = 1)]
    partials: Vec<u32>,
    #[storage(binding = 2)]
    tickets: Vec<u32>,
    #[storage(binding = 3)]
    result: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
    expected: u32,
}

impl Reduction {
    pub(crate) fn new(variant: Variant, size: Size) -> Reduction {
        let input = random_words(3, size.pick(1 << 16, 1 << 20), 1000);
        let groups = size.pick(16, 264);
        let expected = input.iter().fold(0u32, |s, x| s.wrapping_add(*x));
        Reduction {
            input,
            partials: vec![0; groups as usize],
            tickets: vec![0],
            result: vec![0],
            groups: [groups, 1, 1],
            fences: variant == Variant::Fixed,
            expected,
        }
    }
}

#[postconditions]
impl Reduction {
    #[postcondition]
    fn result_is_the_exact_sum(&self, result: &[u32]) -> Result<(), String> {
        if result[0] == self.expected {
            Ok(())
        } else {
            Err(format!(
                "sum = {}, expected {} (a partial sum was read before it was visible)",
                result[0], self.expected
            ))
        }
    }
}
