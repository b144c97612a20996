// spin_lock.wgsl with the counter atomic: its load and store are to one location, and atomics
// to one location are coherent, so each holder reads the count the last one wrote (the lock
// still makes the load and the store one step). Relies on the WGSL specification only.

struct Config {
    rounds: u32,
}

@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> total: array<atomic<u32>, 1>;
@group(0) @binding(2) var<uniform> config: Config;

@compute @workgroup_size(1)
fn main() {
    for (var round = 0u; round < config.rounds; round++) {
        while atomicExchange(&lock, 1u) == 1u {
        }
        atomicStore(&total[0], atomicLoad(&total[0]) + 1u);
        atomicStore(&lock, 0u);
    }
}
