// cbe-ht: hash table insertion after "CUDA by Example" (Sanders and Kandrot), appendix A.2.
// Idiom: per-bucket spin locks; a bucket is a linked list, and an insertion links a new node
// at the head of its bucket's list while holding the bucket's lock.
// The book's threads take locks one lane at a time. A WGSL barrier must be in uniform control
// flow, so here each workgroup inserts its keys in turn, thread 0 taking the bucket lock on
// behalf of the workgroup.
// Bug (FENCES = false): the head of a bucket is read and written with relaxed atomics that
// nothing orders with the lock, so the next holder can read a stale head and unlink a node:
// a key disappears from the table.
// Fix (FENCES = true): storageBarrier() after taking and before releasing the lock (relies on
// the platform's device-scope lowering of storageBarrier(), as in cbe-dot).
override FENCES: bool = false;

@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> locks: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> heads: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> next: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> node_keys: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> node_values: array<atomic<u32>>;

const PER_GROUP: u32 = 64u;

fn bucket_of(key: u32) -> u32 {
    var h = key * 0x9e3779b1u;
    h ^= h >> 15u;
    return h % arrayLength(&heads);
}

fn value_of(key: u32) -> u32 {
    return key * 7u + 3u;
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    for (var j = 0u; j < PER_GROUP; j++) {
        let node = wid.x * PER_GROUP + j;
        let key = keys[node];
        let bucket = bucket_of(key);
        if lid == 0u {
            while !atomicCompareExchangeWeak(&locks[bucket], 0u, 1u).exchanged {
            }
        }
        if FENCES {
            storageBarrier();
        }
        if lid == 0u {
            atomicStore(&node_keys[node], key);
            atomicStore(&node_values[node], value_of(key));
            atomicStore(&next[node], atomicLoad(&heads[bucket]));
            atomicStore(&heads[bucket], node + 1u);
        }
        if FENCES {
            storageBarrier();
        }
        if lid == 0u {
            atomicExchange(&locks[bucket], 0u);
        }
        workgroupBarrier();
    }
}
