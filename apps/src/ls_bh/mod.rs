//! ls-bh: one time step of Barnes-Hut n-body after LonestarGPU (tree build under per-slot
//! locks, summarization, forces, integration). See apps/wgsl/ls_bh.wgsl.

mod check;
mod octree;

use crate::{Size, Variant};
use octree::{Body, Octree, Step};
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "ls-bh";
pub(crate) const SUMMARY: &str =
    "Barnes-Hut n-body: octree built under per-slot locks, summarized, forces (LonestarGPU)";

/// Positions must match the host's to within this fraction of the distance a body moved...
const RELATIVE: f32 = 1e-3;
/// ...plus this much (coordinates reach 16,384, where an f32 step is 0.001).
const ABSOLUTE: f32 = 1e-2;

#[derive(Clone, Application)]
#[wgstress(name = "ls-bh", shader = "wgsl/ls_bh.wgsl")]
pub(crate) struct BarnesHut {
    #[storage(binding = 0)]
    bodies: Vec<u32>,
    #[storage(binding = 1)]
    velocities: Vec<u32>,
    #[storage(binding = 2)]
    children: Vec<u32>,
    #[storage(binding = 3)]
    cells: Vec<u32>,
    #[storage(binding = 4)]
    counters: Vec<u32>,
    #[storage(binding = 5)]
    moved: Vec<u32>,
    #[uniform(binding = 6)]
    config: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
    input: Vec<Body>,
    expected_cells: u32,
    /// Where each body is after the step, and how far it moved, by the host.
    expected: Vec<([f32; 3], f32)>,
}

/// Distinct bodies at random integer points, masses 1 to 4.
fn random_bodies(n: usize) -> Vec<Body> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
    let side = 1u32 << (octree::TOP + 1);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let at = [(); 3].map(|_| rng.random_range(0..side));
        if seen.insert(at) {
            out.push(Body {
                at,
                mass: rng.random_range(1..=4),
            });
        }
    }
    out
}

fn random_velocities(n: usize) -> Vec<[f32; 3]> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    (0..n)
        .map(|_| [(); 3].map(|_| rng.random_range(-0.01..0.01f32)))
        .collect()
}

impl BarnesHut {
    pub(crate) fn new(variant: Variant, size: Size) -> BarnesHut {
        let n = size.pick(512, 16384);
        let groups = size.pick(4, 132);
        // About 50 length units of pull in a step, at the median, whatever the density.
        let step = Step {
            dt: size.pick(2048.0, 512.0),
            soften: 64.0 * 64.0,
        };
        let input = random_bodies(n);
        let velocities = random_velocities(n);
        let tree = Octree::build(&input);
        let sums = tree.summaries(&input);
        let expected = step
            .all(&tree, &sums, &input, &velocities)
            .into_iter()
            .zip(&input)
            .map(|(to, body)| {
                let moved: f32 = (0..3).map(|k| (to[k] - body.at[k] as f32).powi(2)).sum();
                (to, moved.sqrt())
            })
            .collect();
        let cell_limit = tree.cells.len() as u32;
        let mut counters = vec![0; 2 + 2 * groups];
        counters[0] = 1;
        BarnesHut {
            bodies: input
                .iter()
                .flat_map(|b| [b.at[0], b.at[1], b.at[2], b.mass])
                .collect(),
            velocities: velocities
                .iter()
                .flat_map(|v| [v[0], v[1], v[2], 0.0].map(f32::to_bits))
                .collect(),
            children: vec![octree::NULL; 8 * cell_limit as usize],
            cells: vec![0; 4 * cell_limit as usize],
            counters,
            moved: vec![0; 4 * n],
            config: vec![
                n as u32,
                cell_limit,
                groups as u32,
                step.dt.to_bits(),
                step.soften.to_bits(),
            ],
            groups: [groups as u32, 1, 1],
            fences: variant == Variant::Fixed,
            input,
            expected_cells: cell_limit,
            expected,
        }
    }
}

#[postconditions]
impl BarnesHut {
    /// The tree holds every body exactly once, and as many cells as the host's.
    #[postcondition]
    fn tree_holds_every_body_once(&self, children: &[u32], counters: &[u32]) -> Result<(), String> {
        if counters[0] != self.expected_cells {
            return Err(format!(
                "{} cells were allocated, expected {}",
                counters[0], self.expected_cells
            ));
        }
        check::every_body_once(children, &self.input).map(|_| ())
    }

    /// Every cell's mass and weighted sums are its children's totals.
    #[postcondition]
    fn cells_sum_their_children(&self, children: &[u32], cells: &[u32]) -> Result<(), String> {
        let reachable = check::every_body_once(children, &self.input)?;
        check::sums(children, cells, &self.input, &reachable)
    }

