// spin_lock.wgsl with the count made one atomic operation: atomicAdd reads the last value in
// the counter's modification order and writes the next one indivisibly, so no update is lost,
// whoever holds the lock. An atomic load and store under the lock would not do: WGSL's
// atomics are relaxed, so taking the lock orders nothing, and a holder may load a count older
// than the one the last holder stored (on an H200, 21% of runs lost an update that way under
// systematic stress). `wgstress fences` finds this fix from the recorded buggy variant.
// Relies on the WGSL specification only.

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
        atomicAdd(&total[0], 1u);
        atomicStore(&lock, 0u);
    }
}
