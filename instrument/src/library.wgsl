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
    schedule: u32,              // Schedule::code (wgstress_model::stress::schedule), as the WGSTRESS_SCHEDULE_ constants
    victim: u32,                // the application workgroup (linear id) the schedule parks; none: ~0u
    park_step: u32,             // it parks at this pass of park_place (0: at its start)
    park_place: u32,            // the place it parks at; ~0u: at its park_step-th loop step
    lead: u32,                  // 1: the others wait at their start until the victim parks
    script_len: u32,            // steps a scripted schedule takes (0: none), its prefix's and
    script_prefix: u32,         //   its cycle's entries in `script`, the cycle gone round
    script_cycle: u32,          //   until script_len steps were taken
    script_ends: u32,           // the workgroups (ids below 32) that end within the script
    occupancy: u32,             // at most this many application workgroups run at once (0: any)
    stall_checks: u32,          // progress checks (one per 64 steps) a wait may see none in
    watchdog_cap: u32,          // any loop past this count leaves, progress or not
    park_limit: u32,            // a held invocation's checks at most (llvmpipe's loop budget)
    hang_floor: u32,            // a stall with nothing held is a hang past this count only
    masked_lanes: u32,          // 1: the device runs lanes no invocation owns (llvmpipe), find them
    meet: u32,                  // the device's threads where they are the operating system's (0: not so)
    in_order: u32,              // 1: application ids are given in the order workgroups start
    patches: array<vec4<u32>, 16>, // the K stressed patch indices, 4 per vector
    script: array<vec4<u32>, 16>,  // the workgroup of each step: prefix, then one cycle
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
    events: array<WgstressEvent, 5>, // 0 assertion, 1 postcondition, 2 watchdog, 3 stall, 4 cut
    stress_groups_ran: atomic<u32>,
    sink: atomic<u32>,
    // The highest count any loop of the application reached (see wgstress_watchdog), so the
    // runtime can learn a watchdog limit from passing runs.
    max_trips: atomic<u32>,
    // The scheduler's control block (docs/progress.md). Progress is counted in events: an
    // application workgroup starting or finishing, or a loop iteration whose state differs from
    // the iteration before (the locals the loop stores, the atomics and call results it read).
    // A lock taken and released, or a queue polled empty, leaves the state as it was: a wait.
    progress: atomic<u32>,
    started: atomic<u32>,
    finished: atomic<u32>,
    freed: atomic<u32>,          // slots given back under an occupancy bound: admitted ones that finished
    stepped_above: atomic<u32>,  // 1 + the highest application id that took a step
    finished_below: atomic<u32>, // finished workgroups whose id is below the victim's
    parked_now: atomic<u32>,     // workgroups held now: the victim, or waiting for occupancy
    victim_parked: atomic<u32>,  // 1 + the victim's hold point when it parked (1: at its start)
    victim_site: atomic<u32>,    // 1 + the place it parked at (a loop, WGSTRESS_ACCESS + a write)
    admissions_held: atomic<u32>, // workgroups that waited for a free slot (occupancy)
    release: atomic<u32>,        // set when a stall was found while workgroups were held
    stop: atomic<u32>,           // set when every loop must leave: a hang or the watchdog
    starved: atomic<u32>,        // stalls found while a workgroup was held
    hung: atomic<u32>,           // stalls found with nothing held: the application is stuck
    waiters: atomic<u32>,        // invocations that found their wait stalled
    idle_checks: atomic<u32>,    // checks of waits that saw no progress: others are running
    waits: array<vec2<u32>, 8>,  // the first of them: (application id, loop id)
    live: atomic<u32>,           // 1 once an invocation looked (wgstress_enter_app)
    victim_done: atomic<u32>,    // 1 once the victim finished
    turn: atomic<u32>,           // steps of a scripted schedule taken
    following: atomic<u32>,      // workgroups waiting at their start for the victim (lead)
    victim_holds: atomic<u32>,   // the hold points the victim's invocations passed, at most
    reached: array<atomic<u32>, 8>, // places the victim passed where it could be held: bit i
                                    // of words 0-3 loop i, of 4-7 write i
    next_id: atomic<u32>,        // application ids given out in start order (`in_order`)
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
// The application workgroup's linear id, the id the progress models order workgroups by.
var<private> wgstress_app_id: u32;
// Back-edges this invocation took in application loops (its steps).
var<private> wgstress_steps: u32;
// The hold points this invocation passed, counted in the victim only: each loop iteration,
// each loop, and each write to storage (its start is hold point 0).
var<private> wgstress_holds: u32;
// The places it passed (bits: loops, then writes), published as it leaves.
var<private> wgstress_reached: array<u32, 8>;
// The times it passed the place a victim parks at (`park_place`).
var<private> wgstress_place_passes: u32;
// Whether a loop iteration changed state since this invocation last published progress.
var<private> wgstress_moved: bool;
// The progress count this invocation last saw, and how many checks since it changed.
var<private> wgstress_seen: u32;
var<private> wgstress_idle: u32;
// The count of every invocation's idle checks before this invocation's first of the current run
// of checks without progress.
var<private> wgstress_idle_base: u32;
// The progress count at this invocation's check before the last.
var<private> wgstress_seen_before: u32;
// Whether this invocation took the scripted step `turn` names and is to count it done.
var<private> wgstress_turn_taken: bool;
// Scripted steps this invocation took, and whether, its workgroup ending within the script,
// it was let through to leave its loop after the last of them.
var<private> wgstress_turns: u32;
var<private> wgstress_turns_done: bool;
// The steps the script's prefix gives this workgroup, once counted (wgstress_script_steps_of).
var<private> wgstress_own_steps: u32 = 0xffffffffu;
// Written to `turn` when a run leaves its script's execution: past any script's length, so
// the script is over for everyone and the run ends as the application does.
const WGSTRESS_SCRIPT_LEFT: u32 = 0x80000000u;
// Whether this is a lane of the device's vector that no invocation owns (wgstress_enter_app).
var<private> wgstress_padding: bool;
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
//
// The count past which a loop leaves whatever happens is `watchdog_cap`, a safety net for a
// livelock whose state changes forever; a wait is judged by progress (wgstress_step), not by
// how long it is.
fn wgstress_watchdog(iterations: u32, loop_id: u32) -> bool {
    wgstress_trips = max(wgstress_trips, iterations);
    if iterations <= wgstress_params.watchdog_cap {
        return false;
    }
    wgstress_record(2u, loop_id);
    atomicStore(&wgstress_results.stop, 1u);
    return true;
}

