//! The host's Barnes-Hut: the octree, cell summaries and traversal of apps/wgsl/ls_bh.wgsl,
//! step for step, so that the host computes what a correct GPU run computes. The tree's shape
//! depends only on the bodies (not on the order of insertion), and the traversal visits the
//! children in slot order, so the GPU and the host make the same interactions in the same
//! order; only the rounding of single operations can differ.

/// Coordinates are below 2^(TOP + 1); a level-l cell has side 2^(TOP + 1 - l).
pub(super) const TOP: u32 = 13;
/// An empty slot.
pub(super) const NULL: u32 = u32::MAX;
/// A slot whose lock was never released.
pub(super) const LOCK: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Body {
    pub at: [u32; 3],
    pub mass: u32,
}

/// Mass, then the mass-weighted sums of x, y and z: what the GPU stores per cell.
pub(super) type Summary = [u32; 4];

/// Which of a level-`level` cell's children holds `p`.
pub(super) fn octant(p: [u32; 3], level: u32) -> usize {
    let bit = |c: u32| ((c >> (TOP - level)) & 1) as usize;
    bit(p[0]) | (bit(p[1]) << 1) | (bit(p[2]) << 2)
}

/// What a slot holds: mass and weighted sums of a body, or a cell's summary.
pub(super) fn content(child: u32, bodies: &[Body], cells: &[Summary]) -> Summary {
    let n = bodies.len() as u32;
    match child {
        NULL => [0; 4],
        b if b < n => {
            let b = bodies[b as usize];
            [b.mass, b.at[0] * b.mass, b.at[1] * b.mass, b.at[2] * b.mass]
        }
        c => cells[(c - n) as usize],
    }
}

/// Sums the contents of a cell's slots.
pub(super) fn summarize(slots: &[u32; 8], bodies: &[Body], cells: &[Summary]) -> Summary {
    slots.iter().fold([0; 4], |acc, child| {
        let c = content(*child, bodies, cells);
        std::array::from_fn(|i| acc[i].wrapping_add(c[i]))
    })
}

/// An octree in the GPU's encoding: a slot holds NULL, a body, or `bodies + cell`.
pub(super) struct Octree {
    pub cells: Vec<[u32; 8]>,
    n: u32,
}

impl Octree {
    /// Inserts the bodies in order; the shape is the one any order gives.
    pub(super) fn build(bodies: &[Body]) -> Octree {
        let mut tree = Octree {
            cells: vec![[NULL; 8]],
            n: bodies.len() as u32,
        };
        for body in 0..tree.n {
            tree.insert(bodies, body);
        }
        tree
    }

    fn insert(&mut self, bodies: &[Body], body: u32) {
        let (mut cell, mut level) = (0, 0);
        loop {
            let slot = octant(bodies[body as usize].at, level);
            match self.cells[cell][slot] {
                NULL => return self.cells[cell][slot] = body,
                child if child >= self.n => {
                    cell = (child - self.n) as usize;
                    level += 1;
                }
                old => return self.cells[cell][slot] = self.split(bodies, old, body, level),
            }
        }
    }

    /// The subtree below a level-`level` cell's slot that separates two bodies.
    fn split(&mut self, bodies: &[Body], old: u32, new: u32, level: u32) -> u32 {
        let (a, b) = (bodies[old as usize].at, bodies[new as usize].at);
        let top = self.allocate();
        let mut cell = top;
        for l in level + 1..=TOP {
            let (oa, ob) = (octant(a, l), octant(b, l));
            if oa != ob {
                self.cells[cell][oa] = old;
                self.cells[cell][ob] = new;
                break;
            }
            let next = self.allocate();
            self.cells[cell][oa] = self.n + next as u32;
            cell = next;
        }
        self.n + top as u32
    }

    fn allocate(&mut self) -> usize {
        self.cells.push([NULL; 8]);
        self.cells.len() - 1
    }

    /// Every cell's summary; children come after their parents, so from the last cell back.
    pub(super) fn summaries(&self, bodies: &[Body]) -> Vec<Summary> {
        let mut out = vec![[0; 4]; self.cells.len()];
        for cell in (0..self.cells.len()).rev() {
            out[cell] = summarize(&self.cells[cell], bodies, &out);
        }
        out
    }
}

/// The physics constants of the step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub dt: f32,
    pub soften: f32,
}

