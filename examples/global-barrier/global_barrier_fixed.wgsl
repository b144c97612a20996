// global_barrier.wgsl, fixed: the cells are atomic, and the workgroup meets its leader at
// storageBarrier()s on both sides of the arrival, so a round's writes are made before the
// arrival and the next round's reads after the wait.
//
// The barriers alone are not the fix. Workgroups read the cells their neighbours wrote with
// plain loads, a data race in WGSL's memory model however the global barrier orders them
// (its atomics are relaxed, and a barrier orders memory within a workgroup only). On the
// H100 (Vulkan, through naga) the barriers-only version failed in about 2% of runs, raw:
// a round read a neighbour's cell of an earlier round. Atomic cells are what the
// specification orders, and what the H100 needed (`wgstress fences` on the buggy shader
// finds this fix: make `cells` atomic).

struct Discovery {
    // Bit 31: the poll is closed; the bits below: how many workgroups joined it.
    poll: atomic<u32>,
}

struct GlobalBarrier {
    arrived: atomic<u32>,
}

struct Config {
    rounds: u32,
}

const CLOSED: u32 = 0x80000000u;

@group(0) @binding(0) var<storage, read_write> discovery: Discovery;
@group(0) @binding(1) var<storage, read_write> barrier: GlobalBarrier;
// Two halves of n cells: each round reads one and writes the other.
@group(0) @binding(2) var<storage, read_write> cells: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> config: Config;

var<workgroup> joined: u32;
var<workgroup> participants: u32;

/// Joins the poll if it is still open, and closes it: this workgroup's index among the
/// participants and how many there are, or CLOSED.
fn join(d: ptr<storage, Discovery, read_write>) -> vec2<u32> {
    var seen = atomicLoad(&(*d).poll);
    loop {
        if (seen & CLOSED) != 0u {
            return vec2(CLOSED, 0u);
        }
        let tried = atomicCompareExchangeWeak(&(*d).poll, seen, seen + 1u);
        if tried.exchanged {
            break;
        }
        seen = tried.old_value;
    }
    // No one joins once the poll is closed: every participant closing it sees them all.
    let all = atomicOr(&(*d).poll, CLOSED) & ~CLOSED;
    return vec2(seen, all);
}

/// Waits until all `count` participants have arrived `epoch` times.
fn global_barrier(lid: u32, b: ptr<storage, GlobalBarrier, read_write>, epoch: u32, count: u32) {
    storageBarrier();
    if lid == 0u {
        atomicAdd(&(*b).arrived, 1u);
        while atomicLoad(&(*b).arrived) < epoch * count {
        }
    }
    storageBarrier();
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        let j = join(&discovery);
        joined = j.x;
        participants = j.y;
    }
    let me = workgroupUniformLoad(&joined);
    if me == CLOSED {
        return;
    }
    let count = workgroupUniformLoad(&participants);
    let n = arrayLength(&cells) / 2u;
    for (var round = 1u; round <= config.rounds; round++) {
        let last = (round - 1u) % 2u * n;
        let next = round % 2u * n;
        for (var i = me * 64u + lid; i < n; i += count * 64u) {
            atomicStore(&cells[next + i], atomicLoad(&cells[last + (i + 1u) % n]) + 1u);
        }
        global_barrier(lid, &barrier, round, count);
    }
}