    /// Every body's new position is the host's, within the tolerance above.
    #[postcondition]
    fn positions_match_the_host(&self, moved: &[u32]) -> Result<(), String> {
        for (i, (want, distance)) in self.expected.iter().enumerate() {
            let got: [f32; 3] = std::array::from_fn(|k| f32::from_bits(moved[4 * i + k]));
            let error = (0..3)
                .map(|k| (got[k] - want[k]).powi(2))
                .sum::<f32>()
                .sqrt();
            if error.is_nan() || error > RELATIVE * distance + ABSOLUTE {
                return Err(format!(
                    "body {i} is at {got:?}, expected {want:?} (off by {error}, allowed {})",
                    RELATIVE * distance + ABSOLUTE
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::octree::{Summary, LOCK, NULL};
    use super::*;

    /// The buffers a run leaves behind if it built `tree` and `sums`, by the host.
    struct Outputs {
        children: Vec<u32>,
        cells: Vec<u32>,
        counters: Vec<u32>,
        moved: Vec<u32>,
    }

    fn outputs(app: &BarnesHut, tree: &Octree, sums: &[Summary]) -> Outputs {
        let velocities: Vec<[f32; 3]> = app
            .velocities
            .chunks_exact(4)
            .map(|v| [v[0], v[1], v[2]].map(f32::from_bits))
            .collect();
        let step = Step {
            dt: f32::from_bits(app.config[3]),
            soften: f32::from_bits(app.config[4]),
        };
        let moved = step.all(tree, sums, &app.input, &velocities);
        Outputs {
            children: tree.cells.concat(),
            cells: sums.concat(),
            counters: vec![tree.cells.len() as u32],
            moved: moved
                .iter()
                .flat_map(|p| [p[0], p[1], p[2], 0.0].map(f32::to_bits))
                .collect(),
        }
    }

    fn verdicts(app: &BarnesHut, out: &Outputs) -> [Result<(), String>; 3] {
        [
            app.tree_holds_every_body_once(&out.children, &out.counters),
            app.cells_sum_their_children(&out.children, &out.cells),
            app.positions_match_the_host(&out.moved),
        ]
    }

    fn small() -> (BarnesHut, Octree) {
        let app = BarnesHut::new(Variant::Fixed, Size::Small);
        let tree = Octree::build(&app.input);
        (app, tree)
    }

    #[test]
    fn a_correct_run_passes() {
        let (app, tree) = small();
        let sums = tree.summaries(&app.input);
        assert_eq!(
            verdicts(&app, &outputs(&app, &tree, &sums)),
            [Ok(()), Ok(()), Ok(())]
        );
    }

    /// A body lost in the tree build (its slot overwritten by a subtree's builder) is caught
    /// by the tree check, and its neighbours move beyond the positions' tolerance.
    #[test]
    fn a_lost_body_fails_every_postcondition() {
        let (app, mut tree) = small();
        let slot = tree.cells.iter().flatten().position(|c| *c == 7).unwrap();
        tree.cells[slot / 8][slot % 8] = NULL;
        let sums = tree.summaries(&app.input);
        let [tree_ok, sums_ok, positions_ok] = verdicts(&app, &outputs(&app, &tree, &sums));
        assert_eq!(
            tree_ok.unwrap_err(),
            "body 7 is in the tree 0 times, expected once"
        );
        assert!(sums_ok.is_err());
        assert!(positions_ok.unwrap_err().starts_with("body "));
    }

    /// A parent that read a child's ready flag and then its old, zero, centre of mass.
    #[test]
    fn a_stale_centre_of_mass_fails_the_sums_and_the_positions() {
        let (app, tree) = small();
        let mut sums = tree.summaries(&app.input);
        let leafy = sums.len() - 1;
        sums[leafy][1..].fill(0);
        for cell in (0..leafy).rev() {
            sums[cell] = octree::summarize(&tree.cells[cell], &app.input, &sums);
        }
        let [tree_ok, sums_ok, positions_ok] = verdicts(&app, &outputs(&app, &tree, &sums));
        assert_eq!(tree_ok, Ok(()));
        assert!(sums_ok
            .unwrap_err()
            .starts_with(&format!("cell {leafy} has mass")));
        assert!(positions_ok.is_err());
    }

    #[test]
    fn a_slot_left_locked_fails_the_tree() {
        let (app, tree) = small();
        let sums = tree.summaries(&app.input);
        let mut out = outputs(&app, &tree, &sums);
        out.children[3] = LOCK;
        assert_eq!(
            app.tree_holds_every_body_once(&out.children, &out.counters)
                .unwrap_err(),
            "slot 3 of cell 0 was left locked"
        );
    }

    #[test]
    fn too_many_cells_fail_the_tree() {
        let (app, tree) = small();
        let sums = tree.summaries(&app.input);
        let mut out = outputs(&app, &tree, &sums);
        out.counters[0] += 1;
        assert!(app
            .tree_holds_every_body_once(&out.children, &out.counters)
            .unwrap_err()
            .ends_with("cells were allocated, expected 240"));
    }
}
