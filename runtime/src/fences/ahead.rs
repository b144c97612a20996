//! Engines built ahead: the programs of the fixes the search says it may try next, compiled
//! on other threads while the device runs the trial at hand. Where the instrumented shader
//! is large, the driver's compile of a trial's pipeline takes longer than the trial's runs,
//! and a search spends more time building than running. Built ahead, the builds of one
//! ddmin level overlap each other and the runs of the level before.

use crate::error::{Result, RuntimeError};
use std::thread::JoinHandle;
use wgstress_fences::FixSet;

/// A build to run on a thread of its own.
pub(crate) type Job<T> = Box<dyn FnOnce() -> Result<T> + Send>;

/// Threads for building ahead on this machine: one fewer than its cores, the search's own
/// thread driving the device; at most eight (a ddmin level asks at most twice its parts, and
/// the first ones asked are what matter).
pub(crate) fn threads_here() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    (cores - 1).min(8)
}

/// Builds (of engines, `T`) under way or done, for the fixes asked for last.
pub(crate) struct Ahead<T: Send + 'static> {
    /// The fixes asked for last and their builds, in the order asked.
    wanted: Vec<(FixSet, JoinHandle<Result<T>>)>,
    /// Builds of fixes no longer asked for that were still running: each holds a thread
    /// until it ends, and what it built is dropped then.
    dropped: Vec<JoinHandle<Result<T>>>,
    /// Builds running at once, at most.
    threads: usize,
}

impl<T: Send + 'static> Ahead<T> {
    /// Building ahead on `threads` threads at most (none: nothing is built ahead).
    pub(crate) fn new(threads: usize) -> Ahead<T> {
        Ahead {
            wanted: Vec::new(),
            dropped: Vec::new(),
            threads,
        }
    }

    /// Asks for `fixes`, most likely first: builds of earlier asks that are not among them
    /// are let go, and each of them without a build gets one from `job` (none: it cannot be
    /// built ahead) while fewer than `held` engines are held and threads are free.
    pub(crate) fn want(
        &mut self,
        fixes: &[FixSet],
        held: usize,
        mut job: impl FnMut(&FixSet) -> Option<Job<T>>,
    ) {
        let (kept, let_go): (Vec<_>, Vec<_>) = std::mem::take(&mut self.wanted)
            .into_iter()
            .partition(|(fix, _)| fixes.contains(fix));
        self.wanted = kept;
        self.dropped
            .extend(let_go.into_iter().map(|(_, build)| build));
        self.reap();
        for fix in fixes {
            let running = self.running();
            if running >= self.threads || self.wanted.len() >= held.min(self.threads) {
                break;
            }
            if self.wanted.iter().any(|(f, _)| f == fix) {
                continue;
            }
            if let Some(job) = job(fix) {
                self.wanted.push((fix.clone(), std::thread::spawn(job)));
            }
        }
    }

    /// The engine built ahead for `fix`, waiting for its build to end; none if it was not
    /// asked for.
    pub(crate) fn take(&mut self, fix: &FixSet) -> Option<Result<T>> {
        let at = self.wanted.iter().position(|(f, _)| f == fix)?;
        let (_, build) = self.wanted.remove(at);
        Some(joined(build))
    }

    /// Lets every build go: the trials are over for now (a verification runs next).
    pub(crate) fn let_go(&mut self) {
        self.want(&[], 0, |_| None);
    }

    /// Waits for every build and drops what they built: before the device is wanted whole
    /// (the cost step), and before the lab goes.
    pub(crate) fn clear(&mut self) {
        let wanted = std::mem::take(&mut self.wanted).into_iter().map(|(_, b)| b);
        for build in wanted.chain(std::mem::take(&mut self.dropped)) {
            drop(joined(build));
        }
    }

    /// Builds running now.
    fn running(&self) -> usize {
        let wanted = self.wanted.iter().map(|(_, b)| b);
        wanted
            .chain(&self.dropped)
            .filter(|b| !b.is_finished())
            .count()
    }

    /// Joins the let-go builds that have ended.
    fn reap(&mut self) {
        let (ended, running): (Vec<_>, Vec<_>) = std::mem::take(&mut self.dropped)
            .into_iter()
            .partition(JoinHandle::is_finished);
        self.dropped = running;
        for build in ended {
            drop(joined(build));
        }
    }
}

