//! Random command lines and random app specs, within and beyond the limits: wgstress never
//! panics, and every bad input gets exit status 2 and one error line, before any GPU work.

mod common;

use common::{fixture, wgstress};
use proptest::prelude::*;
use std::process::Output;

/// Exit status 2, one `wgstress: error:` line, no panic.
fn assert_refused(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
    let errors = stderr
        .lines()
        .filter(|l| l.starts_with("wgstress: error: "))
        .count();
    assert_eq!(errors, 1, "{what}: {stderr}");
}

/// A value for any option: numbers in and out of every range, words, nothing.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        (0u32..70).prop_map(|n| n.to_string()),
        any::<i32>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        (0.0f64..20.0, 0.0f64..20.0).prop_map(|(a, b)| format!("{a}-{b}")),
        "[a-z;+0-9]{0,8}",
        Just(String::new()),
    ]
}

/// An option of run, compare, litmus, mutants or tune, or one that no command has.
fn flag() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "--runs",
        "--time",
        "--batch",
        "--timeout",
        "--iterations",
        "--stress-ratio",
        "--watchdog-limit",
        "--stress-fraction",
        "--stress-placement",
        "--buffer-shuffle",
        "--cache-mib",
        "--sequence",
        "--spread",
        "--patch-words",
        "--master-seed",
        "--seed",
        "--strategy",
        "--strategies",
        "--rounds",
        "--shuffle",
        "--variant",
        "--size",
        "--testing-groups",
        "--workgroup-size",
        "--stride",
        "--distance",
        "--stress-groups",
        "--stress-offset",
        "--target-lines",
        "--line-size",
        "--distances",
        "--locations",
        "--max-sequence",
        "--max-spread",
        "--iterations-per-cell",
        "--budget",
        "--y-gap",
        "--placement",
        "--tests",
        "--reproducibility",
        "--search-time",
        "--random-share",
        "--search-groups",
        "--no-such-option",
    ])
    .prop_map(str::to_string)
}

/// A command line that is bad for certain, whatever options it draws: an application, a
/// litmus test or a shader that does not exist, or a profile or an environment that cannot
/// be written.
fn bad_command_line() -> impl Strategy<Value = Vec<String>> {
    let command = prop::sample::select(vec![
        "run",
        "compare",
        "litmus",
        "mutants",
        "tune",
        "instrument",
    ]);
    let options = prop::collection::vec((flag(), value()), 0..4);
    (command, "[a-z]{1,8}", options).prop_map(|(command, name, options)| {
        let mut args = vec![command.to_string()];
        match command {
            "run" | "compare" => args.push(format!("zz-{name}")),
            "litmus" => args.push(format!("zz-{name}")),
            "tune" => args.extend(["--profile".into(), format!("missing-{name}/p.json")]),
            "mutants" => args.extend([
                "--search=1".into(),
                "--write-env".into(),
                format!("missing-{name}/e.json"),
            ]),
            _ => args.extend([
                format!("missing-{name}.wgsl"),
                "-o".into(),
                "o.wgsl".into(),
                "--manifest".into(),
                "m.json".into(),
            ]),
        }
        for (flag, value) in options {
            args.push(format!("{flag}={value}"));
        }
        args
    })
}

