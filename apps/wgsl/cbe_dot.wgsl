// cbe-dot: dot product after "CUDA by Example" (Sanders and Kandrot), appendix A.1.
// Idiom: a spin lock (compare-exchange to lock, a store to unlock) guarding a read-modify-write
// of a global total by thread 0 of every workgroup. The book unlocks with atomicExch; on the
// H100 that version showed no failure under any stress we tried (tens of thousands of runs),
// while the store version does, so the store is what is bundled.
// Bug (FENCES = false): WGSL atomics are relaxed, so nothing orders the total's load and store
// with taking and releasing the lock: a workgroup may read a stale total or publish its store
// after the release, and an update is lost.
// Fix (FENCES = true): storageBarrier() after taking the lock and before releasing it. A barrier
// must be reached by the whole workgroup, so thread 0's branch is split around it. The WGSL
// specification gives barriers workgroup scope only: the fix relies on naga lowering
// storageBarrier() to a device-scope memory barrier, which orders memory across workgroups on
// NVIDIA GPUs (the platform, not the specification).
override FENCES: bool = false;

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> total: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> mutex: atomic<u32>;

var<workgroup> cache: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) groups: vec3<u32>) {
    var sum = 0u;
    for (var i = gid.x; i < arrayLength(&a); i += groups.x * 256u) {
        sum += a[i] * b[i];
    }
    cache[lid] = sum;
    workgroupBarrier();
    for (var half = 128u; half > 0u; half >>= 1u) {
        if lid < half {
            cache[lid] += cache[lid + half];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        while !atomicCompareExchangeWeak(&mutex, 0u, 1u).exchanged {
        }
    }
    if FENCES {
        storageBarrier();
    }
    if lid == 0u {
        atomicStore(&total, atomicLoad(&total) + cache[0]);
    }
    if FENCES {
        storageBarrier();
    }
    if lid == 0u {
        atomicStore(&mutex, 0u);
    }
}
