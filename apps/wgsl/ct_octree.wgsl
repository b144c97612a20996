// ct-octree: work distribution with per-workgroup deques and work stealing, after Cederman
// and Tsigas ("On dynamic load balancing on graphics processors", the octree partitioning
// benchmark) and the work-stealing queue of Orr et al. (OOPSLA'15, section 4.3). Tasks stand
// for the octree cells to partition; executing one counts it.
// Idiom: the owner pushes and pops at the bottom of its deque; thieves steal from the top with
// a compare-exchange (Chase-Lev, without growth).
// Bug (FENCES = false): a push writes the task and then the bottom index, a steal reads the
// bottom and then the task: without fences a thief can see the new bottom and the old task
// (message passing), and a pop's bottom store can pass its top load (store buffering). Tasks
// are then run twice or lost.
// Fix (FENCES = true): storageBarrier() between those accesses (relies on the platform, as in
// cbe-dot). Every deque access is made by thread 0; the barriers stand between them in uniform
// control flow.
override FENCES: bool = false;

const EMPTY: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read_write> slots: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> tops: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> bottoms: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> executed: array<atomic<u32>>;

var<workgroup> shared_a: u32;
var<workgroup> shared_b: u32;
var<workgroup> shared_task: u32;

fn fence() {
    if FENCES {
        storageBarrier();
    } else {
        workgroupBarrier();
    }
}

// Every workgroup owns the same number of tasks and deque slots.
fn per_group(groups: u32) -> u32 {
    return arrayLength(&executed) / groups;
}

fn push(me: u32, base: u32, task: u32, lid: u32) {
    if lid == 0u {
        atomicStore(&slots[base + atomicLoad(&bottoms[me])], task);
    }
    fence();
    if lid == 0u {
        atomicStore(&bottoms[me], atomicLoad(&bottoms[me]) + 1u);
    }
}

fn pop(me: u32, base: u32, lid: u32) -> u32 {
    if lid == 0u {
        shared_task = EMPTY;
        let b = atomicLoad(&bottoms[me]);
        shared_b = b;
        if b > 0u {
            atomicStore(&bottoms[me], b - 1u);
        }
    }
    fence();
    if lid == 0u && shared_b > 0u {
        let b = shared_b - 1u;
        let t = atomicLoad(&tops[me]);
        if t < b {
            shared_task = atomicLoad(&slots[base + b]);
        } else if t == b {
            // The last task: race the thieves for it. A weak exchange may fail spuriously.
            let task = atomicLoad(&slots[base + b]);
            loop {
                let r = atomicCompareExchangeWeak(&tops[me], t, t + 1u);
                if r.exchanged {
                    shared_task = task;
                    break;
                }
                if r.old_value != t {
                    break;
                }
            }
            atomicStore(&bottoms[me], t + 1u);
        } else {
            atomicStore(&bottoms[me], t);
        }
    }
    return workgroupUniformLoad(&shared_task);
}

fn steal(victim: u32, groups: u32, lid: u32) -> u32 {
    if lid == 0u {
        shared_task = EMPTY;
        shared_a = atomicLoad(&tops[victim]);
    }
    fence();
    if lid == 0u {
        shared_b = atomicLoad(&bottoms[victim]);
    }
    fence();
    if lid == 0u && shared_a < shared_b {
        let t = shared_a;
        let task = atomicLoad(&slots[victim * per_group(groups) + t]);
        if atomicCompareExchangeWeak(&tops[victim], t, t + 1u).exchanged {
            shared_task = task;
        }
    }
    return workgroupUniformLoad(&shared_task);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let me = wid.x;
    let groups = n.x;
    let per = per_group(groups);
    let base = me * per;
    var pushed = 0u;
    var misses = 0u;
    for (var round = 0u; misses < 4u; round++) {
        // The owner makes tasks as it goes (two per round), so there is work to steal.
        for (var k = 0u; k < 2u && pushed < per; k++) {
            push(me, base, base + pushed, lid);
            pushed += 1u;
        }
        var task = pop(me, base, lid);
        if task == EMPTY && groups > 1u {
            task = steal((me + 1u + round * 7u) % groups, groups, lid);
        }
        if task != EMPTY {
            if lid == 0u {
                atomicAdd(&executed[min(task, arrayLength(&executed) - 1u)], 1u);
            }
        } else if pushed == per {
            misses += 1u;
        }
    }
}
