// wgstress runtime library.
//
// The instrumenter parses this file with naga and imports its IR into the user's module
// (see import.rs); the user's source text is never edited. Every name starts with `wgstress_`,
// a prefix that user shaders may not use (except for the `wgstress_assert` hook).
//
// The bind group below is a placeholder: the instrumenter moves these three bindings to a
// group the application does not use. Layouts must match `manifest.rs` and the runtime.

struct WgstressParams {
    app_groups: vec3<u32>,      // the application's own dispatch size
    app_total: u32,             // app_groups.x * app_groups.y * app_groups.z
    stress_groups: u32,         // extra workgroups that run stress
    strategy: u32,              // Strategy::code (stress.rs), as the WGSTRESS_STRATEGY_ constants
    shuffle_mul: u32,           // workgroup shuffle: id -> (id * mul + add) % app_total
    shuffle_add: u32,           //   (mul = 1, add = 0 is the identity)
    iterations: u32,            // stress loop iterations per stressing thread
    patch_words: u32,           // words per patch
    patch_offset: u32,          // word inside each patch that is stressed
    spread: u32,                // number of stressed patches (K)
    sequence: u32,              // access sequence: bit i set = access i is a store
    sequence_len: u32,          // 1..=5
    watchdog_limit: u32,        // loop iterations before the watchdog fires
    scratch_words: u32,         // words of the scratchpad in use
    seed: u32,                  // per-run seed for random stress
    app_enabled: u32,           // 0: application workgroups return at once (calibration)
    placement: u32,             // where stress workgroups sit: 0 among, 1 after, 2 before the app's
    pad: u32,
    patches: array<vec4<u32>, 16>, // the K stressed patch indices, 4 per vector
}

// One kind of event (assertion, postcondition, watchdog): how often, and who was first.
struct WgstressEvent {
    count: atomic<u32>,
    site: u32,
    group_x: u32,
    group_y: u32,
    group_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
}

struct WgstressResults {
    events: array<WgstressEvent, 3>, // 0 assertion, 1 postcondition, 2 watchdog
    stress_groups_ran: atomic<u32>,
    sink: atomic<u32>,
    // The highest count any loop of the application reached (see wgstress_watchdog), so the
    // runtime can learn a watchdog limit from passing runs.
    max_trips: atomic<u32>,
}

@group(0) @binding(0) var<uniform> wgstress_params: WgstressParams;
@group(0) @binding(1) var<storage, read_write> wgstress_results: WgstressResults;
@group(0) @binding(2) var<storage, read_write> wgstress_scratch: array<atomic<u32>>;

// Which event an assertion counts as: 0 in the application, 1 in the postcondition.
var<private> wgstress_phase: u32;
// The application-visible workgroup and local ids of this invocation, for event records.
var<private> wgstress_group: vec3<u32>;
var<private> wgstress_local: vec3<u32>;
// The highest count this invocation's loops reached; published once, by wgstress_leave_app,
// rather than with an atomic per loop iteration.
var<private> wgstress_trips: u32;
// Whether this is the workgroup's first invocation (local id 0), set with the ids.
var<private> wgstress_first: bool;
// Whether the watchdog stopped a loop in this run, as the workgroup last read it.
var<workgroup> wgstress_stop: u32;

fn wgstress_record(kind: u32, site: u32) {
    let before = atomicAdd(&wgstress_results.events[kind].count, 1u);
    if before == 0u {
        wgstress_results.events[kind].site = site;
        wgstress_results.events[kind].group_x = wgstress_group.x;
        wgstress_results.events[kind].group_y = wgstress_group.y;
        wgstress_results.events[kind].group_z = wgstress_group.z;
        wgstress_results.events[kind].local_x = wgstress_local.x;
        wgstress_results.events[kind].local_y = wgstress_local.y;
        wgstress_results.events[kind].local_z = wgstress_local.z;
    }
}

fn wgstress_assert_at(cond: bool, site: u32) {
    if !cond {
        wgstress_record(wgstress_phase, site);
    }
}

// Called at the top of every application loop with the loop's iteration count: the number of
// times the body was entered since the loop started, counting the entry that then leaves it by
// its condition (a `for` loop of 37 iterations counts 38). True means: the loop ran past the
// limit, it was recorded, leave the loop. The result depends on `iterations` and the uniform
// params only, so the `break` on it keeps a uniform loop uniform.
fn wgstress_watchdog(iterations: u32, loop_id: u32) -> bool {
    wgstress_trips = max(wgstress_trips, iterations);
    if iterations <= wgstress_params.watchdog_limit {
        return false;
    }
    wgstress_record(2u, loop_id);
    return true;
}

