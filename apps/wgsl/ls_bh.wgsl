// ls-bh: Barnes-Hut n-body after LonestarGPU (Burtscher and Pingali, "An efficient CUDA
// implementation of the tree-based Barnes Hut n-body algorithm", GPU Computing Gems): one time
// step of tree build, summarization, force computation and integration.
// Idiom: the octree is built by all threads at once; a thread locks the child slot where its
// body goes with a compare-exchange, and when the slot holds a body it builds the subtree that
// separates the two bodies in fresh cells and then publishes the subtree's root in the slot,
// which also unlocks it. Summarization walks the cells from the last allocated to the root (a
// cell's children are allocated after it); a cell is summed once all its children are ready,
// then its mass is stored last as its ready flag. The four phases are LonestarGPU's four
// kernels; here they are one kernel with a global barrier between phases (as in
// global_barrier.wgsl, with occupancy discovery: stress workgroups never join, so nothing
// waits for a workgroup that is not running).
// Lonestar's threads retry in a loop with __syncthreads(); here every round of a phase is a
// uniform loop iteration, so the fences can be barriers in uniform control flow.
// Bug (FENCES = false): LonestarGPU's __threadfence() calls removed (the seed's -nf variant): a
// subtree's pointer can become visible before the subtree's slots, and a cell's mass (its
// ready flag) before its centre of mass (message passing). A body is then inserted into a
// slot that the subtree's builder overwrites, or a parent sums stale values.
// Fix (FENCES = true): storageBarrier() before a subtree is published and before a mass is
// stored (LonestarGPU's fences), and after reading pointers or flags before reading what they
// announce (relies on the platform's device-scope lowering of storageBarrier(), as in
// cbe-dot). The global barrier between phases is fenced in both variants: it stands for
// kernel boundaries. Every location shared between workgroups is an atomic: plain loads may
// be served from a stale L1 line on the H100 (see global_barrier.wgsl).
override FENCES: bool = false;

const GROUP: u32 = 256u;
// Coordinates are integers below 2^(TOP + 1); a cell at level l has side 2^(TOP + 1 - l).
const TOP: u32 = 13u;
const EMPTY: u32 = 0xffffffffu;
const LOCKED: u32 = 0xfffffffeu;
const CLOSED: u32 = 0x80000000u;
// Depth-first traversal: at most 7 pending siblings per level, and the root.
const STACK: u32 = 112u;

struct Config {
    bodies: u32,
    cell_limit: u32,
    // Workgroups of the application: the barrier's flags follow the counters.
    groups: u32,
    dt: f32,
    soften: f32,
}

// A body: x, y, z, mass.
@group(0) @binding(0) var<storage, read> bodies: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> velocities: array<vec4<f32>>;
// Eight slots per cell: EMPTY, LOCKED, a body (below config.bodies) or bodies + cell.
@group(0) @binding(2) var<storage, read_write> children: array<atomic<u32>>;
// Four words per cell: mass (0 until summed), then the mass-weighted sums of x, y and z.
@group(0) @binding(3) var<storage, read_write> cells: array<atomic<u32>>;
// [0] next free cell, [1] discovery poll, then arrival and release flags per workgroup.
@group(0) @binding(4) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> moved: array<vec4<f32>>;
@group(0) @binding(6) var<uniform> config: Config;

var<workgroup> shared_id: u32;
var<workgroup> shared_count: u32;
var<workgroup> busy: atomic<u32>;
var<workgroup> shared_busy: u32;

// LonestarGPU's __threadfence(), where it has one.
fn release() {
    if FENCES {
        storageBarrier();
    }
}

// The reading side of the same message passing (LonestarGPU relies on volatile loads).
fn acquire() {
    if FENCES {
        storageBarrier();
    }
}

// Whether any thread of the workgroup still has work; uniform, so loops can hold barriers.
fn any_busy(mine: bool, lid: u32) -> bool {
    if lid == 0u {
        atomicStore(&busy, 0u);
    }
    workgroupBarrier();
    if mine {
        atomicStore(&busy, 1u);
    }
    workgroupBarrier();
    if lid == 0u {
        shared_busy = atomicLoad(&busy);
    }
    return workgroupUniformLoad(&shared_busy) != 0u;
}