impl Step {
    fn pull(&self, acc: [f32; 3], p: [f32; 3], q: [f32; 3], mass: f32) -> [f32; 3] {
        let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let inv = 1.0 / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + self.soften).sqrt();
        let k = mass * inv * inv * inv;
        std::array::from_fn(|i| acc[i] + d[i] * k)
    }

    /// Body `me`'s acceleration, by the GPU's traversal (theta = 0.5, decided in integers).
    pub(super) fn acceleration(
        &self,
        tree: &Octree,
        sums: &[Summary],
        bodies: &[Body],
        me: usize,
    ) -> [f32; 3] {
        let n = bodies.len() as u32;
        let p = bodies[me].at;
        let pf = p.map(|c| c as f32);
        let mut acc = [0.0; 3];
        let mut stack = vec![(n, [0u32; 3], 0u32)];
        while let Some((node, corner, level)) = stack.pop() {
            if node < n {
                if node as usize != me {
                    let b = bodies[node as usize];
                    acc = self.pull(acc, pf, b.at.map(|c| c as f32), b.mass as f32);
                }
                continue;
            }
            let cell = (node - n) as usize;
            let side = 1u32 << (TOP + 1 - level);
            let centre = corner.map(|c| c + side / 2);
            if 4 * side * side < distance2(p, centre) {
                let s = sums[cell];
                let m = s[0] as f32;
                let com = [s[1] as f32 / m, s[2] as f32 / m, s[3] as f32 / m];
                acc = self.pull(acc, pf, com, m);
                continue;
            }
            for o in (0..8).rev() {
                let child = tree.cells[cell][o];
                if child != NULL {
                    let corner =
                        std::array::from_fn(|i| corner[i] + ((o as u32 >> i) & 1) * (side / 2));
                    stack.push((child, corner, level + 1));
                }
            }
        }
        acc
    }

    /// Where every body is after one step.
    pub(super) fn all(
        &self,
        tree: &Octree,
        sums: &[Summary],
        bodies: &[Body],
        velocities: &[[f32; 3]],
    ) -> Vec<[f32; 3]> {
        (0..bodies.len())
            .map(|me| {
                let acc = self.acceleration(tree, sums, bodies, me);
                let (p, v) = (bodies[me].at, velocities[me]);
                std::array::from_fn(|i| p[i] as f32 + (v[i] + acc[i] * self.dt) * self.dt)
            })
            .collect()
    }
}

fn distance2(a: [u32; 3], b: [u32; 3]) -> u32 {
    (0..3).map(|i| a[i].abs_diff(b[i]).pow(2)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(x: u32, y: u32, z: u32) -> Body {
        Body {
            at: [x, y, z],
            mass: 1,
        }
    }

    #[test]
    fn close_bodies_get_a_chain_of_cells() {
        // Both in octant 0 down to level 12, where x's bit 1 tells them apart.
        let bodies = [body(0, 0, 0), body(2, 0, 0)];
        let tree = Octree::build(&bodies);
        assert_eq!(tree.cells.len(), 13);
        assert_eq!(tree.cells[12][0], 0);
        assert_eq!(tree.cells[12][1], 1);
        let sums = tree.summaries(&bodies);
        assert_eq!(sums[0], [2, 2, 0, 0]);
    }

    #[test]
    fn the_shape_does_not_depend_on_the_order() {
        let bodies = [
            body(1, 2, 3),
            body(9000, 5, 5),
            body(9001, 5, 5),
            body(16000, 16000, 1),
        ];
        let reversed: Vec<Body> = bodies.iter().rev().copied().collect();
        let (a, b) = (Octree::build(&bodies), Octree::build(&reversed));
        assert_eq!(a.cells.len(), b.cells.len());
        assert_eq!(a.summaries(&bodies)[0], b.summaries(&reversed)[0]);
    }

    #[test]
    fn two_bodies_attract() {
        let bodies = [body(100, 100, 100), body(200, 100, 100)];
        let tree = Octree::build(&bodies);
        let sums = tree.summaries(&bodies);
        let step = Step {
            dt: 1.0,
            soften: 0.0,
        };
        let a = step.acceleration(&tree, &sums, &bodies, 0);
        assert!((a[0] - 1e-4).abs() < 1e-9, "{a:?}");
        assert_eq!([a[1], a[2]], [0.0, 0.0]);
    }
}
