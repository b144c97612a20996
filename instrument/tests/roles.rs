//! Release and acquire roles of sites, their counterparts through a flag, a lock or a
//! look-back's flags, and the portable completion of a kept set, on small shaders.

use wgstress_instrument::placement::{analyse, Analysis, Role, Side};
use wgstress_instrument::InstrumentOptions;

fn analysis(source: &str) -> Analysis {
    let options = InstrumentOptions {
        file_name: Some("roles.wgsl".into()),
        ..Default::default()
    };
    analyse(source, &options, &[]).unwrap_or_else(|e| panic!("{e}\n{source}"))
}

fn site(analysis: &Analysis, side: Side, line: u32, column: u32) -> u32 {
    let found = analysis
        .sites
        .iter()
        .find(|s| s.side == side && s.line == line && s.column == column);
    found
        .unwrap_or_else(|| panic!("no site {side:?} {line}:{column}: {:?}", analysis.sites))
        .id
}

const MESSAGE: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        data[0] = 42u;
        atomicStore(&flag, 1u);
    } else {
        let f = atomicLoad(&flag);
        seen[wid.x] = data[0] + f;
    }
}
";

#[test]
fn message_passing_pairs_the_writers_release_with_the_readers_acquire() {
    let a = analysis(MESSAGE);
    let release = site(&a, Side::After, 8, 9);
    let acquire = site(&a, Side::After, 11, 17);
    let role = &a.roles[release as usize];
    assert_eq!(role.role, Role::Release);
    let published = role.release.as_ref().unwrap();
    assert_eq!(
        (
            published.publishes.text.as_str(),
            published.publishes.at.to_string()
        ),
        ("data[0]", "roles.wgsl:8:9".to_string())
    );
    assert_eq!(published.flag.text, "flag");
    assert_eq!(role.counterparts, [acquire]);
    let reader = &a.roles[acquire as usize];
    assert_eq!(reader.role, Role::Acquire);
    let guarded = reader.acquire.as_ref().unwrap();
    assert_eq!(guarded.flag.at.to_string(), "roles.wgsl:11:29");
    assert_eq!(guarded.guards.text, "data[0]");
    assert_eq!(reader.counterparts, [release]);
    assert_eq!(
        a.reason(release).unwrap(),
        "release: publishes the write of `data[0]` at roles.wgsl:8:9 through `flag` at roles.wgsl:9:22"
    );
    assert_eq!(
        a.reason(acquire).unwrap(),
        "acquire: after the read of `flag` at roles.wgsl:11:29, guards the read of `data[0]` at roles.wgsl:12:23"
    );
    // The adapter needed only the release: the portable set adds the acquire.
    let portable = a.portable(&[release]);
    assert_eq!(portable.sites, {
        let mut s = vec![release, acquire];
        s.sort_unstable();
        s
    });
    assert_eq!(portable.needed, [release]);
    assert_eq!(portable.added.len(), 1);
    assert_eq!(
        (
            portable.added[0].site,
            portable.added[0].side,
            portable.added[0].completes
        ),
        (acquire, Role::Acquire, release)
    );
    assert!(portable.missing.is_empty());
    // And the other way round.
    assert_eq!(a.portable(&[acquire]).sites, portable.sites);
    // Sites that order no such pair have no role.
    let before_all = site(&a, Side::Before, 8, 9);
    assert_eq!(a.roles[before_all as usize].role, Role::None);
    assert_eq!(a.reason(before_all), None);
}

const LOCK: &str = "@group(0) @binding(0) var<storage, read_write> total: u32;
@group(0) @binding(1) var<storage, read_write> mutex: atomic<u32>;

fn lock(lid: u32) {
    if lid == 0u {
        while !atomicCompareExchangeWeak(&mutex, 0u, 1u).exchanged {
        }
    }
}

fn unlock(lid: u32) {
    if lid == 0u {
        atomicStore(&mutex, 0u);
    }
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    lock(lid);
    if lid == 0u {
        total = total + 1u;
    }
    unlock(lid);
}
";

