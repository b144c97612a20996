//! The simplest scheduler that is not fair: threads run one at a time in id order, each to its
//! end, never preempted, as a one-thread CPU driver (llvmpipe with LP_NUM_THREADS=1) runs
//! workgroups. What it does to a test is certain, which makes it an oracle for runs on such a
//! driver: it is one of the executions HSA allows (the lowest live thread always runs), so
//! every test HSA guarantees terminates under it, and others may too (the mutex does).

use crate::axb::{Test, LOCATIONS};

/// The first thread that never ends when the threads run alone in id order, each to its end
/// from the memory the ones before left; `None` when they all end.
pub fn first_stuck(test: &Test) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::first_stuck;
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
}