// Whether some loop of this run was judged stuck (a hang, or the watchdog): then every other
// loop leaves too, instead of each spinning on its own (in a lock convoy of 132 workgroups
// that is 132 times as long). For loops without barriers: a branch on it may be non-uniform.
fn wgstress_stopped() -> bool {
    return wgstress_padding || atomicLoad(&wgstress_results.stop) > 0u;
}

// The same for loops with barriers, which are in uniform control flow: one invocation reads
// it, the workgroup leaves together.
fn wgstress_stopped_uniform() -> bool {
    if wgstress_first {
        wgstress_stop = atomicLoad(&wgstress_results.stop);
    }
    return workgroupUniformLoad(&wgstress_stop) > 0u;
}

// One word of a loop's state folded into its hash (FNV-1a's step).
fn wgstress_mix(hash: u32, word: u32) -> u32 {
    return (hash ^ word) * 0x01000193u;
}

// Whether the model lets the victim be held now; false: it is guaranteed to run.
fn wgstress_may_park(at_start: bool) -> bool {
    let id = wgstress_app_id;
    switch wgstress_params.schedule {
        case WGSTRESS_SCHEDULE_OBE: {
            return at_start;
        }
        case WGSTRESS_SCHEDULE_HSA: {
            // Guaranteed once every lower id has finished: it is then the lowest unfinished.
            return atomicLoad(&wgstress_results.finished_below) < id;
        }
        case WGSTRESS_SCHEDULE_LOBE: {
            // Guaranteed once a higher id has taken a step.
            return at_start && atomicLoad(&wgstress_results.stepped_above) <= id + 1u;
        }
        case WGSTRESS_SCHEDULE_UNFAIR: {
            return true;
        }
        default: {
            return false;
        }
    }
}

