// sdk-red: reduction after the CUDA SDK sample threadFenceReduction.
// Idiom: every workgroup writes its partial sum, then takes a ticket from an atomic counter;
// the workgroup that draws the last ticket adds up all partial sums.
// Bug (FENCES = false): nothing orders a workgroup's partial-sum store before its ticket, nor
// the last workgroup's ticket before its loads of the partial sums, so the last workgroup can
// add a partial sum that is not visible yet (message passing).
// Fix (FENCES = true): storageBarrier() before taking the ticket and after learning it is the
// last one, where the SDK calls __threadfence() (relies on the platform, as in cbe-dot).
override FENCES: bool = false;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> partials: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> tickets: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> result: atomic<u32>;

var<workgroup> cache: array<u32, 256>;
var<workgroup> last: u32;

// Sums cache[0..256) into cache[0]; every thread gets the sum.
fn reduce(lid: u32, value: u32) -> u32 {
    cache[lid] = value;
    workgroupBarrier();
    for (var half = 128u; half > 0u; half >>= 1u) {
        if lid < half {
            cache[lid] += cache[lid + half];
        }
        workgroupBarrier();
    }
    return workgroupUniformLoad(&cache[0]);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    var sum = 0u;
    for (var i = gid.x; i < arrayLength(&input); i += groups.x * 256u) {
        sum += input[i];
    }
    let partial = reduce(lid, sum);
    if lid == 0u {
        atomicStore(&partials[wid.x], partial);
    }
    if FENCES {
        storageBarrier();
    }
    if lid == 0u {
        last = u32(atomicAdd(&tickets, 1u) == groups.x - 1u);
    }
    if workgroupUniformLoad(&last) == 1u {
        if FENCES {
            storageBarrier();
        }
        var mine = 0u;
        for (var i = lid; i < groups.x; i += 256u) {
            mine += atomicLoad(&partials[i]);
        }
        let all = reduce(lid, mine);
        if lid == 0u {
            atomicStore(&result, all);
            atomicStore(&tickets, 0u);
        }
    }
}
