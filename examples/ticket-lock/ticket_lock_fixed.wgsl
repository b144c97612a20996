// ticket_lock.wgsl, fixed: the counters are atomic, and storageBarrier() is where the
// workgroup waits for its leader, so that the counters are read only after the lock was
// taken and written before it is handed on.
//
// The barriers alone are not the fix. Two workgroups touch a counter with plain loads and
// stores, which WGSL's memory model calls a data race however the lock orders them (its
// atomics are relaxed, and a barrier orders memory within a workgroup only). On the H100
// (Vulkan, through naga) the barriers-only version lost updates in every run: each
// invocation's load of its counter returned its own store of the round before, not the
// other workgroups' later ones. Atomic counters, loaded and stored under the lock, are what
// the specification orders, and what the H100 needed (`wgstress fences` on the buggy shader
// finds this fix: make `counters` atomic).

struct TicketLock {
    next: atomic<u32>,
    serving: atomic<u32>,
}

struct Config {
    rounds: u32,
}

@group(0) @binding(0) var<storage, read_write> locks: array<TicketLock>;
@group(0) @binding(1) var<storage, read_write> counters: array<atomic<u32>, 64>;
@group(0) @binding(2) var<storage, read> config: Config;

/// Takes a ticket and waits until `lock` serves it; returns the ticket.
fn acquire(lock: ptr<storage, TicketLock, read_write>) -> u32 {
    var ticket = atomicLoad(&(*lock).next);
    var taken = atomicCompareExchangeWeak(&(*lock).next, ticket, ticket + 1u);
    while !taken.exchanged {
        ticket = taken.old_value;
        taken = atomicCompareExchangeWeak(&(*lock).next, ticket, ticket + 1u);
    }
    while atomicLoad(&(*lock).serving) != ticket {
    }
    return ticket;
}

/// Serves the ticket after `ticket`.
fn release(lock: ptr<storage, TicketLock, read_write>, ticket: u32) {
    atomicStore(&(*lock).serving, ticket + 1u);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var ticket = 0u;
    for (var round = 0u; round < config.rounds; round++) {
        if lid == 0u {
            ticket = acquire(&locks[0]);
        }
        storageBarrier();
        atomicStore(&counters[lid], atomicLoad(&counters[lid]) + 1u);
        storageBarrier();
        if lid == 0u {
            release(&locks[0], ticket);
        }
    }
}