// Whether the watchdog has stopped some loop of this run: then every other loop leaves too,
// instead of each spinning to the limit on its own (in a lock convoy of 132 workgroups that
// is 132 times as long). For loops without barriers: a branch on it may be non-uniform.
fn wgstress_stopped() -> bool {
    return atomicLoad(&wgstress_results.events[2].count) > 0u;
}

// The same for loops with barriers, which are in uniform control flow: one invocation reads
// it, the workgroup leaves together.
fn wgstress_stopped_uniform() -> bool {
    if wgstress_first {
        wgstress_stop = atomicLoad(&wgstress_results.events[2].count);
    }
    return workgroupUniformLoad(&wgstress_stop) > 0u;
}

// The high 32 bits of a * b.
fn wgstress_mul_hi(a: u32, b: u32) -> u32 {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let t = ah * bl + ((al * bl) >> 16u);
    let w = (t & 0xffffu) + al * bh;
    return ah * bh + (t >> 16u) + (w >> 16u);
}

// (a * b) / d and (a * b) % d in 64-bit precision; needs (a * b) / d < 2^32.
fn wgstress_muldivmod(a: u32, b: u32, d: u32) -> vec2<u32> {
    let lo = a * b;
    var rem = wgstress_mul_hi(a, b);
    var quo = 0u;
    for (var i = 0u; i < 32u; i++) {
        let carry = rem >> 31u;
        rem = (rem << 1u) | ((lo >> (31u - i)) & 1u);
        quo = quo << 1u;
        if carry == 1u || rem >= d {
            rem = rem - d;
            quo = quo | 1u;
        }
    }
    return vec2<u32>(quo, rem);
}

fn wgstress_hash(x: u32) -> u32 {
    var h = x;
    h = (h ^ (h >> 16u)) * 0x7feb352du;
    h = (h ^ (h >> 15u)) * 0x846ca68bu;
    return h ^ (h >> 16u);
}

// Keeps stress loads alive: the compiler cannot drop loads whose sum may be stored.
fn wgstress_sink(acc: u32) {
    if acc == 0x9e3779b9u {
        atomicStore(&wgstress_results.sink, acc);
    }
}

fn wgstress_word(index: u32) -> u32 {
    return index % max(wgstress_params.scratch_words, 1u);
}

// Systematic stress: threads spread evenly over the K chosen patches, each running the
// access sequence on its patch's stressed word.
fn wgstress_stress_patches(thread: u32) {
    let k = clamp(wgstress_params.spread, 1u, 64u);
    let slot = thread % k;
    let chosen = wgstress_params.patches[slot / 4u][slot % 4u];
    let word = wgstress_word(chosen * wgstress_params.patch_words + wgstress_params.patch_offset);
    let len = min(wgstress_params.sequence_len, 5u);
    var acc = 0u;
    for (var i = 0u; i < wgstress_params.iterations; i++) {
        for (var s = 0u; s < len; s++) {
            if ((wgstress_params.sequence >> s) & 1u) == 1u {
                atomicStore(&wgstress_scratch[word], i);
            } else {
                acc += atomicLoad(&wgstress_scratch[word]);
            }
        }
    }
    wgstress_sink(acc);
}

// Cache stress: all stressing threads together stream over the whole scratchpad,
// one load and one store per word.
fn wgstress_stress_cache(thread: u32, threads: u32) {
    var word = wgstress_word(thread);
    var acc = 0u;
    for (var i = 0u; i < wgstress_params.iterations; i++) {
        acc += atomicLoad(&wgstress_scratch[word]);
        atomicStore(&wgstress_scratch[word], acc);
        word = wgstress_word(word + threads);
    }
    wgstress_sink(acc);
}

