//! cub-scan: single-pass prefix sum with decoupled look-back (CUB DeviceScan).
//! See apps/wgsl/cub_scan.wgsl.

use crate::{first_difference, random_words, Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "cub-scan";
pub(crate) const SUMMARY: &str = "single-pass prefix sum with decoupled look-back (CUB)";

const TILE: usize = 256;

#[derive(Clone, Application)]
#[wgstress(name = "cub-scan", shader = "wgsl/cub_scan.wgsl")]
pub(crate) struct Scan {
    #[storage(binding = 0)]
    input: Vec<u32>,
    #[storage(binding = 1)]
    output: Vec<u32>,
    #[storage(binding = 2)]
    flags: Vec<u32>,
    #[storage(binding = 3)]
    aggregates: Vec<u32>,
    #[storage(binding = 4)]
    prefixes: Vec<u32>,
    #[storage(binding = 5)]
    tickets: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
    expected: Vec<u32>,
}

impl Scan {
    pub(crate) fn new(variant: Variant, size: Size) -> Scan {
        let tiles = size.pick(64, 1024);
        let input = random_words(4, tiles * TILE, 100);
        let expected = input
            .iter()
            .scan(0u32, |acc, x| {
                *acc = acc.wrapping_add(*x);
                Some(*acc)
            })
            .collect();
        Scan {
            output: vec![0; input.len()],
            input,
            flags: vec![0; tiles],
            aggregates: vec![0; tiles],
            prefixes: vec![0; tiles],
            tickets: vec![0],
            groups: [tiles as u32, 1, 1],
            fences: variant == Variant::Fixed,
            expected,
        }
    }
}

#[postconditions]
impl Scan {
    #[postcondition]
    fn output_is_the_inclusive_scan(&self, output: &[u32]) -> Result<(), String> {
        first_difference("output", output, &self.expected)
    }
}
