// cbe-dot's critical section reduced to its synchronization, with the lock and the total in
// one buffer DIST words apart: does where the two words sit decide whether the missing
// fences show? Thread 0 of each workgroup takes the lock (word DIST), adds 1 to the total
// (word 0) with a relaxed load and store, and releases the lock with a store.
override FENCES: bool = false;
override DIST: u32 = 1u;

@group(0) @binding(0) var<storage, read_write> words: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        while !atomicCompareExchangeWeak(&words[DIST], 0u, 1u).exchanged {
        }
    }
    if FENCES {
        storageBarrier();
    }
    if lid == 0u {
        atomicStore(&words[0], atomicLoad(&words[0]) + 1u);
    }
    if FENCES {
        storageBarrier();
    }
    if lid == 0u {
        atomicStore(&words[DIST], 0u);
    }
}
