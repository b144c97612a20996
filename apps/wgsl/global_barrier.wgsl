// global-barrier: an iterative stencil whose iterations are separated by an inter-workgroup
// barrier, after Xiao and Feng ("Inter-block GPU communication via fast barrier
// synchronization", the lock-free barrier), with occupancy discovery after Sorensen et al.
// (OOPSLA'16) so that the barrier only waits for workgroups that are running.
// Idiom: discovery opens a poll that running workgroups join; a joiner closes it once no
// workgroup has joined for a while. The participants then share the work, and at each barrier
// every participant sets its arrival flag, participant 0 waits for all of them and sets every
// release flag.
// Stress workgroups never join the poll, and workgroups that find it closed leave at once:
// nothing waits for a workgroup that may not be resident (the gpu-progress-models paper).
// Bug (FENCES = false): the barrier's flags are relaxed atomics: a participant can pass the
// barrier and still read a neighbour's cell from the previous iteration.
// Fix (FENCES = true): storageBarrier() before arriving, between participant 0's wait and its
// release, and after leaving (relies on the platform, as in cbe-dot). The cells are atomics in
// both variants: with plain loads and stores, the fences alone did not fix it on the H100
// (544 of 1728 runs failed), because a plain load may be served from a stale line of the
// SM's L1 cache; relaxed atomics are coherent across workgroups. This part of the fix is
// "make the access atomic", not "add a fence".
override FENCES: bool = false;

const CLOSED: u32 = 0x80000000u;
const NONE: u32 = 0xffffffffu;

struct Config {
    cells: u32,
    iterations: u32,
}

@group(0) @binding(0) var<storage, read_write> grid: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> poll: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> arrive: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> release: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> config: Config;

var<workgroup> shared_id: u32;
var<workgroup> shared_count: u32;

fn fence() {
    if FENCES {
        storageBarrier();
    } else {
        workgroupBarrier();
    }
}

// Joins the poll if it is still open; returns this workgroup's id among the participants.
// One word holds the closed bit and the count, so joining and closing are single atomics.
fn discover(lid: u32) -> u32 {
    if lid == 0u {
        shared_id = NONE;
        var seen = atomicLoad(&poll);
        loop {
            if (seen & CLOSED) != 0u {
                break;
            }
            let r = atomicCompareExchangeWeak(&poll, seen, seen + 1u);
            if r.exchanged {
                shared_id = seen;
                break;
            }
            seen = r.old_value;
        }
        if shared_id != NONE {
            // Keep the poll open until no workgroup has joined for a while: a joiner is running,
            // so waiting for it is safe, and more participants share the work.
            var last = seen + 1u;
            var quiet = 0u;
            while quiet < 64u && (last & CLOSED) == 0u {
                let now = atomicLoad(&poll);
                quiet = select(0u, quiet + 1u, now == last);
                last = now;
            }
            shared_count = atomicOr(&poll, CLOSED) & ~CLOSED;
        }
    }
    return workgroupUniformLoad(&shared_id);
}

fn global_barrier(id: u32, count: u32, epoch: u32, lid: u32) {
    fence();
    if lid == 0u {
        atomicStore(&arrive[id], epoch);
        if id == 0u {
            for (var i = 1u; i < count; i++) {
                while atomicLoad(&arrive[i]) != epoch {
                }
            }
        }
    }
    fence();
    if lid == 0u {
        if id == 0u {
            for (var i = 1u; i < count; i++) {
                atomicStore(&release[i], epoch);
            }
        } else {
            while atomicLoad(&release[id]) != epoch {
            }
        }
    }
    fence();
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
    let id = discover(lid);
    if id == NONE {
        return;
    }
    let count = workgroupUniformLoad(&shared_count);
    let n = config.cells;
    for (var k = 0u; k < config.iterations; k++) {
        let src = (k % 2u) * n;
        let dst = n - src;
        for (var i = id * 256u + lid; i < n; i += count * 256u) {
            let left = atomicLoad(&grid[src + (i + n - 1u) % n]);
            let right = atomicLoad(&grid[src + (i + 1u) % n]);
            atomicStore(&grid[dst + i], left + 2u * atomicLoad(&grid[src + i]) + right);
        }
        global_barrier(id, count, k + 1u, lid);
    }
}