// Joins the discovery poll if it is still open; returns this workgroup's participant id or
// EMPTY. One word holds the closed bit and the count, so joining and closing are single atomics.
fn discover(lid: u32) -> u32 {
    if lid == 0u {
        shared_id = EMPTY;
        var seen = atomicLoad(&counters[1]);
        loop {
            if (seen & CLOSED) != 0u {
                break;
            }
            let r = atomicCompareExchangeWeak(&counters[1], seen, seen + 1u);
            if r.exchanged {
                shared_id = seen;
                break;
            }
            seen = r.old_value;
        }
        if shared_id != EMPTY {
            // Keep the poll open until no workgroup has joined for a while: a joiner is running,
            // so waiting for it is safe, and more participants share the work.
            var last = seen + 1u;
            var quiet = 0u;
            while quiet < 64u && (last & CLOSED) == 0u {
                let now = atomicLoad(&counters[1]);
                quiet = select(0u, quiet + 1u, now == last);
                last = now;
            }
            shared_count = atomicOr(&counters[1], CLOSED) & ~CLOSED;
        }
    }
    return workgroupUniformLoad(&shared_id);
}

// Participant 0 waits for every arrival, then releases the others. Fenced in both variants.
fn global_barrier(id: u32, count: u32, epoch: u32, lid: u32) {
    let arrive = 2u;
    let leave = 2u + config.groups;
    storageBarrier();
    if lid == 0u {
        atomicStore(&counters[arrive + id], epoch);
        if id == 0u {
            for (var i = 1u; i < count; i++) {
                while atomicLoad(&counters[arrive + i]) != epoch {
                }
            }
        }
    }
    storageBarrier();
    if lid == 0u {
        if id == 0u {
            for (var i = 1u; i < count; i++) {
                atomicStore(&counters[leave + i], epoch);
            }
        } else {
            while atomicLoad(&counters[leave + id]) != epoch {
            }
        }
    }
    storageBarrier();
}

// Which of a level-`level` cell's eight children holds point `p`.
fn octant(p: vec3<u32>, level: u32) -> u32 {
    let bits = (p >> vec3<u32>(TOP - level)) & vec3<u32>(1u);
    return bits.x | (bits.y << 1u) | (bits.z << 2u);
}

fn allocate() -> u32 {
    // A cell past the limit means a corrupt tree; keep the writes in bounds, the host checks.
    return min(atomicAdd(&counters[0], 1u), config.cell_limit - 1u);
}

// Builds, in fresh cells, the subtree that separates body `resident` from body `incoming`
// below a slot of a level-`level` cell; returns the value to publish in that slot.
fn split(resident: u32, incoming: u32, level: u32) -> u32 {
    let a = bodies[resident].xyz;
    let b = bodies[incoming].xyz;
    let top = allocate();
    var cell = top;
    // Distinct points differ in some bit, so this ends by level TOP.
    for (var l = level + 1u; l <= TOP; l++) {
        let oa = octant(a, l);
        let ob = octant(b, l);
        if oa != ob {
            atomicStore(&children[cell * 8u + oa], resident);
            atomicStore(&children[cell * 8u + ob], incoming);
            break;
        }
        let next = allocate();
        atomicStore(&children[cell * 8u + oa], config.bodies + next);
        cell = next;
    }
    return config.bodies + top;
}

// Phase 1: every thread inserts its bodies; one step down the tree per round.
fn build_tree(first: u32, stride: u32, lid: u32) {
    let n = config.bodies;
    var body = first;
    var cell = 0u;
    var level = 0u;
    loop {
        if !any_busy(body < n, lid) {
            break;
        }
        acquire();
        var locked = EMPTY;
        var top = EMPTY;
        if body < n {
            let slot = cell * 8u + octant(bodies[body].xyz, level);
            let child = atomicLoad(&children[slot]);
            if child == EMPTY {
                if atomicCompareExchangeWeak(&children[slot], EMPTY, body).exchanged {
                    body += stride;
                    cell = 0u;
                    level = 0u;
                }
            } else if child >= n && child != LOCKED {
                cell = child - n;
                level += 1u;
            } else if child < n {
                if atomicCompareExchangeWeak(&children[slot], child, LOCKED).exchanged {
                    locked = slot;
                    top = split(child, body, level);
                }
            }
        }
        release();
        if locked != EMPTY {
            atomicStore(&children[locked], top);
            body += stride;
            cell = 0u;
            level = 0u;
        }
    }
}

// Mass and weighted coordinates of a slot's content, and whether it is ready.
fn content(child: u32) -> vec4<u32> {
    if child == EMPTY {
        return vec4<u32>(0u);
    }
    if child < config.bodies {
        let b = bodies[child];
        return vec4<u32>(b.w, b.xyz * b.w);
    }
    let c = (child - config.bodies) * 4u;
    return vec4<u32>(atomicLoad(&cells[c]), atomicLoad(&cells[c + 1u]),
                     atomicLoad(&cells[c + 2u]), atomicLoad(&cells[c + 3u]));
}