#[test]
fn a_lock_pairs_the_barrier_before_its_release_with_the_one_after_taking_it() {
    let a = analysis(LOCK);
    let release = site(&a, Side::Before, 13, 9);
    let acquire = site(&a, Side::After, 6, 16);
    assert_eq!(a.roles[release as usize].role, Role::Release);
    assert_eq!(a.roles[acquire as usize].role, Role::Acquire);
    let publishes = &a.roles[release as usize]
        .release
        .as_ref()
        .unwrap()
        .publishes;
    assert_eq!(
        (publishes.text.as_str(), publishes.at.to_string()),
        ("total", "roles.wgsl:21:9".to_string())
    );
    // The counterparts are in other functions: the ones the lock's accesses are in.
    assert_eq!(a.sites[acquire as usize].function, "lock");
    assert_eq!(a.sites[release as usize].function, "unlock");
    assert!(a.roles[release as usize].counterparts.contains(&acquire));
    let portable = a.portable(&[release]);
    assert!(portable.sites.contains(&acquire), "{portable:?}");
    // One barrier in `lock` serves its call; main's site after the call is not added too.
    let after_call = site(&a, Side::After, 19, 5);
    assert!(!portable.sites.contains(&after_call), "{portable:?}");
}

/// A look-back: workgroup 0 publishes its value and raises its flag; the others spin on
/// their predecessor's flag, then read its value (also the simulated search's, in runtime).
const LOOK_BACK: &str = include_str!("fixtures/look_back.wgsl");

#[test]
fn a_barrier_the_completion_adds_may_be_placed_at_each_site_of_its_window() {
    let a = analysis(LOOK_BACK);
    let release = site(&a, Side::After, 9, 9);
    let after_loop = site(&a, Side::Before, 24, 26);
    let in_loop = site(&a, Side::After, 17, 31);
    let placements = a.placements(&[release], 6);
    // The analysis's own first: after the spin loop, the latest site of the window.
    assert_eq!(placements[0], a.portable(&[release]));
    assert!(placements[0].added[0].alternatives.contains(&in_loop));
    assert!(!placements[0].added[0].alternatives.contains(&after_loop));
    // Each other placement fences the same pair elsewhere in the window: the release kept,
    // no barrier after the loop; each set once, none holding another (a barrier before the
    // spin's load needs the one after the loop still, for the last round's load), and each
    // one the text can take.
    assert!(placements.len() > 1, "{placements:?}");
    assert!(placements.iter().any(|p| p.sites.contains(&in_loop)));
    for (i, p) in placements.iter().enumerate().skip(1) {
        assert_eq!(p.needed, [release]);
        assert!(p.sites.contains(&release) && !p.sites.contains(&after_loop));
        assert!(placements[..i]
            .iter()
            .all(|q| !q.sites.iter().all(|s| p.sites.contains(s))));
        assert!(placements[..i]
            .iter()
            .all(|q| q.sites.len() <= p.sites.len()));
        let patch = a.source_patch(&p.sites).unwrap();
        assert_eq!(
            patch.text.matches("storageBarrier();").count(),
            p.sites.len()
        );
    }
    assert_eq!(a.placements(&[release], 1), [a.portable(&[release])]);
}

#[test]
fn a_look_back_gets_its_acquire_after_the_spin_loop_not_inside_it() {
    let a = analysis(LOOK_BACK);
    let release = site(&a, Side::After, 9, 9);
    assert_eq!(a.roles[release as usize].role, Role::Release);
    let portable = a.portable(&[release]);
    let after_loop = site(&a, Side::Before, 24, 26);
    let in_loop = site(&a, Side::After, 17, 31);
    assert_eq!(a.roles[in_loop as usize].role, Role::Acquire);
    assert_eq!(portable.added.len(), 1, "{portable:?}");
    assert_eq!(portable.added[0].site, after_loop);
    // The data values and the flags are different places: data are not flags.
    let flag = &a.roles[release as usize].release.as_ref().unwrap().flag;
    assert_eq!(flag.text, "flags[wid.x]");
}

