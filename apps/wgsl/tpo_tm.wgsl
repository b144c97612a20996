// tpo-tm: dynamic task management with a mutex-protected shared queue, after Tzeng, Patney
// and Owens ("Task management for irregular-parallel workloads on the GPU", HPG 2010).
// Tasks form a binary tree: executing task i below the depth limit enqueues 2i and 2i + 1.
// Idiom: thread 0 of a workgroup takes the queue's lock (compare-exchange), dequeues or
// enqueues, releases it (a store).
// Bug (FENCES = false): the queue's slots and indices are relaxed atomics not ordered with the
// lock, so the next holder can see the new tail but an old slot: a task runs twice and
// another never (the workgroups then wait for it until the watchdog stops them), or the
// indices go back.
// Fix (FENCES = true): storageBarrier() after taking and before releasing the lock (relies on
// the platform, as in cbe-dot).
override FENCES: bool = false;

const EMPTY: u32 = 0u;

// queue_state: [0] lock, [1] head, [2] tail, [3] tasks completed.
@group(0) @binding(0) var<storage, read_write> queue: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> state: array<atomic<u32>, 4>;
@group(0) @binding(2) var<storage, read_write> executed: array<atomic<u32>>;

var<workgroup> shared_task: u32;
var<workgroup> shared_done: u32;

fn fence() {
    if FENCES {
        storageBarrier();
    } else {
        workgroupBarrier();
    }
}

fn lock(lid: u32) {
    if lid == 0u {
        while !atomicCompareExchangeWeak(&state[0], 0u, 1u).exchanged {
        }
    }
    fence();
}

fn unlock(lid: u32) {
    fence();
    if lid == 0u {
        atomicStore(&state[0], 0u);
    }
}

// Tasks are numbered 1..arrayLength(&executed); a task below the last level has children.
fn has_children(task: u32) -> bool {
    return task * 2u + 1u < arrayLength(&executed);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let total = arrayLength(&executed) - 1u;
    loop {
        lock(lid);
        if lid == 0u {
            shared_task = EMPTY;
            let head = atomicLoad(&state[1]);
            if head < atomicLoad(&state[2]) {
                shared_task = atomicLoad(&queue[head]);
                atomicStore(&state[1], head + 1u);
            }
        }
        unlock(lid);
        let task = workgroupUniformLoad(&shared_task);
        if task != EMPTY {
            if has_children(task) {
                lock(lid);
                if lid == 0u {
                    let tail = atomicLoad(&state[2]);
                    atomicStore(&queue[tail], task * 2u);
                    atomicStore(&queue[tail + 1u], task * 2u + 1u);
                    atomicStore(&state[2], tail + 2u);
                }
                unlock(lid);
            }
            if lid == 0u {
                atomicAdd(&executed[min(task, total)], 1u);
                atomicAdd(&state[3], 1u);
            }
        }
        if lid == 0u {
            shared_done = u32(atomicLoad(&state[3]) >= total);
        }
        if workgroupUniformLoad(&shared_done) == 1u {
            break;
        }
    }
}
