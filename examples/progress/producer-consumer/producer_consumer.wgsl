// One-way producer-consumer across workgroups, the message-passing idiom of work handed from
// one workgroup to another: the producer stores its data, then a flag; the consumer spins
// until it sees the flag, then reads the data.
//
// Of N workgroups, p and N/2 + p are pair p, with data and a flag of its own (the seed's
// "chunked" instances of one litmus test: a device that gives each of two compute units a
// contiguous half of the workgroups, as lavapipe gives its threads, runs the two of a pair
// together). Which of the two produces is the override `producer` (0: the one of the lower
// half), so that one shader gives both id orders of the seed's progress litmus tests
// (gpu-progress-models-oopsla21, Figure 3 and Figure 8): producer 0 is "increasing id" (the
// higher id waits on the lower), producer 1 "decreasing id" (the lower id waits on the
// higher). The consumer waits on a workgroup that may not have started: OBE does not promise
// the wait ends in either order; HSA and LOBE promise it only when the producer has the lower
// id; a fair scheduler always does.
//
// The data and the flag are atomic, and storage barriers stand between the data and the
// flag on both sides, as in the fixed examples of examples/: the only question left is
// forward progress.

const WG: u32 = 64u;

override producer: u32 = 0u;

@group(0) @binding(0) var<storage, read_write> data: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> received: array<u32>;

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let half = groups.x / 2u;
    let pair = group.x % half;
    let slot = pair * WG + lid;
    if group.x / half == producer {
        atomicStore(&data[slot], lid * lid + 1u);
        storageBarrier();
        if lid == 0u {
            atomicStore(&flags[pair], 1u);
        }
    } else {
        if lid == 0u {
            while atomicLoad(&flags[pair]) == 0u {
            }
        }
        storageBarrier();
        received[slot] = atomicLoad(&data[slot]);
    }
}