#[test]
fn a_pair_whose_acquire_side_has_no_legal_site_is_named() {
    // The reader reads the flag and the data inside a loop whose trip count differs per
    // invocation: WGSL allows no barrier there.
    let source = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        data[0] = 42u;
        atomicStore(&flag, 1u);
    }
    for (var i = 0u; i < lid % 4u; i++) {
        if atomicLoad(&flag) == 1u {
            seen[lid] = data[0];
        }
    }
}
";
    let a = analysis(source);
    let release = site(&a, Side::After, 8, 9);
    assert_eq!(a.roles[release as usize].role, Role::Release);
    assert!(a.roles[release as usize].counterparts.is_empty());
    let portable = a.portable(&[release]);
    assert_eq!(portable.sites, [release]);
    let missing: Vec<(Role, String, String)> = portable
        .missing
        .iter()
        .map(|m| (m.side, m.after.at.to_string(), m.before.at.to_string()))
        .collect();
    assert_eq!(
        missing,
        [(
            Role::Acquire,
            "roles.wgsl:12:24".to_string(),
            "roles.wgsl:13:25".to_string()
        )]
    );
}

/// A read-only buffer is the same for the whole dispatch: its reads are no data of a
/// message, so the acquire guards the read of what the writer published.
#[test]
fn a_read_only_buffers_reads_are_not_the_data_an_acquire_guards() {
    let source = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> seen: array<u32>;
@group(0) @binding(3) var<storage, read> scale: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        data[0] = 42u;
        atomicStore(&flag, 1u);
    } else {
        let f = atomicLoad(&flag);
        let s = scale[wid.x];
        seen[wid.x] = data[0] * s + f;
    }
}
";
    let a = analysis(source);
    let release = site(&a, Side::After, 9, 9);
    let acquire = site(&a, Side::After, 12, 17);
    assert_eq!(a.roles[release as usize].counterparts, [acquire]);
    assert_eq!(
        a.reason(acquire).unwrap(),
        "acquire: after the read of `flag` at roles.wgsl:12:29, guards the read of `data[0]` at roles.wgsl:14:23"
    );
}

/// Two messages read by one acquire: `data` through `flags[0]`, `more` through `flags[1]`;
/// a third workgroup reads `flags[1]` and `more` alone.
const TWO_FLAGS: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> more: array<u32>;
@group(0) @binding(2) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        data[0] = 1u;
        atomicStore(&flags[0], 1u);
    }
    if wid.x == 1u {
        more[0] = 2u;
        atomicStore(&flags[1], 1u);
    }
    if wid.x == 2u {
        let a = atomicLoad(&flags[0]);
        let b = atomicLoad(&flags[1]);
        out[0] = data[0] + more[0] + a + b;
    }
    if wid.x == 3u {
        let c = atomicLoad(&flags[1]);
        out[1] = more[0] + c;
    }
}
";

/// The acquire added for `data`'s message follows `flags[1]` too: the completion gives that
/// flag's writer its release.
#[test]
fn an_added_acquire_gets_the_release_of_every_flag_it_follows() {
    let a = analysis(TWO_FLAGS);
    let first = site(&a, Side::After, 9, 9);
    let second = site(&a, Side::After, 13, 9);
    let acquire = site(&a, Side::After, 18, 17);
    let portable = a.portable(&[first]);
    let added: Vec<(u32, Role, u32)> = portable
        .added
        .iter()
        .map(|x| (x.site, x.side, x.completes))
        .collect();
    assert_eq!(
        added,
        [
            (acquire, Role::Acquire, first),
            (second, Role::Release, acquire)
        ],
        "{portable:?}"
    );
    assert_eq!(portable.needed, [first]);
}

/// A release the completion adds is not completed in turn: the third workgroup's acquire
/// is for a reader of a message the kept set does not touch.
#[test]
fn an_added_release_does_not_bring_the_acquires_of_its_other_readers() {
    let a = analysis(TWO_FLAGS);
    let second = site(&a, Side::After, 13, 9);
    let acquire = site(&a, Side::After, 18, 17);
    let other_reader = site(&a, Side::After, 22, 17);
    assert!(a.roles[second as usize]
        .counterparts
        .contains(&other_reader));
    let mut expected = vec![acquire, second];
    expected.sort_unstable();
    assert_eq!(a.portable(&[acquire]).sites, expected);
    // Kept, the same release gets both its readers' acquires.
    let kept = a.portable(&[second]);
    assert!(kept.sites.contains(&other_reader) && kept.sites.contains(&acquire));
}

