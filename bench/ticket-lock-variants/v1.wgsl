// Ticket lock variant v1 (bench/ticket-lock-variants/, bench/results/h100/examples.txt): tickets taken
// with one atomicAdd, the workgroup waiting for its leader with workgroupBarrier(), plain
// counters, 16 rounds.

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

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var ticket = 0u;
    for (var round = 0u; round < config.rounds; round++) {
        if lid == 0u {
            ticket = atomicAdd(&locks[0].next, 1u);
            while atomicLoad(&locks[0].serving) != ticket {
            }
        }
        workgroupBarrier();
        counters[lid] = counters[lid] + 1u;
        workgroupBarrier();
        if lid == 0u {
            atomicStore(&locks[0].serving, ticket + 1u);
        }
    }
}
