//! The simplest scheduler that is not fair: threads run one at a time in id order, each to its
//! end, never preempted, as a one-thread CPU driver (llvmpipe with LP_NUM_THREADS=1) runs
//! workgroups. What it does to a test is certain, which makes it an oracle for runs on such a
//! driver: it is one of the executions LOBE allows (the running thread is the lowest that has
//! not terminated, and the only one that has stepped and not terminated), so every test LOBE
//! guarantees terminates under it (HSA's and OBE's too), and others may.

use crate::axb::AxbTest;
use crate::instr::LOCATIONS;

/// The first thread that never ends when the threads run alone in id order, each to its end
/// from the memory the ones before left; `None` when they all end.
pub fn first_stuck(test: &AxbTest) -> Option<usize> {
    let mut mem = [0u8; LOCATIONS];
    for (t, thread) in test.threads().iter().enumerate() {
        let mut pc = 0;
        // Alone, a thread's state is its pc and the memory: once one repeats, it loops.
        let mut seen = vec![[false; 1 << LOCATIONS]; thread.len()];
        while pc < thread.len() {
            let here = &mut seen[pc][usize::from(mem[0]) | usize::from(mem[1]) << 1];
            if *here {
                return Some(t);
            }
            *here = true;
            pc = thread[pc].step(pc, thread.len(), &mut mem).0;
        }
    }
    None
}

/// Per thread, whether it gives up when each thread runs alone in id order, executing at most
/// `bound` instructions (as the compiled test's threads do) from the memory the ones before
/// left, a thread that gave up included.
pub fn gives_up(test: &AxbTest, bound: u32) -> Vec<bool> {
    let mut mem = [0u8; LOCATIONS];
    test.threads()
        .iter()
        .map(|thread| {
            let mut pc = 0;
            let mut steps = 0;
            while pc < thread.len() && steps < bound {
                pc = thread[pc].step(pc, thread.len(), &mut mem).0;
                steps += 1;
            }
            pc < thread.len()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{first_stuck, gives_up};
    use crate::suite::seed_examples;

    #[test]
    fn in_id_order_the_consumer_before_its_producer_is_stuck_and_the_mutex_is_not() {
        let stuck = |name: &str| {
            first_stuck(
                &seed_examples()
                    .into_iter()
                    .find(|(n, _)| *n == name)
                    .unwrap()
                    .1,
            )
        };
        assert_eq!(stuck("mutex"), None);
        assert_eq!(stuck("prodcons-increasing"), None);
        assert_eq!(stuck("prodcons-decreasing"), Some(0));
        assert_eq!(stuck("prodcons-bidirectional"), Some(0));
        assert_eq!(stuck("dining-philosophers"), None);
    }

    #[test]
    fn a_thread_that_gave_up_leaves_memory_to_the_next_as_its_bound_found_it() {
        // Thread 0 spins on its own flag, toggling location 1 each round; thread 1 waits
        // for location 1 to be 1: after an odd bound thread 0 left it 1, after an even 0.
        let test = crate::AxbTest::parse(
            "THREAD0\natomic_exch_branch(1, 0, 1, 1)\natomic_exch_branch(1, 1, 0, 0)\n\
             THREAD1\natomic_chk_branch(1, 0, 0)\n",
        )
        .unwrap();
        assert_eq!(first_stuck(&test), Some(0));
        assert_eq!(gives_up(&test, 7), vec![true, false]);
        assert_eq!(gives_up(&test, 8), vec![true, true]);
    }
}
