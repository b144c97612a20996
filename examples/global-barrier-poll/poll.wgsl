// A global barrier whose occupancy poll runs under a ticket lock, in the pattern of public
// WebGPU global barriers: the lock's two counters are atomic, but what it guards is plain.
// Each workgroup takes the lock and joins the poll while it is open (`count`, `poll_open`);
// the first to take the lock again after joining closes the poll and publishes how many
// joined (`participants`); the participants then meet at a barrier once a round, and before
// each meeting every one of them adds 1 to the round's total (`totals`, plain too).
//
// Four plain variables, and each is a bug: a plain `participants` read in a spin is a load
// a compiler may hoist out of the loop (a hang); plain `count` and `poll_open` under a lock
// whose atomics are relaxed may be read stale by the next holder; and the totals lose
// updates. poll_fixed.wgsl makes all four atomic and puts a barrier on each side of the
// lock's sections; `wgstress fences poll.toml` finds which of them a fix needs, together.

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
@group(0) @binding(1) var<storage, read_write> count: u32;
// 1 while the poll admits workgroups (the spec starts it at 1).
@group(0) @binding(2) var<storage, read_write> poll_open: u32;
// 0 until the poll closes, then how many joined.
@group(0) @binding(3) var<storage, read_write> participants: u32;
@group(0) @binding(4) var<storage, read_write> barrier: Barrier;
@group(0) @binding(5) var<storage, read_write> totals: array<u32, ROUNDS>;

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
    if lid == 0u {
        if poll_open == 1u {
            joined = count;
            count = count + 1u;
        } else {
            joined = NONE;
        }
    }
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
    if lid == 0u {
        if poll_open == 1u {
            poll_open = 0u;
            participants = count;
        }
    }
    if lid == 0u {
        unlock();
    }
    if lid == 0u {
        while participants == 0u {
        }
        members = participants;
    }
    let n = workgroupUniformLoad(&members);
    for (var round = 0u; round < ROUNDS; round++) {
        if lid == 0u {
            totals[round] = totals[round] + 1u;
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
    wgstress_assert(participants == count);
    for (var round = 0u; round < ROUNDS; round++) {
        wgstress_assert(totals[round] == participants);
    }
}
