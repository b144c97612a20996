// A test-and-set spin lock guarding one plain counter. Invocation 0 of every workgroup takes
// the lock `rounds` times and adds one to the counter while it holds it. The lock's atomics
// are relaxed (every WGSL atomic is), and the counter is plain memory: nothing orders its read
// after the lock was taken, nor its write before the lock is let go, so a workgroup can read
// a count the last holder has not made visible yet and lose an update. spin_lock_fixed.wgsl
// makes the count one atomicAdd.

struct Config {
    rounds: u32,
}

@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> total: array<u32, 1>;
@group(0) @binding(2) var<uniform> config: Config;

@compute @workgroup_size(1)
fn main() {
    for (var round = 0u; round < config.rounds; round++) {
        while atomicExchange(&lock, 1u) == 1u {
        }
        total[0] = total[0] + 1u;
        atomicStore(&lock, 0u);
    }
}
