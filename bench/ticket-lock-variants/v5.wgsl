// Ticket lock variant v5 (bench/ticket-lock-variants/, bench/results/h100/examples.txt): the first
// ticket_lock_fixed.wgsl (storageBarrier()s, plain counters) with one round.

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
        storageBarrier();
        counters[lid] = counters[lid] + 1u;
        storageBarrier();
        if lid == 0u {
            release(&locks[0], ticket);
        }
    }
}