/// An option with a value out of its range, for a command that would otherwise run: every
/// one must be refused before the device opens.
fn bad_option() -> impl Strategy<Value = (&'static str, Vec<String>)> {
    let n = |r: std::ops::Range<u64>| r.prop_map(|n| n.to_string());
    let run = |flag: &'static str, value: BoxedStrategy<String>| {
        value.prop_map(move |v| ("run", vec![format!("{flag}={v}")]))
    };
    prop_oneof![
        run(
            "--runs",
            prop_oneof![Just("0".to_string()), "-[0-9]{1,5}".boxed()].boxed()
        ),
        run(
            "--time",
            prop_oneof![
                Just("0".to_string()),
                "-[0-9]{1,5}".boxed(),
                n(1_000_000_001..u64::MAX).boxed(),
                Just("1e300".into()),
                Just("NaN".into())
            ]
            .boxed()
        ),
        run(
            "--timeout",
            prop_oneof![
                Just("0".to_string()),
                Just("1e300".into()),
                Just("inf".into())
            ]
            .boxed()
        ),
        run(
            "--batch",
            prop_oneof![Just("0".to_string()), n(65537..u64::MAX).boxed()].boxed()
        ),
        run(
            "--iterations",
            prop_oneof![Just("0".to_string()), n(1 << 32..u64::MAX).boxed()].boxed()
        ),
        run("--watchdog-limit", Just("0".to_string()).boxed()),
        run(
            "--cache-mib",
            prop_oneof![Just("0".to_string()), n(16384..u64::MAX).boxed()].boxed()
        ),
        run(
            "--spread",
            prop_oneof![Just("0".to_string()), n(65..1000).boxed()].boxed()
        ),
        run(
            "--patch-words",
            prop_oneof![Just("0".to_string()), n(65..1000).boxed()].boxed()
        ),
        run(
            "--stress-fraction",
            prop_oneof![
                (1.01f64..100.0, 1.01f64..100.0).prop_map(|(a, b)| format!("{a}-{b}")),
                (0.5f64..1.0, 0.0f64..0.49).prop_map(|(a, b)| format!("{a}-{b}")),
                "[a-z]{1,4}",
            ]
            .boxed()
        ),
        run(
            "--stress-ratio",
            prop_oneof![Just("0".to_string()), "-[0-9]{1,3}".boxed()].boxed()
        ),
        run("--strategy", "[a-z]{1,3}".boxed()),
        run(
            "--buffer-shuffle",
            prop_oneof![Just("true".to_string()), Just("1".to_string())].boxed()
        ),
        run(
            "--sequence",
            prop_oneof![Just("ld;st;ld;st;ld;st".to_string()), "[a-z;]{0,3}".boxed()].boxed()
        ),
        run("--master-seed", "[g-z]{1,5}".boxed()),
        n(0..1).prop_map(|v| ("compare", vec![format!("--rounds={v}")])),
        "[a-z]{1,4}".prop_map(|v| ("compare", vec![format!("--shuffle={v}")])),
        n((1 << 30) + 1..u64::MAX).prop_map(|v| ("litmus", vec![format!("--distance={v}")])),
        n((1 << 30) + 1..u64::MAX).prop_map(|v| ("litmus", vec![format!("--stride={v}")])),
        n(0..1).prop_map(|v| ("litmus", vec![format!("--testing-groups={v}")])),
        n(6..1000).prop_map(|v| ("tune", vec![format!("--max-sequence={v}")])),
        n(4097..100_000).prop_map(|v| ("tune", vec![format!("--distances={v}")])),
        "-[0-9]{1,4}".prop_map(|v| ("tune", vec![format!("--budget={v}")])),
        n((1 << 30) + 1..u64::MAX).prop_map(|v| ("litmus", vec![format!("--y-gap={v}")])),
        "[a-z]{1,4}".prop_map(|v| ("litmus", vec![format!("--placement={v}")])),
        prop_oneof![Just("0".to_string()), "-[0-9]{1,2}".boxed()]
            .prop_map(|v| ("mutants", vec![format!("--time={v}")])),
        prop_oneof![n(1..100), "-[0-9]{1,3}".boxed()]
            .prop_map(|v| ("mutants", vec![format!("--reproducibility={v}")])),
        n(2..100).prop_map(|v| ("mutants", vec![format!("--random-share={v}")])),
        n(0..1).prop_map(|v| ("mutants", vec![format!("--search-groups=256,{v}")])),
        "[a-z]{1,3}".prop_map(|v| ("mutants", vec![format!("--tests={v}")])),
    ]
}

