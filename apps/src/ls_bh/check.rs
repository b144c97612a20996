//! Checks of the tree the GPU built, read back as words.

use super::octree::{summarize, Body, Summary, LOCK, NULL, TOP};

/// The box of slot `slot` of a level-`level` cell with corner `corner`: its corner.
fn slot_corner(corner: [u32; 3], level: u32, slot: usize) -> [u32; 3] {
    std::array::from_fn(|i| corner[i] + ((((slot >> i) & 1) as u32) << (TOP - level)))
}

/// Whether `p` lies in the box of side 2^(TOP - level) at `corner`.
fn inside(p: [u32; 3], corner: [u32; 3], level: u32) -> bool {
    (0..3).all(|i| p[i] >> (TOP - level) == corner[i] >> (TOP - level))
}

/// Walks the tree from the root: every body must be reached once, through valid slots, in the
/// slot its coordinates lead to. Returns the reachable cells.
pub(super) fn every_body_once(children: &[u32], bodies: &[Body]) -> Result<Vec<usize>, String> {
    let n = bodies.len();
    let limit = children.len() / 8;
    let mut found = vec![0u32; n];
    let mut seen = vec![false; limit];
    let mut reachable = Vec::new();
    let mut stack = vec![(0usize, 0u32, [0u32; 3])];
    while let Some((cell, level, corner)) = stack.pop() {
        if std::mem::replace(&mut seen[cell], true) {
            return Err(format!("cell {cell} is reached twice"));
        }
        reachable.push(cell);
        for (slot, &child) in children[8 * cell..8 * cell + 8].iter().enumerate() {
            let boxed = slot_corner(corner, level, slot);
            match child {
                NULL => {}
                LOCK => return Err(format!("slot {slot} of cell {cell} was left locked")),
                b if (b as usize) < n => {
                    if !inside(bodies[b as usize].at, boxed, level) {
                        return Err(format!(
                            "body {b} is in slot {slot} of cell {cell}, outside that slot's box"
                        ));
                    }
                    found[b as usize] += 1;
                }
                c if (c as usize - n) < limit && level < TOP => {
                    stack.push((c as usize - n, level + 1, boxed))
                }
                bad => {
                    return Err(format!(
                        "slot {slot} of cell {cell} holds {bad}, no body or cell"
                    ))
                }
            }
        }
    }
    match found.iter().position(|f| *f != 1) {
        Some(b) => Err(format!(
            "body {b} is in the tree {} times, expected once",
            found[b]
        )),
        None => Ok(reachable),
    }
}

/// Every reachable cell holds the totals of its slots' contents.
pub(super) fn sums(
    children: &[u32],
    cells: &[u32],
    bodies: &[Body],
    reachable: &[usize],
) -> Result<(), String> {
    let summaries: Vec<Summary> = cells
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    for &cell in reachable {
        let mut slots = [NULL; 8];
        slots.copy_from_slice(&children[8 * cell..8 * cell + 8]);
        let want = summarize(&slots, bodies, &summaries);
        if summaries[cell] != want {
            return Err(format!(
                "cell {cell} has mass and weighted sums {:?}, its children add up to {want:?}",
                summaries[cell]
            ));
        }
    }
    Ok(())
}
