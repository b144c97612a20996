// Ticket lock variant v7 (bench/ticket-lock-variants/, bench/results/h100/examples.txt): v3 with an
// atomic probe: a leader inside the critical section counts a violation when another is inside
// too.

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
@group(0) @binding(3) var<storage, read_write> inside: atomic<u32>;
@group(0) @binding(4) var<storage, read_write> violations: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var ticket = 0u;
    for (var round = 0u; round < config.rounds; round++) {
        if lid == 0u {
            ticket = atomicAdd(&locks[0].next, 1u);
            while atomicLoad(&locks[0].serving) != ticket {
            }
            if atomicAdd(&inside, 1u) != 0u {
                atomicAdd(&violations, 1u);
            }
        }
        storageBarrier();
        counters[lid] = counters[lid] + 1u;
        storageBarrier();
        if lid == 0u {
            atomicSub(&inside, 1u);
            atomicStore(&locks[0].serving, ticket + 1u);
        }
    }
}
