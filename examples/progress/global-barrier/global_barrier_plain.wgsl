// A global barrier over every dispatched workgroup, without occupancy discovery: the
// persistent-threads pattern that assumes the whole grid is resident at once. Each workgroup
// arrives (an atomic add), then spins until every workgroup has arrived; between barriers,
// rounds in which each workgroup reads cells its neighbours wrote in the round before. The
// rounds are those of examples/global-barrier/global_barrier_fixed.wgsl, which runs them
// after occupancy discovery; here the participants are all the workgroups of the dispatch.
//
// Forward progress: a workgroup that arrives waits on every other, including ones that have
// not started. The barrier ends only if all of them run at once: under a fair scheduler, or
// under OBE and LOBE only while the GPU's occupancy holds the whole dispatch. With fewer
// slots than workgroups the ones that arrived spin and the others never start: a hang.
//
// The cells are atomic and storage barriers stand on both sides of the arrival, as in
// global_barrier_fixed.wgsl, so the only question left is forward progress.

struct GlobalBarrier {
    arrived: atomic<u32>,
}

struct Config {
    rounds: u32,
}

@group(0) @binding(0) var<storage, read_write> barrier: GlobalBarrier;
// Two halves of n cells: each round reads one and writes the other.
@group(0) @binding(1) var<storage, read_write> cells: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> config: Config;

/// Waits until all `count` workgroups have arrived `epoch` times.
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
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let me = group.x;
    let count = groups.x;
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
