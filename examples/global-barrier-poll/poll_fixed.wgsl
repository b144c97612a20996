// poll.wgsl with its four guarded variables atomic: the lock still orders nothing (WGSL's
// atomics are relaxed), but no load of them is hoisted or stale forever, and each
// read-modify-write is one atomic operation, so no update is lost.

struct Ticket {
    next: atomic<u32>,
    serving: atomic<u32>,
}

struct Barrier {
    arrived: atomic<u32>,
}

const ROUNDS: u32 = 8u;
const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read_write> ticket: Ticket;
@group(0) @binding(1) var<storage, read_write> count: atomic<u32>;
// 1 while the poll admits workgroups (the spec starts it at 1).
@group(0) @binding(2) var<storage, read_write> poll_open: atomic<u32>;
// 0 until the poll closes, then how many joined.
@group(0) @binding(3) var<storage, read_write> participants: atomic<u32>;
@group(0) @binding(4) var<storage, read_write> barrier: Barrier;
@group(0) @binding(5) var<storage, read_write> totals: array<atomic<u32>, ROUNDS>;

var<workgroup> joined: u32;
var<workgroup> members: u32;

fn lock() {
    let mine = atomicAdd(&ticket.next, 1u);
    while atomicLoad(&ticket.serving) != mine {
    }
}

fn unlock() {
    atomicAdd(&ticket.serving, 1u);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        lock();
        if atomicLoad(&poll_open) == 1u {
            joined = atomicAdd(&count, 1u);
        } else {
            joined = NONE;
        }
        unlock();
        if joined != NONE {
            lock();
            if atomicLoad(&poll_open) == 1u {
                atomicStore(&poll_open, 0u);
                atomicStore(&participants, atomicLoad(&count));
            }
            unlock();
            while atomicLoad(&participants) == 0u {
            }
            members = atomicLoad(&participants);
        }
    }
    let me = workgroupUniformLoad(&joined);
    if me == NONE {
        return;
    }
    let n = workgroupUniformLoad(&members);
    for (var round = 0u; round < ROUNDS; round++) {
        if lid == 0u {
            atomicAdd(&totals[round], 1u);
            atomicAdd(&barrier.arrived, 1u);
            while atomicLoad(&barrier.arrived) < (round + 1u) * n {
            }
        }
        workgroupBarrier();
    }
}

fn wgstress_assert(cond: bool) {}

// Every workgroup that joined counted once, and every round's total is the participants.
@compute @workgroup_size(1)
fn check() {
    wgstress_assert(atomicLoad(&participants) == atomicLoad(&count));
    for (var round = 0u; round < ROUNDS; round++) {
        wgstress_assert(atomicLoad(&totals[round]) == atomicLoad(&participants));
    }
}