/// Records of four words in one array, the first word the record's ready flag: the index's
/// residue modulo the record's size tells the words apart.
const RECORDS: &str = "@group(0) @binding(0) var<storage, read_write> cells: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let c = wid.x * 4u;
    if wid.x % 2u == 0u {
        atomicStore(&cells[c + 1u], 7u);
        atomicStore(&cells[c + 2u], 8u);
        atomicStore(&cells[c], 1u);
    } else {
        let ready = atomicLoad(&cells[c - 4u]);
        out[wid.x] = atomicLoad(&cells[c - 3u]) + atomicLoad(&cells[c - 2u]) + ready;
    }
}
";

/// The barrier before the ready word's store is a release that the reader's acquire, after
/// its read of the ready word, pairs with.
#[test]
fn a_records_ready_word_is_the_flag_of_its_other_words() {
    let a = analysis(RECORDS);
    let release = site(&a, Side::After, 9, 9);
    let acquire = site(&a, Side::After, 12, 21);
    let role = &a.roles[release as usize];
    assert_eq!(role.release.as_ref().unwrap().flag.text, "cells[c]");
    assert_eq!(role.counterparts, [acquire]);
    assert_eq!(
        a.roles[acquire as usize]
            .acquire
            .as_ref()
            .unwrap()
            .flag
            .text,
        "cells[c - 4u]"
    );
}

/// The barrier between two data words' stores is no release: the word after it is read by
/// no one before the other (`c + 2u` and `c - 3u` differ modulo 4), so it is no flag.
#[test]
fn a_records_data_word_is_not_the_flag_of_the_word_before_it() {
    let a = analysis(RECORDS);
    let between = site(&a, Side::After, 8, 9);
    assert_eq!(a.roles[between as usize].release, None);
    let release = site(&a, Side::After, 9, 9);
    assert_eq!(a.portable(&[release]).sites.len(), 2);
}

/// A list: the writer fills node 2 and then links it from node 0; the reader follows the
/// links, each round reading the node the previous round's value names.
const LIST: &str = "@group(0) @binding(0) var<storage, read_write> next: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    if wid.x == 0u {
        atomicStore(&next[2], 0u);
        atomicStore(&next[0], 2u);
    } else {
        var node = 0u;
        for (var step = 0u; step < 2u; step++) {
            let value = atomicLoad(&next[node]);
            node = value;
        }
        out[wid.x] = node;
    }
}
";

/// One load in two rounds is a message when the next round's index is computed from the
/// value this round read: a pointer followed. The acquire goes between the two rounds' reads:
/// the portable set takes the latest place, at the top of the next round.
#[test]
fn a_load_that_follows_the_pointer_it_read_is_a_flag_and_its_data() {
    let a = analysis(LIST);
    let release = site(&a, Side::After, 7, 9);
    let after_read = site(&a, Side::After, 12, 25);
    let top = site(&a, Side::Before, 12, 25);
    assert_eq!(a.roles[release as usize].role, Role::Release);
    assert!(
        a.roles[release as usize].counterparts.contains(&top),
        "{:?}",
        a.roles[release as usize]
    );
    let guarded = a.roles[after_read as usize].acquire.as_ref().unwrap();
    assert_eq!(
        (guarded.flag.text.as_str(), guarded.guards.text.as_str()),
        ("next[node]", "next[node]")
    );
    let portable = a.portable(&[release]);
    let added: Vec<(u32, Role)> = portable.added.iter().map(|x| (x.site, x.side)).collect();
    assert_eq!(added, [(top, Role::Acquire)], "{portable:?}");
    // A barrier kept between the two reads orders them already.
    assert_eq!(a.portable(&[release, after_read]).added, []);
}

/// A loop over an array reads one element after the other: its index is a counter, not a
/// value it read, so its rounds are no message.
#[test]
fn a_load_whose_index_is_a_counter_is_not_its_own_flag() {
    let source = LIST.replace(
        "node = value;",
        "node = step + 1u;\n            out[0] = value;",
    );
    let a = analysis(&source);
    let release = site(&a, Side::After, 7, 9);
    assert!(
        a.roles[release as usize].counterparts.is_empty(),
        "{:?}",
        a.roles[release as usize]
    );
    assert_eq!(a.portable(&[release]).sites, [release]);
}
