//! Stable hashes and seeds: FNV-1a over an item's description deals it to a shard, and
//! SplitMix64 derives its seed from the plan's master seed. std's hashers may change between
//! Rust releases; these do not, so every machine of a cluster deals and seeds alike.

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// SplitMix64's finaliser: a bijection that spreads every input bit over the output.
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of an item (its description's hash) under `master`.
pub fn item_seed(master: u64, item_hash: u64) -> u64 {
    mix(master ^ mix(item_hash))
}

/// The seed of attempt `attempt` of an item seeded `seed`: 0 is the item's own.
pub(crate) fn attempt_seed(seed: u64, attempt: u32) -> u64 {
    match attempt {
        0 => seed,
        n => mix(seed.wrapping_add(u64::from(n))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn seeds_depend_on_the_master_and_the_item_and_the_attempt() {
        let a = item_seed(1, fnv1a(b"run x"));
        assert_eq!(a, item_seed(1, fnv1a(b"run x")));
        assert_ne!(a, item_seed(2, fnv1a(b"run x")));
        assert_ne!(a, item_seed(1, fnv1a(b"run y")));
        assert_eq!(attempt_seed(a, 0), a);
        assert_ne!(attempt_seed(a, 1), attempt_seed(a, 2));
        // SplitMix64 from state 0 gives this first output.
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
    }
}