// Whether a held workgroup should run now although no stall released it: nobody else ran
// for a while, neither getting anywhere nor waiting, where nobody else can (a device with no
// room beside it, or all others finished: a scheduler of any model then runs it), or it was
// held for `park_limit` checks. `seen`, `idle` and `held` are the holder's own. Where the
// device's threads are the operating system's (llvmpipe: `meet` > 0), each check is four
// delays long and a while is a quarter as many checks: the same time to see nobody run, and
// a hold four times as long, which outlasts a thread the operating system gave another
// program's time to for a time slice or a few (llvmpipe counts loop iterations, not time).
// The test is on the params alone, uniform: llvmpipe would run both delays otherwise.
fn wgstress_held_enough(seen: ptr<function, u32>, idle: ptr<function, u32>, held: ptr<function, u32>) -> bool {
    var a_while = 4096u;
    if wgstress_params.meet > 0u {
        wgstress_sink(wgstress_long_delay(*held));
        a_while = 1024u;
    } else {
        wgstress_sink(wgstress_delay(*held));
    }
    let activity = atomicLoad(&wgstress_results.progress) + atomicLoad(&wgstress_results.idle_checks);
    *held += 1u;
    if *held >= wgstress_params.park_limit {
        return true;
    }
    if activity != *seen {
        *seen = activity;
        *idle = 0u;
        return false;
    }
    *idle += 1u;
    return *idle > a_while && wgstress_others_quiet()
        && atomicLoad(&wgstress_results.following) == 0u;
}

// Whether a holder that saw no activity for a while may take it that nobody else can run: not
// before every workgroup of the dispatch started, nor while one still waits at its start for
// the victim to park (lead, tested by the caller). Where the device's threads are the
// operating system's (llvmpipe: `meet` > 0), only once every workgroup that started, but the
// holder's, finished: one that started and shows no activity may be a thread paused by the
// operating system, which the hold outlasts; the ones not yet started are queued behind the
// holder on its thread, as every thread took its first share (`wgstress_meet`).
fn wgstress_others_quiet() -> bool {
    let started = atomicLoad(&wgstress_results.started);
    if wgstress_params.meet > 0u {
        return atomicLoad(&wgstress_results.finished) + 1u >= started;
    }
    return started >= wgstress_params.app_total;
}

// Four delays: a check of a wait on a workgroup that may be the last the device gives a
// thread (llvmpipe's threads are the operating system's), each check one of the 65,535
// iterations llvmpipe gives an invocation's loops.
fn wgstress_long_delay(x: u32) -> u32 {
    return wgstress_delay(wgstress_delay(wgstress_delay(wgstress_delay(x))));
}

// A delay of 32 dependent divisions by a value the compiler cannot know, so that a held
// invocation's check lasts about as long as a step of a wait (llvmpipe counts loop
// iterations, not time). No loop: llvmpipe would count its iterations.
fn wgstress_delay(x: u32) -> u32 {
    let d = wgstress_params.stall_checks | 1u;
    var y = x | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    y = (y / d) | 0x80000000u;
    return y / d;
}

// Holds the calling invocation while the model lets its workgroup wait and no stall released
// it, at most `park_limit` checks: llvmpipe counts the iterations of all of an invocation's
// loops together, nested or not, and ends them all at 65,535.
fn wgstress_park(at_start: bool) {
    var seen = 0u;
    var idle = 0u;
    var held = 0u;
    atomicAdd(&wgstress_results.parked_now, 1u);
    loop {
        var inner = 0u;
        loop {
            if wgstress_padding || atomicLoad(&wgstress_results.release) != 0u
                || !wgstress_may_park(at_start) || wgstress_held_enough(&seen, &idle, &held) {
                break;
            }
            inner += 1u;
            if inner == 4096u {
                break;
            }
        }
        if inner < 4096u {
            break;
        }
    }
    atomicSub(&wgstress_results.parked_now, 1u);
}

// Under an occupancy bound: waits for a free slot, as a workgroup the device has no room for.
// The bound is `occupancy` workgroups of `threads` counted invocations each, and slots go in
// id order, as a GPU gives them in the order it starts workgroups: workgroup i runs once as
// many counted invocations finished as i - occupancy + 1 workgroups hold. In the order they
// came for one, a thread's workgroup could take the slot that a lower id, started at about
// the same time on another thread, needed: on lavapipe a consumer took the one slot while its
// producer waited, a starvation no GPU shows. A lower id is never queued behind a higher one
// on a thread: llvmpipe's threads take increasing shares, and SwiftShader's ids are given in
// start order (`wgstress_in_start_order`).
fn wgstress_admit(threads: u32) {
    let turn = (wgstress_app_id + 1u) * threads;
    let room = wgstress_params.occupancy * threads;
    var held = false;
    var seen = 0u;
    var idle = 0u;
    var checks = 0u;
    loop {
        var inner = 0u;
        var admitted = false;
        loop {
            if turn <= atomicLoad(&wgstress_results.freed) + room || wgstress_padding
                || atomicLoad(&wgstress_results.release) != 0u
                || wgstress_held_enough(&seen, &idle, &checks) {
                admitted = true;
                break;
            }
            if !held {
                held = true;
                atomicAdd(&wgstress_results.parked_now, 1u);
                atomicAdd(&wgstress_results.admissions_held, 1u);
            }
            inner += 1u;
            if inner == 4096u {
                break;
            }
        }
        if admitted {
            break;
        }
    }
    if held {
        atomicSub(&wgstress_results.parked_now, 1u);
    }
}

