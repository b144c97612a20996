//! global-barrier: an iterative stencil with an inter-workgroup barrier and occupancy
//! discovery (Xiao and Feng; Sorensen et al.). See apps/wgsl/global_barrier.wgsl.

use crate::{first_difference, random_words, Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "global-barrier";
pub(crate) const SUMMARY: &str = "iterative stencil across workgroups with a global barrier and occupancy discovery (Xiao and Feng)";

#[derive(Clone, Application)]
#[wgstress(name = "global-barrier", shader = "wgsl/global_barrier.wgsl")]
pub(crate) struct Stencil {
    #[storage(binding = 0)]
    grid: Vec<u32>,
    #[storage(binding = 1)]
    poll: Vec<u32>,
    #[storage(binding = 2)]
    arrive: Vec<u32>,
    #[storage(binding = 3)]
    release: Vec<u32>,
    #[uniform(binding = 4)]
    config: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
    expected: Vec<u32>,
}

/// The stencil on the CPU: what the GPU must compute.
fn stencil(cells: &[u32], iterations: u32) -> Vec<u32> {
    let n = cells.len();
    let mut cur = cells.to_vec();
    for _ in 0..iterations {
        cur = (0..n)
            .map(|i| {
                cur[(i + n - 1) % n]
                    .wrapping_add(cur[i].wrapping_mul(2))
                    .wrapping_add(cur[(i + 1) % n])
            })
            .collect();
    }
    cur
}

impl Stencil {
    pub(crate) fn new(variant: Variant, size: Size) -> Stencil {
        let cells = size.pick(4096, 1 << 16);
        let iterations = size.pick(8, 32);
        let groups = size.pick(8, 132);
        let start = random_words(5, cells, 1000);
        let expected = stencil(&start, iterations);
        let mut grid = start;
        grid.resize(2 * cells, 0);
        Stencil {
            grid,
            poll: vec![0],
            arrive: vec![0; groups],
            release: vec![0; groups],
            config: vec![cells as u32, iterations],
            groups: [groups as u32, 1, 1],
            fences: variant == Variant::Fixed,
            expected,
        }
    }
}

#[postconditions]
impl Stencil {
    #[postcondition]
    fn grid_matches_the_cpu(&self, grid: &[u32]) -> Result<(), String> {
        let n = self.expected.len();
        let last = if self.config[1].is_multiple_of(2) {
            &grid[..n]
        } else {
            &grid[n..]
        };
        first_difference("grid", last, &self.expected)
    }
}
