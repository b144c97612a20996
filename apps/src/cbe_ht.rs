//! cbe-ht: hash table insertions under per-bucket spin locks ("CUDA by Example", appendix
//! A.2). See apps/wgsl/cbe_ht.wgsl.

use crate::{Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "cbe-ht";
pub(crate) const SUMMARY: &str =
    "hash table insertions under per-bucket spin locks (CUDA by Example)";

/// Keys per workgroup, as in the shader.
const PER_GROUP: usize = 64;

#[derive(Clone, Application)]
#[wgstress(name = "cbe-ht", shader = "wgsl/cbe_ht.wgsl")]
pub(crate) struct HashTable {
    #[storage(binding = 0)]
    keys: Vec<u32>,
    #[storage(binding = 1)]
    locks: Vec<u32>,
    #[storage(binding = 2)]
    heads: Vec<u32>,
    #[storage(binding = 3)]
    next: Vec<u32>,
    #[storage(binding = 4)]
    node_keys: Vec<u32>,
    #[storage(binding = 5)]
    node_values: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
}

impl HashTable {
    pub(crate) fn new(variant: Variant, size: Size) -> HashTable {
        let groups = size.pick(16, 264);
        let buckets = size.pick(16, 64);
        let n = groups * PER_GROUP;
        // Distinct keys: a multiplicative permutation of 1..=n.
        let keys = (1..=n as u32)
            .map(|k| k.wrapping_mul(2_654_435_761))
            .collect();
        HashTable {
            keys,
            locks: vec![0; buckets],
            heads: vec![0; buckets],
            next: vec![0; n],
            node_keys: vec![0; n],
            node_values: vec![0; n],
            groups: [groups as u32, 1, 1],
            fences: variant == Variant::Fixed,
        }
    }
}

#[postconditions]
impl HashTable {
    /// Walks every bucket's list: each key once, with its value, in its own bucket.
    #[postcondition]
    fn every_key_once_with_its_value(
        &self,
        heads: &[u32],
        next: &[u32],
        node_keys: &[u32],
        node_values: &[u32],
    ) -> Result<(), String> {
        let mut found = vec![0u32; self.keys.len()];
        for (bucket, head) in heads.iter().enumerate() {
            let mut node = *head;
            let mut steps = 0;
            while node != 0 {
                let i = node as usize - 1;
                if i >= found.len() || steps > found.len() {
                    return Err(format!("bucket {bucket}'s list is corrupt at node {node}"));
                }
                let key = node_keys[i];
                if node_values[i] != key.wrapping_mul(7).wrapping_add(3) {
                    return Err(format!(
                        "key {key} has value {}, expected {}",
                        node_values[i],
                        key.wrapping_mul(7).wrapping_add(3)
                    ));
                }
                found[i] += 1;
                node = next[i];
                steps += 1;
            }
        }
        match found.iter().position(|f| *f != 1) {
            Some(i) => Err(format!(
                "key {} is in the table {} times, expected once",
                self.keys[i], found[i]
            )),
            None => Ok(()),
        }
    }
}