// Whether what is held is held as the model allows: the victim, while the model still lets
// it wait (else it is about to run, and a wait on it is no starvation), or workgroups waiting
// for a slot under the occupancy bound. Read by a waiter, so that a holder the operating
// system has not yet given its thread back to (llvmpipe) is not taken for starvation.
fn wgstress_still_held() -> bool {
    if atomicLoad(&wgstress_results.admissions_held) > 0u {
        return true;
    }
    let victim = wgstress_params.victim;
    let at_start = atomicLoad(&wgstress_results.victim_parked) == 1u;
    switch wgstress_params.schedule {
        case WGSTRESS_SCHEDULE_HSA: {
            return atomicLoad(&wgstress_results.finished_below) < victim;
        }
        case WGSTRESS_SCHEDULE_LOBE: {
            return at_start && atomicLoad(&wgstress_results.stepped_above) <= victim + 1u;
        }
        default: {
            return true;
        }
    }
}

// Whether the stall may be a workgroup the model guarantees that the device has not run
// (llvmpipe's threads are the operating system's) rather than a wait the model allows to
// last: then the waiter outwaits `hang_floor` before it blames the held victim. `others`:
// the checks without progress other invocations made during this waiter's last `stall_checks`.
// Under HSA: some workgroup below the victim is unfinished and this waiter may not be it (that
// one is what HSA guarantees). The waiter may be it only if it is below the victim and at
// least as many workgroups below the victim have finished as there are ids below its own
// (exact where the victim is the third workgroup or lower).
// Under LOBE (the victim held at its start, no higher id stepped): every workgroup below a
// waiter is guaranteed, as the waiter has stepped, and so is every one that has stepped. So
// while another workgroup below the victim is unfinished, the stall is the model's only if
// the others below the victim were seen waiting too: at least half a window of checks each
// (exact where the victim is the third workgroup or lower: the one other is then seen running
// and getting nowhere).
fn wgstress_waits_on_guaranteed(others: u32) -> bool {
    let finished_below = atomicLoad(&wgstress_results.finished_below);
    let victim = wgstress_params.victim;
    switch wgstress_params.schedule {
        case WGSTRESS_SCHEDULE_HSA: {
            let lowest = wgstress_app_id < victim && wgstress_app_id <= finished_below;
            return finished_below < victim && !lowest;
        }
        case WGSTRESS_SCHEDULE_LOBE: {
            if wgstress_app_id >= victim || finished_below + 1u >= victim {
                return false;
            }
            let unfinished = victim - 1u - finished_below;
            return others < unfinished * max(wgstress_params.stall_checks / 2u, 1u);
        }
        default: {
            return false;
        }
    }
}

// A wait saw no progress for `stall_checks` checks. With a workgroup held, the wait is one the
// model does not guarantee to end: starvation; the held workgroups are released so the run
// completes and its checks run. With none held, the application stopped getting anywhere
// (deadlock or livelock): every loop leaves; where the device's threads are the operating
// system's (llvmpipe), only once the loop also passed `hang_floor`, as a thread descheduled
// for a while stops everyone waiting for it.
fn wgstress_stalled(loop_id: u32, iterations: u32, others: u32) {
    let held = atomicLoad(&wgstress_results.parked_now) > 0u && wgstress_still_held();
    if (!held || wgstress_waits_on_guaranteed(others)) && iterations <= wgstress_params.hang_floor {
        return;
    }
    let n = atomicAdd(&wgstress_results.waiters, 1u);
    if n < 8u {
        wgstress_results.waits[n] = vec2<u32>(wgstress_app_id, loop_id);
    }
    wgstress_record(3u, loop_id);
    if held {
        atomicStore(&wgstress_results.starved, 1u);
        atomicStore(&wgstress_results.release, 1u);
    } else {
        atomicStore(&wgstress_results.hung, 1u);
        atomicStore(&wgstress_results.stop, 1u);
    }
}