impl<T: Send + 'static> Drop for Ahead<T> {
    /// No thread outlives the lab: a driver torn down at exit under a compile can crash.
    fn drop(&mut self) {
        self.clear();
    }
}

fn joined<T>(build: JoinHandle<Result<T>>) -> Result<T> {
    build.join().unwrap_or_else(|_| {
        Err(RuntimeError::Device(
            "an engine built ahead panicked".into(),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn fix(site: usize) -> FixSet {
        FixSet::barriers(&[site])
    }

    /// A build of `site` that ends when `open` is set, counting itself in `started`.
    fn gated(site: usize, open: &Arc<AtomicBool>) -> Option<Job<usize>> {
        let open = open.clone();
        Some(Box::new(move || {
            while !open.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            Ok(site)
        }))
    }

    #[test]
    fn the_first_fixes_asked_are_built_within_the_threads_and_taken_by_fix() {
        let open = Arc::new(AtomicBool::new(false));
        let mut ahead = Ahead::new(2);
        let mut asked = Vec::new();
        let fixes: Vec<FixSet> = (0..4).map(fix).collect();
        ahead.want(&fixes, 8, |f| {
            asked.push(f.sites[0]);
            gated(f.sites[0], &open)
        });
        assert_eq!(asked, [0, 1], "two threads: the two most likely");
        open.store(true, Ordering::SeqCst);
        assert_eq!(ahead.take(&fix(1)).unwrap().unwrap(), 1);
        assert!(ahead.take(&fix(1)).is_none(), "taken once");
        assert!(ahead.take(&fix(3)).is_none(), "never built");
        assert_eq!(ahead.take(&fix(0)).unwrap().unwrap(), 0);
    }

    #[test]
    fn builds_let_go_hold_their_threads_until_they_end() {
        let open = Arc::new(AtomicBool::new(false));
        let mut ahead = Ahead::new(2);
        ahead.want(&[fix(0), fix(1)], 8, |f| gated(f.sites[0], &open));
        // The next level asks for others: both builds still run, so none starts.
        let mut started = Vec::new();
        ahead.want(&[fix(2), fix(3)], 8, |f| {
            started.push(f.sites[0]);
            gated(f.sites[0], &open)
        });
        assert!(started.is_empty(), "{started:?}");
        assert!(ahead.take(&fix(0)).is_none(), "let go");
        open.store(true, Ordering::SeqCst);
        while ahead.running() > 0 {
            std::thread::yield_now();
        }
        ahead.want(&[fix(2), fix(3)], 8, |f| {
            started.push(f.sites[0]);
            gated(f.sites[0], &open)
        });
        assert_eq!(started, [2, 3]);
        assert!(ahead.dropped.is_empty(), "the ended builds were joined");
    }

    #[test]
    fn a_fix_asked_again_keeps_its_build_and_held_engines_are_bounded() {
        let open = Arc::new(AtomicBool::new(true));
        let mut ahead = Ahead::new(4);
        let mut builds = 0;
        for _ in 0..3 {
            ahead.want(&[fix(0), fix(1), fix(2)], 2, |f| {
                builds += 1;
                gated(f.sites[0], &open)
            });
        }
        assert_eq!(builds, 2, "at most two held, each built once");
        // A build that failed says why; one that panicked is an error too.
        ahead.want(&[fix(5), fix(6)], 8, |f| {
            let site = f.sites[0];
            Some(Box::new(move || match site {
                5 => Err(RuntimeError::Input("no".into())),
                _ => panic!("a build panicked"),
            }))
        });
        assert!(ahead.take(&fix(5)).unwrap().is_err());
        assert!(ahead.take(&fix(6)).unwrap().is_err());
        ahead.clear();
        assert!(ahead.wanted.is_empty() && ahead.dropped.is_empty());
    }

    #[test]
    fn without_threads_nothing_is_built_ahead() {
        let mut ahead: Ahead<usize> = Ahead::new(0);
        ahead.want(&[fix(0)], 8, |_| panic!("no build without a thread"));
        assert!(ahead.take(&fix(0)).is_none());
    }
}