// Random stress: each iteration loads or stores a pseudo-random scratchpad word.
fn wgstress_stress_random(thread: u32) {
    var state = wgstress_hash(wgstress_params.seed ^ wgstress_hash(thread + 1u));
    var acc = 0u;
    for (var i = 0u; i < wgstress_params.iterations; i++) {
        state ^= state << 13u;
        state ^= state >> 17u;
        state ^= state << 5u;
        let word = wgstress_word(state >> 1u);
        if (state & 1u) == 1u {
            atomicStore(&wgstress_scratch[word], i);
        } else {
            acc += atomicLoad(&wgstress_scratch[word]);
        }
    }
    wgstress_sink(acc);
}

fn wgstress_stress(stress_group: u32, local_index: u32, group_size: u32) {
    if local_index == 0u {
        atomicAdd(&wgstress_results.stress_groups_ran, 1u);
    }
    let thread = stress_group * group_size + local_index;
    switch wgstress_params.strategy {
        case WGSTRESS_STRATEGY_SYSTEMATIC: {
            wgstress_stress_patches(thread);
        }
        case WGSTRESS_STRATEGY_CACHE: {
            wgstress_stress_cache(thread, wgstress_params.stress_groups * group_size);
        }
        case WGSTRESS_STRATEGY_RANDOM: {
            wgstress_stress_random(thread);
        }
        default: {}
    }
}

// Splits dispatched workgroup `linear` into stress or application: x = 1 for stress, y = its
// index among the stress workgroups or its slot among the application's. Placement 0 spreads
// the stress workgroups evenly among the application's (of the first n dispatched,
// floor(n * S / T) stress), so that they run while the application does whatever order the
// GPU schedules workgroups in; 1 puts them after the application's, 2 before.
fn wgstress_split(linear: u32, app_total: u32, stress_total: u32) -> vec2<u32> {
    switch wgstress_params.placement {
        case 1u: {
            return select(vec2<u32>(0u, linear), vec2<u32>(1u, linear - app_total), linear >= app_total);
        }
        case 2u: {
            return select(vec2<u32>(0u, linear - stress_total), vec2<u32>(1u, linear), linear < stress_total);
        }
        default: {
            let total = app_total + stress_total;
            let before = wgstress_muldivmod(linear, stress_total, total).x;
            let through = wgstress_muldivmod(linear + 1u, stress_total, total).x;
            return select(vec2<u32>(0u, linear - before), vec2<u32>(1u, before), through > before);
        }
    }
}

// Decides the role of a dispatched workgroup: w = 0 idle (past the stress and application
// workgroups, or the application is disabled), 1 application with its (possibly shuffled)
// workgroup id in xyz, 2 stress with its index among the stress workgroups in x.
//
// The role depends on the workgroup id, the dispatch size and the uniform params only, never
// on a local id or a private variable: the wrapper branches on it around the application's
// call, and Tint (unlike naga) rejects every barrier of the application unless it proves
// those branches uniform.
fn wgstress_role(group: vec3<u32>, groups: vec3<u32>) -> vec4<u32> {
    let app_total = wgstress_params.app_total;
    let stress_total = wgstress_params.stress_groups;
    let total = app_total + stress_total;
    let linear = group.x + groups.x * (group.y + groups.y * group.z);
    if linear >= total {
        return vec4<u32>(0u);
    }
    let split = wgstress_split(linear, app_total, stress_total);
    if split.x == 1u {
        return vec4<u32>(split.y, 0u, 0u, 2u);
    }
    if wgstress_params.app_enabled == 0u {
        return vec4<u32>(0u);
    }
    let shuffled = wgstress_muldivmod(split.y, wgstress_params.shuffle_mul, app_total).y;
    let app = (shuffled + wgstress_params.shuffle_add) % app_total;
    let size = wgstress_params.app_groups;
    return vec4<u32>(app % size.x, (app / size.x) % size.y, app / (size.x * size.y), 1u);
}

// Prologue of an application workgroup: the ids its events are recorded under.
fn wgstress_enter_app(group: vec3<u32>, local: vec3<u32>) {
    wgstress_group = group;
    wgstress_local = local;
    wgstress_first = all(local == vec3<u32>(0u));
}

// Epilogue of an application invocation: publishes its highest loop count.
fn wgstress_leave_app() {
    if wgstress_trips > 0u {
        atomicMax(&wgstress_results.max_trips, wgstress_trips);
    }
}

// Prologue of the postcondition entry point: its assertions count as postcondition failures.
fn wgstress_enter_check(group: vec3<u32>, local: vec3<u32>) {
    wgstress_phase = 1u;
    wgstress_group = group;
    wgstress_local = local;
}