// Parks the victim if this is its step and its model lets it wait. The first test is on the
// params alone, uniform: llvmpipe runs code under a condition that differs between
// invocations for every invocation (masked), and would otherwise pay for parking in every
// iteration of every loop of a run that parks nobody. A shader instrumented without parking
// gets an empty body instead (stress.rs): the parking loop, inlined in every loop, cost
// ls-bh nine tenths of its speed on an H200 although it never ran.
// A hold point: `place` is a loop's id (at the top of one of its iterations, or after the
// loop), or WGSTRESS_ACCESS plus a write's id (after a store or an atomic to storage the
// dispatch writes: a workgroup held there holds what it just took or has still to publish, a
// ticket before its flag). Only a run that holds its victim past its start does anything
// here, and only in the victim: the first test is on the params alone, uniform (llvmpipe runs
// code under a condition that differs between invocations for every invocation, masked), the
// second uniform within a workgroup. A run that holds its victim at a place counts the
// victim's hold points and marks the places it passed where its model would let it be held.
// wgstress: parking begin
// The holds at a workgroup's start: the meeting, the wait behind a leading victim, and the
// victim's hold. Built without parking, these are empty: no run then holds a workgroup, and
// llvmpipe runs the code under every condition that differs between invocations (here the
// first invocation's) for every workgroup, masked, so code that never runs still costs each
// workgroup its time.
fn wgstress_hold_at_start() {
    if wgstress_params.meet > 1u && wgstress_params.victim != 0xffffffffu {
        wgstress_meet();
    }
    if wgstress_params.lead != 0u && wgstress_app_id != wgstress_params.victim {
        wgstress_follow();
    }
    if wgstress_app_id == wgstress_params.victim && wgstress_params.park_step == 0u
        && wgstress_may_park(true) {
        atomicStore(&wgstress_results.victim_parked, 1u);
        wgstress_park(true);
    }
}

// Waits until the occupancy bound (`occupancy` workgroups of `threads` invocations each are
// admitted at once) has room; a run without the bound admits at once.
fn wgstress_bound_occupancy(threads: u32) {
    if wgstress_params.occupancy > 0u {
        wgstress_admit(threads);
    }
}

fn wgstress_park_at_step(place: u32) {
    if wgstress_params.park_step == 0u || wgstress_app_id != wgstress_params.victim {
        return;
    }
    var due = false;
    // The hold point it parks at, as the record gives it: its loop steps without a place,
    // else every hold point it passed.
    var point = wgstress_steps;
    if wgstress_params.park_place == 0xffffffffu {
        // At its park_step-th loop step, as a run without a place counts them.
        due = place < WGSTRESS_ACCESS && wgstress_steps == wgstress_params.park_step;
    } else {
        wgstress_holds += 1u;
        point = wgstress_holds;
        var bit = place;
        if place >= WGSTRESS_ACCESS {
            bit = 128u + place - WGSTRESS_ACCESS;
        }
        if bit < 256u && (place < 128u || place >= WGSTRESS_ACCESS) && wgstress_may_park(false) {
            wgstress_reached[bit >> 5u] |= 1u << (bit & 31u);
        }
        if place == wgstress_params.park_place {
            wgstress_place_passes += 1u;
            due = wgstress_place_passes == wgstress_params.park_step;
        }
    }
    if due && wgstress_may_park(false) {
        atomicStore(&wgstress_results.victim_parked, point + 1u);
        atomicStore(&wgstress_results.victim_site, place + 1u);
        wgstress_park(false);
    }
}

// A hold point after a write: only in a run that holds its victim at a place. The test is on
// the params alone, uniform, so that a run without a place (a hold at the start, the
// emulator's steps) pays nothing for the writes' hold points.
fn wgstress_hold_write(place: u32) {
    if wgstress_params.park_place != 0xffffffffu {
        wgstress_park_at_step(place);
    }
}

// What the victim's invocations passed, as each leaves: its hold points and the places
// where the run could have held it.
fn wgstress_publish_holds() {
    if wgstress_app_id == wgstress_params.victim {
        atomicMax(&wgstress_results.victim_holds, wgstress_holds);
        for (var w = 0u; w < 8u; w++) {
            if wgstress_reached[w] != 0u {
                atomicOr(&wgstress_results.reached[w], wgstress_reached[w]);
            }
        }
    }
}

// wgstress: scripting begin
// The workgroup of scripted step `turn`.
fn wgstress_script_at(turn: u32) -> u32 {
    var entry = turn;
    if turn >= wgstress_params.script_prefix {
        entry = wgstress_params.script_prefix
            + (turn - wgstress_params.script_prefix) % max(wgstress_params.script_cycle, 1u);
    }
    return wgstress_params.script[entry / 4u][entry % 4u];
}

