//! ct-octree: work distribution over per-workgroup deques with work stealing (Cederman and
//! Tsigas). See apps/wgsl/ct_octree.wgsl.

use crate::{Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "ct-octree";
pub(crate) const SUMMARY: &str =
    "per-workgroup deques with work stealing (Cederman and Tsigas octree partitioning)";

#[derive(Clone, Application)]
#[wgstress(name = "ct-octree", shader = "wgsl/ct_octree.wgsl")]
pub(crate) struct WorkStealing {
    #[storage(binding = 0)]
    slots: Vec<u32>,
    #[storage(binding = 1)]
    tops: Vec<u32>,
    #[storage(binding = 2)]
    bottoms: Vec<u32>,
    #[storage(binding = 3)]
    executed: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
}

impl WorkStealing {
    pub(crate) fn new(variant: Variant, size: Size) -> WorkStealing {
        let groups = size.pick(16, 132);
        let tasks = groups * size.pick(64, 256);
        WorkStealing {
            slots: vec![u32::MAX; tasks],
            tops: vec![0; groups],
            bottoms: vec![0; groups],
            executed: vec![0; tasks],
            groups: [groups as u32, 1, 1],
            fences: variant == Variant::Fixed,
        }
    }
}

#[postconditions]
impl WorkStealing {
    #[postcondition]
    fn every_task_ran_once(&self, executed: &[u32]) -> Result<(), String> {
        match executed.iter().position(|n| *n != 1) {
            Some(task) => Err(format!(
                "task {task} ran {} times, expected once",
                executed[task]
            )),
            None => Ok(()),
        }
    }
}