fn children_ready(cell: u32) -> bool {
    for (var o = 0u; o < 8u; o++) {
        let child = atomicLoad(&children[cell * 8u + o]);
        if child != EMPTY && child >= config.bodies
            && atomicLoad(&cells[(child - config.bodies) * 4u]) == 0u {
            return false;
        }
    }
    return true;
}

// Phase 2: cells from the last allocated to the root; a cell waits for its children.
fn summarize(first: u32, stride: u32, lid: u32) {
    let total = min(atomicLoad(&counters[0]), config.cell_limit);
    var pending = first < total;
    var cell = total - 1u - min(first, total - 1u);
    loop {
        if !any_busy(pending, lid) {
            break;
        }
        var ready = false;
        if pending {
            ready = children_ready(cell);
        }
        acquire();
        var mass = 0u;
        if ready {
            var sum = vec3<u32>(0u);
            for (var o = 0u; o < 8u; o++) {
                let c = content(atomicLoad(&children[cell * 8u + o]));
                mass += c.x;
                sum += c.yzw;
            }
            atomicStore(&cells[cell * 4u + 1u], sum.x);
            atomicStore(&cells[cell * 4u + 2u], sum.y);
            atomicStore(&cells[cell * 4u + 3u], sum.z);
        }
        release();
        if ready {
            atomicStore(&cells[cell * 4u], mass);
            pending = cell >= stride;
            cell -= min(stride, cell);
        }
    }
}

fn pull(acc: vec3<f32>, p: vec3<f32>, q: vec3<f32>, mass: f32) -> vec3<f32> {
    let d = q - p;
    let inv = inverseSqrt(dot(d, d) + config.soften);
    return acc + d * (mass * inv * inv * inv);
}

fn distance2(a: vec3<u32>, b: vec3<u32>) -> u32 {
    let d = max(a, b) - min(a, b);
    return dot(d, d);
}

// Phase 3: the acceleration of body `me`. A cell is far enough to stand for its bodies when
// its side is under half the distance to its centre (theta = 0.5), decided in integers so
// that the host makes the same decisions.
fn acceleration(me: u32) -> vec3<f32> {
    let n = config.bodies;
    let p = bodies[me].xyz;
    let pf = vec3<f32>(p);
    var acc = vec3<f32>(0.0);
    // Each entry: slot value, then the cell's corner; its level rides in the top four bits.
    var stack: array<vec4<u32>, STACK>;
    stack[0] = vec4<u32>(n, 0u, 0u, 0u);
    var depth = 1u;
    while depth > 0u {
        depth -= 1u;
        let entry = stack[depth];
        let level = entry.x >> 28u;
        let node = entry.x & 0x0fffffffu;
        if node < n {
            if node != me {
                let b = bodies[node];
                acc = pull(acc, pf, vec3<f32>(b.xyz), f32(b.w));
            }
            continue;
        }
        let cell = node - n;
        let side = 1u << (TOP + 1u - level);
        if cell >= config.cell_limit {
            continue;
        }
        if 4u * side * side < distance2(p, entry.yzw + vec3<u32>(side / 2u)) {
            let c = content(node);
            acc = pull(acc, pf, vec3<f32>(c.yzw) / f32(c.x), f32(c.x));
            continue;
        }
        for (var o = 8u; o > 0u; o--) {
            let child = atomicLoad(&children[cell * 8u + o - 1u]);
            if child >= LOCKED || depth >= STACK {
                continue;
            }
            let bits = (vec3<u32>(o - 1u) >> vec3<u32>(0u, 1u, 2u)) & vec3<u32>(1u);
            let corner = entry.yzw + bits * (side / 2u);
            stack[depth] = vec4<u32>(child | ((level + 1u) << 28u), corner);
            depth += 1u;
        }
    }
    return acc;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
    let id = discover(lid);
    if id == EMPTY {
        return;
    }
    let count = workgroupUniformLoad(&shared_count);
    let first = id * GROUP + lid;
    let stride = count * GROUP;
    build_tree(first, stride, lid);
    global_barrier(id, count, 1u, lid);
    summarize(first, stride, lid);
    global_barrier(id, count, 2u, lid);
    // Phases 3 and 4: forces, then one leapfrog-style step into a separate output.
    for (var b = first; b < config.bodies; b += stride) {
        let v = velocities[b].xyz + acceleration(b) * config.dt;
        moved[b] = vec4<f32>(vec3<f32>(bodies[b].xyz) + v * config.dt, 0.0);
    }
}