// Counts the scripted step this invocation took (the loop body it entered before this one).
// The last step of the script is the verdict: the run went round the execution's cycle as
// often as asked and the application has not ended, so it is starved under the model whose
// execution that is; every loop then leaves.
fn wgstress_end_turn() {
    if !wgstress_turn_taken {
        return;
    }
    wgstress_turn_taken = false;
    wgstress_turns += 1u;
    let taken = atomicAdd(&wgstress_results.turn, 1u) + 1u;
    if taken == wgstress_params.script_len {
        wgstress_record(3u, 0u);
        atomicStore(&wgstress_results.starved, 1u);
        atomicStore(&wgstress_results.stop, 1u);
    }
}

// Waits until the script names this workgroup for the next step, or the script is over (a
// workgroup it no longer names: one that has ended, or one the execution leaves unrun), at most
// `park_limit` checks, each four delays long (llvmpipe counts loop iterations, not time).
fn wgstress_wait_turn() {
    if wgstress_padding || !wgstress_first {
        return;
    }
    if wgstress_app_id < 32u && ((wgstress_params.script_ends >> wgstress_app_id) & 1u) != 0u
        && wgstress_turns == wgstress_script_steps_of() {
        // Its steps are taken and it ends: this entry leaves the loop. One more entry means
        // it did not end, and the run left the script's execution.
        if wgstress_turns_done {
            atomicStore(&wgstress_results.turn, WGSTRESS_SCRIPT_LEFT);
        }
        wgstress_turns_done = true;
        return;
    }
    var waited = 0u;
    loop {
        let turn = atomicLoad(&wgstress_results.turn);
        if turn >= wgstress_params.script_len || waited >= wgstress_params.park_limit {
            break;
        }
        if wgstress_script_at(turn) == wgstress_app_id {
            wgstress_turn_taken = true;
            break;
        }
        wgstress_sink(wgstress_long_delay(waited));
        waited += 1u;
    }
}

// Steps the script's prefix gives this workgroup, counted at its first ask (a loop of up to
// 64 iterations, which llvmpipe would otherwise count at every loop entry).
fn wgstress_script_steps_of() -> u32 {
    if wgstress_own_steps == 0xffffffffu {
        var steps = 0u;
        for (var entry = 0u; entry < min(wgstress_params.script_prefix, 64u); entry += 1u) {
            if wgstress_params.script[entry / 4u][entry % 4u] == wgstress_app_id {
                steps += 1u;
            }
        }
        wgstress_own_steps = steps;
    }
    return wgstress_own_steps;
}

// At the top of an application loop's body under a scripted schedule: counts the step this
// invocation took, then waits for its next one. A shader built without scripting gets an
// empty body (stress.rs): on llvmpipe the waiting loop, though it never ran, doubled what a
// loop's iteration spends of the 65,535 iterations llvmpipe allows.
fn wgstress_script_step() {
    if wgstress_params.script_len != 0u {
        wgstress_end_turn();
        wgstress_wait_turn();
    }
}
// wgstress: scripting end
// wgstress: parking end

// Right after an application loop: a step too, where the victim may be parked holding what
// the loop waited for (a lock just taken, a ticket served, a flag seen). `exited` is 1 when
// the loop left by one of its own exits (a break, its condition, its break-if, the
// watchdog's); 0 means the driver ended it: llvmpipe ends a loop once an invocation has run
// 65,535 iterations of its loops, and the application then goes on with what the loop had
// not finished. That is recorded as a cut, not blamed on the application.
fn wgstress_left(loop_id: u32, exited: u32) {
    if exited == 0u {
        wgstress_record(4u, loop_id);
    }
    if wgstress_turn_taken {
        // The loop ended on an entry the script gave a step (every step is counted at the
        // next entry): the run left the script's execution, which is no verdict; the script
        // is over for everyone.
        wgstress_turn_taken = false;
        atomicStore(&wgstress_results.turn, WGSTRESS_SCRIPT_LEFT);
    }
    wgstress_steps += 1u;
    wgstress_park_at_step(loop_id);
}

