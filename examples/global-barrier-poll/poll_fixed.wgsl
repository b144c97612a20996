// poll.wgsl fixed: its four guarded variables atomic, and a storageBarrier() on each side
// of every section the lock guards. The atomics alone are not enough: WGSL's atomics are
// relaxed, so the lock orders nothing, and a workgroup that took it could still read the
// poll open after another closed it (on an H200, with the four atomic and no barriers, 216 of
// 17,225 stressed runs counted a participant more than the closer saw). The barriers give
// that order on NVIDIA (naga's storageBarrier() is device-scope there), not by the
// specification, whose barriers have workgroup scope.

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
    // Join the poll while it is open. The first invocation takes the lock; the sections it
    // guards are blocks of their own, so that the whole workgroup passes between them (where
    // a barrier may go).
    if lid == 0u {
        lock();
    }
    storageBarrier();
    if lid == 0u {
        if atomicLoad(&poll_open) == 1u {
            joined = atomicAdd(&count, 1u);
        } else {
            joined = NONE;
        }
    }
    storageBarrier();
    if lid == 0u {
        unlock();
    }
    let me = workgroupUniformLoad(&joined);
    if me == NONE {
        return;
    }
    // Close the poll, unless a participant already has, with how many joined.
    if lid == 0u {
        lock();
    }
    storageBarrier();
    if lid == 0u {
        if atomicLoad(&poll_open) == 1u {
            atomicStore(&poll_open, 0u);
            atomicStore(&participants, atomicLoad(&count));
        }
    }
    storageBarrier();
    if lid == 0u {
        unlock();
    }
    if lid == 0u {
        while atomicLoad(&participants) == 0u {
        }
        members = atomicLoad(&participants);
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
