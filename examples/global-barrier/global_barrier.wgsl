// A computation in rounds over every workgroup that can run at once, with a global barrier
// between rounds, in the pattern of portable inter-workgroup barriers: which workgroups take
// part is found out first (occupancy discovery). While the poll is open a starting
// workgroup's leader joins it, and closes it right after, so only workgroups that ran
// together join: all of them are resident, and the barrier never waits for one that cannot
// run. The others leave at once.
//
// The participants share out the cells: in round r every cell gets its neighbour's value of
// round r - 1, plus one, so after `rounds` rounds every cell holds `rounds`. At the barrier
// each leader arrives and waits until all have; its workgroup waits for it with
// workgroupBarrier(), which orders workgroup memory only. Nothing orders a round's writes
// before the arrival or the next round's reads after the wait, and the cells are plain
// memory that workgroups share (a data race in WGSL): on a GPU with a weak memory model a
// participant can read a neighbour's value of an earlier round. global_barrier_fixed.wgsl
// is the fix: atomic cells.
// global_barrier_fixed.wgsl is the fix.

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
@group(0) @binding(2) var<storage, read_write> cells: array<u32>;
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
    workgroupBarrier();
    if lid == 0u {
        atomicAdd(&(*b).arrived, 1u);
        while atomicLoad(&(*b).arrived) < epoch * count {
        }
    }
    workgroupBarrier();
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
            cells[next + i] = cells[last + (i + 1u) % n] + 1u;
        }
        global_barrier(lid, &barrier, round, count);
    }
}
