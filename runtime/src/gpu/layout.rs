//! Buffer layouts: where each storage buffer of the application sits inside its allocation.
//!
//! Whether a missing fence shows can hang on where two words sit in memory: a lock and the
//! total it guards in one cache line (or one L2 slice) are ordered by the memory system itself,
//! the same words a few hundred bytes apart are not (bench/gpu-lock-distance.sh). An allocator
//! puts an application's small buffers next to each other, always in the same way. So every run
//! binds each storage buffer at one of `LAYOUTS` offsets: layout 0 is the buffers as allocated,
//! the others shift each buffer by its own multiple of the offset alignment, which moves every
//! buffer relative to every other.

use rand::{Rng, SeedableRng};
use wgstress_model::stress::params::LAYOUTS;

/// Largest shift, in offset-alignment steps.
const MAX_STEPS: u64 = 255;

/// Bytes to allocate beyond a buffer's size so that every layout's shift fits.
pub(crate) fn padding(align: u64) -> u64 {
    MAX_STEPS * align
}

/// The byte offset of buffer `index` in each layout. Drawn from a fixed seed, so that a run's
/// layout is the same in every session (and a `--seed` replay binds the same offsets).
pub(crate) fn offsets(index: usize, align: u64) -> [u64; LAYOUTS] {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x1a70_0000 + index as u64);
    let mut out = [0; LAYOUTS];
    for offset in out.iter_mut().skip(1) {
        *offset = rng.random_range(0..=MAX_STEPS) * align;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_zero_is_as_allocated_and_shifts_fit_the_padding() {
        for index in 0..8 {
            let o = offsets(index, 256);
            assert_eq!(o[0], 0);
            assert!(o.iter().all(|x| x % 256 == 0 && *x <= padding(256)));
            assert_eq!(o, offsets(index, 256), "fixed per buffer");
        }
    }

    #[test]
    fn buffers_move_relative_to_each_other() {
        let (a, b) = (offsets(0, 256), offsets(1, 256));
        let distances: std::collections::BTreeSet<i64> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| *x as i64 - *y as i64)
            .collect();
        assert!(distances.len() > LAYOUTS / 2, "{distances:?}");
    }
}
