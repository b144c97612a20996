// A ticket lock guarding a block of counters in plain storage memory. Every workgroup
// takes the lock `rounds` times (a count the host writes into read-only storage); while it
// holds the lock, each of its invocations adds one to its own counter. In the end every
// counter holds workgroups x rounds.
//
// The leader takes a ticket with a compare-exchange loop (as lock code that also bounds or
// tags its tickets does, instead of one atomicAdd), waits until the lock serves its ticket,
// and after the critical section serves the next one. The workgroup waits for its leader
// with workgroupBarrier(), which orders workgroup memory only: nothing orders the counters
// read in the critical section after the lock was taken, or written before it is handed
// on, and the counters are plain memory that workgroups share: a data race in WGSL, which
// orders them by nothing the lock's relaxed atomics do. A workgroup can read counters the
// previous holder has not made visible yet, and updates are lost (on the H100, in every
// run). ticket_lock_fixed.wgsl is the fix: atomic counters.

struct TicketLock {
    next: atomic<u32>,
    serving: atomic<u32>,
}

struct Config {
    rounds: u32,
}

@group(0) @binding(0) var<storage, read_write> locks: array<TicketLock>;
@group(0) @binding(1) var<storage, read_write> counters: array<u32, 64>;
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
        workgroupBarrier();
        counters[lid] = counters[lid] + 1u;
        workgroupBarrier();
        if lid == 0u {
            release(&locks[0], ticket);
        }
    }
}
