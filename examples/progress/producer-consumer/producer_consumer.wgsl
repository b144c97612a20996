// One-way producer-consumer across two workgroups, the message-passing idiom of work
// handed from one workgroup to another: the producer stores its data, then a flag; the
// consumer spins until it sees the flag, then reads the data.
//
// Which workgroup produces is the override `producer`, so that one shader gives both id
// orders of the seed's progress litmus tests (gpu-progress-models-oopsla21, Figure 3 and
// Figure 8): producer 0 is "increasing id" (the higher id waits on the lower), producer 1
// "decreasing id" (the lower id waits on the higher). The consumer waits on a workgroup that
// may not have started: OBE does not promise the wait ends in either order; HSA and LOBE
// promise it only when the producer has the lower id; a fair scheduler always does.
//
// The data and the flag are atomic, and storage barriers stand between the data and the
// flag on both sides, as in the fixed examples of examples/: the only question left is
// forward progress.

const WG: u32 = 64u;

override producer: u32 = 0u;

@group(0) @binding(0) var<storage, read_write> data: array<atomic<u32>, WG>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> received: array<u32, WG>;

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    if group.x == producer {
        atomicStore(&data[lid], lid * lid + 1u);
        storageBarrier();
        if lid == 0u {
            atomicStore(&flag, 1u);
        }
    } else {
        if lid == 0u {
            while atomicLoad(&flag) == 0u {
            }
        }
        storageBarrier();
        received[lid] = atomicLoad(&data[lid]);
    }
}