// At the top of an application loop's body, every entry: `state` hashes what the loop
// iteration before this one left (its locals, the atomics and results it read), `previous`
// the one before that. Counts the step, parks the victim at its step, and every 64 steps
// publishes progress or counts a check without any.
fn wgstress_step(loop_id: u32, iterations: u32, state: u32, previous: ptr<function, u32>) {
    wgstress_script_step();
    // The first entry has read nothing yet, so the first comparison that means anything is
    // the third entry's: the second iteration's reads against the first's.
    if iterations > 2u && state != *previous {
        wgstress_moved = true;
    }
    *previous = state;
    wgstress_steps += 1u;
    wgstress_park_at_step(loop_id);
    if (wgstress_steps & 63u) != 0u {
        return;
    }
    if wgstress_moved {
        // An invocation that moves publishes it every 256 steps at most, and only if nobody
        // else did since it last looked: in a busy application every invocation moves, and a
        // load or an add of one shared word per iteration would cost more than the
        // application.
        wgstress_moved = false;
        wgstress_idle = 0u;
        if (wgstress_steps & 255u) == 0u {
            let p = atomicLoad(&wgstress_results.progress);
            wgstress_seen = p;
            if p == wgstress_seen_before {
                wgstress_seen = atomicAdd(&wgstress_results.progress, 1u) + 1u;
            }
            wgstress_seen_before = wgstress_seen;
        }
        return;
    }
    let p = atomicLoad(&wgstress_results.progress);
    wgstress_seen_before = p;
    if p != wgstress_seen {
        wgstress_seen = p;
        wgstress_idle = 0u;
        return;
    }
    wgstress_idle += 1u;
    let before = atomicAdd(&wgstress_results.idle_checks, 1u);
    if wgstress_idle == 1u {
        wgstress_idle_base = before;
    }
    if wgstress_idle >= wgstress_params.stall_checks {
        wgstress_idle = 0u;
        // Others' checks without progress while this one made its own: they ran and waited.
        let others = before + 1u - wgstress_idle_base - wgstress_params.stall_checks;
        wgstress_stalled(loop_id, iterations, others);
    }
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

// wgstress: strategies
fn wgstress_stress(stress_group: u32, local_index: u32, group_size: u32) {
    if local_index == 0u {
        atomicAdd(&wgstress_results.stress_groups_ran, 1u);
    }
    let thread = stress_group * group_size + local_index;
    switch wgstress_params.strategy {
        // wgstress: strategy cases
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

// wgstress: start order begin
// The application id of a workgroup whose role `group` gives, under `in_order`: its first
// invocation takes the next in the order the dispatch's workgroups start. The progress models
// order workgroups by id, and the emulation's holds, release rules and occupancy bound take it
// that a workgroup starts after every lower id did, as a GPU starts them. SwiftShader starts
// them in another order (interleaved tasks, 0, 16, 1, 32, ..., or as its threads come free),
// and would otherwise have a workgroup wait on a lower id not yet started, which no model
// allows. Which workgroup gets which id is the device's to choose. Modulo the dispatch's size:
// dispatches of one shader share the results block, one after another. The load is uniform:
// the application's barriers stay in uniform control flow (Tint).
var<workgroup> wgstress_ticket: u32;

fn wgstress_in_start_order(group: vec3<u32>, local: vec3<u32>) -> vec3<u32> {
    if wgstress_params.in_order == 0u {
        return group;
    }
    if all(local == vec3<u32>(0u)) {
        wgstress_ticket = atomicAdd(&wgstress_results.next_id, 1u) % wgstress_params.app_total;
    }
    let id = workgroupUniformLoad(&wgstress_ticket);
    let size = wgstress_params.app_groups;
    return vec3<u32>(id % size.x, (id / size.x) % size.y, id / (size.x * size.y));
}
// wgstress: start order end

// Prologue of an application workgroup: the ids its events are recorded under.
fn wgstress_enter_app(group: vec3<u32>, local: vec3<u32>) {
    wgstress_group = group;
    wgstress_local = local;
    wgstress_first = all(local == vec3<u32>(0u));
    let size = wgstress_params.app_groups;
    wgstress_app_id = group.x + size.x * (group.y + size.y * group.z);
    // llvmpipe runs a workgroup smaller than its vector (8 lanes) with the other lanes
    // masked: their loads and atomics return 0 and their stores are dropped, but they follow
    // the control flow, and a loop lasts until every lane has left it. A wait on a location
    // that is 0 then lasts, in those lanes, until the loop's bound or llvmpipe's: a workgroup
    // of one invocation that has finished its work stays unfinished for thousands of
    // iterations, and a held one stays held after it was let go. Such a lane reads 0 where an
    // invocation reads what it stored, and leaves every loop it can (wgstress_stopped, the
    // holding loops).
    if wgstress_params.masked_lanes != 0u {
        atomicStore(&wgstress_results.live, 1u);
        wgstress_padding = atomicAdd(&wgstress_results.live, 0u) == 0u;
    }
}

// An application workgroup's start, before its first step, in uniform control flow, for an
// application with barriers: its first invocation counts it, holds it while it is the victim
// parked at its start or while the occupancy bound has no room, and marks its first step; the
// others wait at the barrier.
fn wgstress_start() {
    if wgstress_first {
        wgstress_begin();
        wgstress_bound_occupancy(1u);
        atomicMax(&wgstress_results.stepped_above, wgstress_app_id + 1u);
    }
    workgroupBarrier();
}

// The same for an application without barriers, where no barrier may be added (llvmpipe runs
// a shader with one as coroutines, its loops several times slower): every invocation is held
// on its own, and the occupancy bound counts invocations, `threads` a workgroup.
fn wgstress_start_alone(threads: u32) {
    wgstress_begin();
    wgstress_bound_occupancy(threads);
    atomicMax(&wgstress_results.stepped_above, wgstress_app_id + 1u);
}

// Counts the workgroup started (its first invocation) and holds the calling invocation if it
// is the victim's, parked at its start.
fn wgstress_begin() {
    if wgstress_first {
        atomicAdd(&wgstress_results.started, 1u);
        atomicAdd(&wgstress_results.progress, 1u);
    }
    wgstress_hold_at_start();
}

// Waits at the start until `meet` workgroups (or the whole dispatch, if fewer) started, at most
// `park_limit` checks, each four delays long. Where the device's threads are the operating
// system's (llvmpipe, which gives each thread that wakes the next share of the dispatch), the
// first thread to wake can run its share, and the next, before another wakes, most of all on
// a busy machine: the workgroups a hold needs beside it, a lower id unfinished under HSA or a
// waiter on the held one, would then never run at once. A delayed start is one every model
// allows.
fn wgstress_meet() {
    let want = min(wgstress_params.meet, wgstress_params.app_total);
    var waited = 0u;
    loop {
        if wgstress_padding || atomicLoad(&wgstress_results.started) >= want
            || waited >= wgstress_params.park_limit {
            break;
        }
        wgstress_sink(wgstress_long_delay(waited));
        waited += 1u;
    }
}

// Under `lead`, a workgroup other than the victim waits at its start until the victim parked
// at its step or finished: the victim runs alone first. At most `park_limit` checks, each a
// delay long (llvmpipe counts loop iterations, not time), so that a victim the device never
// runs does not keep the others from their work.
fn wgstress_follow() {
    var waited = 0u;
    atomicAdd(&wgstress_results.following, 1u);
    loop {
        if wgstress_padding || atomicLoad(&wgstress_results.victim_parked) != 0u
            || atomicLoad(&wgstress_results.victim_done) != 0u
            || waited >= wgstress_params.park_limit {
            break;
        }
        wgstress_sink(wgstress_long_delay(waited));
        waited += 1u;
    }
    atomicSub(&wgstress_results.following, 1u);
}

// Epilogue of an application invocation, for an application with barriers: publishes its
// highest loop count; once the whole workgroup is through, its first invocation counts it
// finished.
fn wgstress_leave_app() {
    wgstress_publish_trips();
    workgroupBarrier();
    if wgstress_first {
        wgstress_finish();
        if wgstress_params.occupancy > 0u {
            atomicAdd(&wgstress_results.freed, 1u);
        }
    }
}

// The same without a barrier: the workgroup counts as finished when its first invocation is.
fn wgstress_leave_alone() {
    wgstress_publish_trips();
    if wgstress_first {
        wgstress_finish();
    }
    if wgstress_params.occupancy > 0u {
        atomicAdd(&wgstress_results.freed, 1u);
    }
}

fn wgstress_publish_trips() {
    if wgstress_trips > 0u {
        atomicMax(&wgstress_results.max_trips, wgstress_trips);
    }
    wgstress_publish_holds();
}

fn wgstress_finish() {
    atomicAdd(&wgstress_results.finished, 1u);
    if wgstress_app_id < wgstress_params.victim {
        atomicAdd(&wgstress_results.finished_below, 1u);
    }
    if wgstress_app_id == wgstress_params.victim {
        atomicStore(&wgstress_results.victim_done, 1u);
    }
    atomicAdd(&wgstress_results.progress, 1u);
}

// Prologue of the postcondition entry point: its assertions count as postcondition failures.
fn wgstress_enter_check(group: vec3<u32>, local: vec3<u32>) {
    wgstress_phase = 1u;
    wgstress_group = group;
    wgstress_local = local;
}