/// Workgroup sizes: small ones that run, zeros, and ones past 2^31 that no dispatch holds.
fn workgroups() -> impl Strategy<Value = Vec<u64>> {
    let size = prop_oneof![
        4 => 1u64..4,
        1 => Just(0u64),
        1 => ((1u64 << 31) + 1)..=u64::from(u32::MAX),
        1 => (1u64 << 32)..(1u64 << 40),
    ];
    prop::collection::vec(size, 0..5)
}

#[derive(Debug, Clone)]
struct RandomSpec {
    workgroups: Vec<u64>,
    words: u64,
    check_binding: u32,
    unknown_key: bool,
}

fn random_spec() -> impl Strategy<Value = RandomSpec> {
    let words = prop_oneof![
        4 => Just(1u64),
        1 => Just(0u64),
        1 => 2u64..100,
        1 => (1u64 << 30) + 1..(1u64 << 33),
    ];
    let check = prop_oneof![4 => Just(0u32), 1 => 1u32..16];
    (workgroups(), words, check, prop::bool::weighted(0.1)).prop_map(
        |(workgroups, words, check_binding, unknown_key)| RandomSpec {
            workgroups,
            words,
            check_binding,
            unknown_key,
        },
    )
}

impl RandomSpec {
    fn text(&self) -> String {
        let sizes: Vec<String> = self.workgroups.iter().map(u64::to_string).collect();
        format!(
            "shader = {:?}\nworkgroups = [{}]\n{}\n[[binding]]\nbinding = 0\nkind = \"storage\"\nwords = {}\n\n[[check]]\nbinding = {}\nkind = \"sorted\"\n",
            fixture("counter.wgsl").replace('\\', "/"),
            sizes.join(", "),
            if self.unknown_key { "colour = 3" } else { "" },
            self.words,
            self.check_binding,
        )
    }

    /// Whether wgstress should run this spec: everything within its limits and matching
    /// the counter shader's one-word binding.
    fn valid(&self) -> bool {
        let dims_ok = (1..=3).contains(&self.workgroups.len())
            && self
                .workgroups
                .iter()
                .all(|&g| (1..=u64::from(u32::MAX)).contains(&g))
            && self
                .workgroups
                .iter()
                .map(|&g| u128::from(g))
                .product::<u128>()
                <= 1 << 31;
        dims_ok && self.words == 1 && self.check_binding == 0 && !self.unknown_key
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn bad_command_lines_are_refused_in_one_line(args in bad_command_line()) {
        let dir = tempfile::tempdir().unwrap();
        let out = wgstress(&args, dir.path());
        assert_refused(&out, &format!("{args:?}"));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        prop_assert!(left.is_empty(), "{args:?} left files behind: {left:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn out_of_range_values_are_refused_before_the_device_opens(
        (command, options) in bad_option()
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec![command.to_string()];
        match command {
            "run" | "compare" => args.push(fixture("counter.toml")),
            "litmus" => args.push("mp".into()),
            _ => {}
        }
        args.extend(options);
        let out = wgstress(&args, dir.path());
        assert_refused(&out, &format!("{args:?}"));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        prop_assert!(left.is_empty(), "{args:?} left files behind: {left:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_specs_run_or_are_refused_in_one_line(spec in random_spec()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.toml");
        std::fs::write(&path, spec.text()).unwrap();
        let args: Vec<String> = [
            "run", "spec.toml", "--runs", "1", "--batch", "1", "--strategy", "none", "--no-log",
            "--quiet",
        ]
        .map(str::to_string)
        .to_vec();
        let out = wgstress(&args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        prop_assert!(!stderr.contains("panicked"), "{spec:?}: {stderr}");
        if spec.valid() {
            // The counter is sorted (one word): the run passes.
            prop_assert_eq!(out.status.code(), Some(0), "{:?}: {}", spec, stderr);
        } else {
            assert_refused(&out, &spec.text());
        }
    }
}
