//! tpo-tm: dynamic task management with a mutex-protected shared queue (Tzeng, Patney and
//! Owens). See apps/wgsl/tpo_tm.wgsl.

use crate::{Size, Variant};
use wgstress_macros::{postconditions, Application};

pub(crate) const NAME: &str = "tpo-tm";
pub(crate) const SUMMARY: &str =
    "task tree run from a mutex-protected shared queue (Tzeng, Patney, Owens)";

#[derive(Clone, Application)]
#[wgstress(name = "tpo-tm", shader = "wgsl/tpo_tm.wgsl")]
pub(crate) struct TaskQueue {
    #[storage(binding = 0)]
    queue: Vec<u32>,
    #[storage(binding = 1)]
    state: Vec<u32>,
    #[storage(binding = 2)]
    executed: Vec<u32>,
    #[dispatch]
    groups: [u32; 3],
    #[constant(name = "FENCES")]
    fences: bool,
}

impl TaskQueue {
    pub(crate) fn new(variant: Variant, size: Size) -> TaskQueue {
        // Tasks 1..2^levels: a complete binary tree; slot 0 of `executed` is unused.
        let tasks = 1usize << size.pick(10, 14);
        let mut queue = vec![0; tasks + 2];
        queue[0] = 1;
        TaskQueue {
            queue,
            state: vec![0, 0, 1, 0],
            executed: vec![0; tasks],
            groups: [size.pick(8, 132), 1, 1],
            fences: variant == Variant::Fixed,
        }
    }
}

#[postconditions]
impl TaskQueue {
    #[postcondition]
    fn every_task_ran_once(&self, executed: &[u32]) -> Result<(), String> {
        match executed.iter().skip(1).position(|n| *n != 1) {
            Some(i) => Err(format!(
                "task {} ran {} times, expected once",
                i + 1,
                executed[i + 1]
            )),
            None => Ok(()),
        }
    }
}
