//! Seeded fuzzing of the command line (issue 24): random argument lists, drawn from every
//! command's options with values in and out of their ranges, and random mutations of a valid
//! app spec, run against the binary on lavapipe. Whatever the input, wgstress does not panic,
//! does not hang (a case that outlives its time gets Ctrl-C and must then exit within a
//! grace period), and exits 0, 1, 2 or 130 only.
//!
//! Each case draws everything from its own seed. A failure prints the seed and the command
//! line; `WGSTRESS_SEED=0x... cargo test --test fuzz` replays that case alone. Without it the
//! cases' seeds derive from a master seed taken from the clock, printed at the start
//! (`--nocapture` shows it), so each run of the suite tries new cases. The count of cases is
//! fixed, and most are cheap, so the test stays well under a minute.
//!
//! `import` and `merge` are fuzzed with mutated inputs as well: a wgpu trace and a campaign's
//! shard logs, each mutated byte-wise (tokens of RON and JSON put in, ranges cut or doubled,
//! numbers past every bound), beside issue 59's hostile traces.
//!
//! Every case runs beside the hostile files of issue 35 (`hostile_files`): shaders that nest
//! past the parser's stack, a byte order mark, a hard link to an input, a FIFO, a plan whose
//! test is `--list`. Random cases draw them among their values, and `HOSTILE` runs each of
//! that issue's reproductions as a case of its own on every run of the suite; no case may
//! change `shader.wgsl`, the input `link.wgsl` is a hard link to.

mod common;
mod support;

use common::fixture;
use std::process::Output;
use std::time::Duration;

/// Cases per run of the suite.
const CASES: u64 = 32;
/// How long a case may run before it gets Ctrl-C; then how long it has to exit.
const RUN_FOR: Duration = Duration::from_secs(20);
const GRACE: Duration = Duration::from_secs(15);

/// SplitMix64: small, seedable, and enough to draw test cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Options of every command, each with values in and out of its range ("" for a flag).
const OPTIONS: &[(&str, &[&str])] = &[
    ("--runs", &["1", "2", "0", "-1", "x"]),
    ("--time", &["0.3", "0.5", "0", "-2", "1e12", "NaN"]),
    ("--batch", &["1", "4", "0", "70000"]),
    ("--timeout", &["3", "0", "x", "1e300"]),
    ("--iterations", &["8", "64", "0", "4294967296"]),
    ("--stress-ratio", &["0.5", "0", "-1", "inf"]),
    ("--watchdog-limit", &["100", "5000", "0"]),
    ("--stress-fraction", &["0.1-0.2", "0.5-0.2", "2-3", "x"]),
    ("--stress-placement", &["after", "before", "x"]),
    ("--buffer-shuffle", &["on", "off", "true"]),
    ("--cache-mib", &["1", "0", "20000"]),
    (
        "--sequence",
        &["ld;st", "st", "ld;st;ld;st;ld;st", "", "x;y"],
    ),
    ("--spread", &["1", "64", "0", "65"]),
    ("--patch-words", &["1", "64", "0"]),
    ("--master-seed", &["1", "0x10", "x"]),
    ("--seed", &["0x1", "x"]),
    (
        "--strategy",
        &["none", "systematic", "cache", "random", "x"],
    ),
    ("--strategies", &["none,cache", "none", "x", ""]),
    ("--rounds", &["1", "2", "0"]),
    ("--shuffle", &["both", "off", "x"]),
    ("--variant", &["buggy", "fixed", "nofence", "x"]),
    ("--size", &["small", "large", "x"]),
    ("--until-failures", &["1", "0"]),
    ("--raw", &[""]),
    ("--no-shuffle", &[""]),
    ("--json", &[""]),
    ("--no-log", &[""]),
    ("--log", &["log.jsonl", "/dev/full", "missing/x.jsonl", ""]),
    ("--profile", &["/dev/zero", "p.json", "missing/p.json"]),
    ("--entry", &["main", "nope"]),
    ("--postcondition", &["nope"]),
    ("--quiet", &[""]),
    ("--budget", &["1", "0", "1e12"]),
    ("--verify", &["1", "0"]),
    ("--sites", &[""]),
    ("--all", &[""]),
    ("-o", &["out.wgsl", "/dev/full", "", "link.wgsl"]),
    ("--testing-groups", &["1", "2", "0", "4294967296"]),
    ("--workgroup-size", &["8", "0", "1024"]),
    ("--stride", &["1", "4", "0"]),
    ("--distance", &["1", "2", "0"]),
    ("--y-gap", &["0", "16"]),
    ("--placement", &["direct", "permuted", "x"]),
    ("--stress-groups", &["0", "1", "2"]),
    ("--env", &["/dev/zero", "env.json", "missing.json"]),
    ("--fence", &[""]),
    ("--list", &[""]),
    ("--tests", &["all", "mutants", "conformance", "x"]),
    ("--search", &["0.5", "0"]),
    ("--reproducibility", &["0.5", "2"]),
    ("--manifest", &["m.json", ""]),
    ("--diff", &[""]),
    ("--distances", &["1", "0", "5000"]),
    ("--locations", &["2", "1"]),
    ("--max-sequence", &["1", "6"]),
    ("--max-spread", &["1", "0"]),
    ("--iterations-per-cell", &["1", "0"]),
    ("--heat-map", &["h.svg", ""]),
    ("--shard", &["0/1", "1/2", "2/2", "1/99999999999"]),
    (
        "--baseline",
        &["/dev/zero", "fifo", "missing.toml", "plan.toml"],
    ),
    (
        "--html",
        &["r.html", "link.wgsl", "results/h/g/shard-0/shard.jsonl"],
    ),
    ("--constant", &["n=0", "n=8", "n=-1", "x"]),
    ("--no-such-option", &["", "1"]),
];

/// Options that keep a command that runs short, unless the case drew the option itself.
fn bounds(command: &str) -> &'static [(&'static str, &'static str)] {
    match command {
        "run" => &[("--runs", "2")],
        "compare" => &[
            ("--runs", "2"),
            ("--strategies", "none"),
            ("--shuffle", "off"),
        ],
        "fences" => &[("--budget", "1"), ("--verify", "1")],
        "litmus" => &[
            ("--testing-groups", "2"),
            ("--workgroup-size", "8"),
            ("--iterations", "2"),
        ],
        "mutants" => &[
            ("--testing-groups", "2"),
            ("--workgroup-size", "8"),
            ("--time", "0.05"),
            ("--tests", "conformance"),
        ],
        "tune" => &[
            ("--testing-groups", "2"),
            ("--workgroup-size", "8"),
            ("--budget", "4"),
        ],
        _ => &[],
    }
}

/// A valid spec: the counter fixture, with its shader's path made absolute.
fn base_spec() -> String {
    std::fs::read_to_string(fixture("counter.toml"))
        .unwrap()
        .replace(
            "shader = \"counter.wgsl\"",
            &format!("shader = {:?}", fixture("counter.wgsl")),
        )
}

/// Lines a mutation may insert into a spec.
const SPEC_LINES: &[&str] = &[
    "init = { kind = \"file\", path = \"/dev/zero\" }",
    "init = { kind = \"file\", path = \"missing.bin\" }",
    "init = { kind = \"iota\" }",
    "init = { kind = \"values\", type = \"f32\", values = [1.5, -2] }",
    "[[check]]",
    "kind = \"sorted\"",
    "binding = 1",
    "[constants]",
    "X = 1",
    "[[dispatch]]",
    "workgroups = [1, 1, 1, 1]",
    "workgroups = [4294967295, 2]",
    "colour = 3",
    "entry = \"nope\"",
    "words = 0",
    "words = 1073741825",
    "kind = \"uniform\"",
    "shader = \"/dev/zero\"",
    "shader = \"deep-sum.wgsl\"",
    "shader = \"deep-chain.wgsl\"",
    "shader = \"bom.wgsl\"",
    "shader = \"fifo\"",
    "workgroups = [70000]",
    "init = { kind = \"random\", seed = 1, below = 0 }",
    "init = { kind = \"file\", path = \"/proc/self/status\" }",
    "[[binding]]",
    "= = =",
];

/// The hostile files every case's directory holds (issue 35): `deep-sum.wgsl`, an expression
/// of 15,000 terms, and `deep-chain.wgsl`, an else-if chain of 10,000 arms (each overflowed
/// naga's parser's stack); `bom.wgsl` (a byte order mark); `link.wgsl`, a hard link to
/// `shader.wgsl`; `fifo`, a FIFO with no writer; `plan.toml`, a campaign plan, and
/// `dash-plan.toml`, one whose test is `--list`; `results/`, a campaign's output with a log.
fn hostile_files(dir: &std::path::Path) {
    let head = "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;\n\
                @compute @workgroup_size(1)\nfn main() {\n";
    let sum = vec!["buf[0]"; 15_000].join(" + ");
    std::fs::write(
        dir.join("deep-sum.wgsl"),
        format!("{head}buf[1] = {sum};\n}}\n"),
    )
    .unwrap();
    let mut chain = format!("{head}if buf[0] == 0u {{ buf[1] = 0u; }}");
    for i in 1..10_000 {
        chain.push_str(&format!(" else if buf[0] == {i}u {{ buf[1] = {i}u; }}"));
    }
    std::fs::write(dir.join("deep-chain.wgsl"), chain + "\n}\n").unwrap();
    let counter = std::fs::read_to_string(fixture("counter.wgsl")).unwrap();
    std::fs::write(dir.join("bom.wgsl"), format!("\u{feff}{counter}")).unwrap();
    std::fs::write(dir.join("shader.wgsl"), &counter).unwrap();
    std::fs::hard_link(dir.join("shader.wgsl"), dir.join("link.wgsl")).unwrap();
    let fifo = std::ffi::CString::new(dir.join("fifo").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let item = "[[item]]\ncommand = \"litmus\"\ntest = ";
    std::fs::write(
        dir.join("plan.toml"),
        format!("{item}\"mp\"\niterations = 2\n"),
    )
    .unwrap();
    std::fs::write(dir.join("dash-plan.toml"), format!("{item}\"--list\"\n")).unwrap();
    let shard = dir.join("results/h/g/shard-0");
    std::fs::create_dir_all(&shard).unwrap();
    std::fs::write(shard.join("shard.jsonl"), "").unwrap();
}

/// Issue 35's reproductions, each a case of its own: it must end as every case must, and
/// leave `shader.wgsl` as it was.
const HOSTILE: &[&[&str]] = &[
    &[
        "instrument",
        "deep-sum.wgsl",
        "-o",
        "o.wgsl",
        "--manifest",
        "m.json",
    ],
    &[
        "instrument",
        "deep-chain.wgsl",
        "-o",
        "o.wgsl",
        "--manifest",
        "m.json",
    ],
    &[
        "instrument",
        "bom.wgsl",
        "-o",
        "o.wgsl",
        "--manifest",
        "m.json",
    ],
    &[
        "instrument",
        "shader.wgsl",
        "-o",
        "link.wgsl",
        "--manifest",
        "m.json",
    ],
    &[
        "instrument",
        "shader.wgsl",
        "-o",
        "o.wgsl",
        "--manifest",
        "m.json",
        "--constant",
        "n=0",
    ],
    // Written as root through a rename, this put a file where /dev/full was.
    &[
        "instrument",
        "shader.wgsl",
        "-o",
        "/dev/full",
        "--manifest",
        "m.json",
    ],
    &["campaign", "/dev/zero", "--list"],
    &["campaign", "fifo", "--list"],
    &["campaign", "dash-plan.toml", "--list"],
    &[
        "campaign",
        "plan.toml",
        "--list",
        "--shard",
        "1/99999999999",
    ],
    &[
        "campaign",
        "plan.toml",
        "--out",
        "out",
        "--baseline",
        "/dev/zero",
    ],
    &[
        "campaign",
        "plan.toml",
        "--out",
        "out",
        "--baseline",
        "fifo",
    ],
    &["merge", "results", "--baseline", "/dev/zero"],
    &["merge", "results", "--baseline", "fifo"],
    &[
        "merge",
        "results",
        "--html",
        "results/h/g/shard-0/shard.jsonl",
    ],
];

/// `spec` with one to three random mutations.
fn mutate(spec: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = spec.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(lines.len() + 1);
        match rng.below(6) {
            0 if !lines.is_empty() => {
                lines.remove(at.min(lines.len() - 1));
            }
            1 if !lines.is_empty() => {
                let line = lines[at.min(lines.len() - 1)].clone();
                lines.insert(at, line);
            }
            2 => lines.insert(at, rng.pick(SPEC_LINES).to_string()),
            3 => {
                let value = rng.pick(&["0", "-1", "4294967296", "3.5", "99999999999999999999"]);
                if let Some(line) = lines.iter_mut().find(|l| l.ends_with(char::is_numeric)) {
                    let key = line.split('=').next().unwrap_or_default().to_string();
                    *line = format!("{key}= {value}");
                }
            }
            4 => {
                let value = rng.pick(&["\"\"", "\"nosuch\"", "\"storage\"", "\"zeros\""]);
                let index = rng.below(lines.len());
                if let Some(line) = lines.get_mut(index).filter(|l| l.contains('"')) {
                    let key = line.split('=').next().unwrap_or_default().to_string();
                    *line = format!("{key}= {value}");
                }
            }
            _ => {
                let text = lines.join("\n");
                let cut = rng.below(text.len());
                let cut = (0..=cut)
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(0);
                lines = text[..cut].lines().map(str::to_string).collect();
            }
        }
    }
    lines.join("\n") + "\n"
}

/// The options each command takes, from its --help, so that most cases draw options their
/// command takes and get past clap.
struct Helps(std::collections::HashMap<&'static str, String>);

impl Helps {
    fn load() -> Helps {
        let dir = tempfile::tempdir().unwrap();
        let commands = [
            "run",
            "compare",
            "fences",
            "litmus",
            "mutants",
            "tune",
            "instrument",
            "campaign",
            "merge",
        ];
        Helps(
            commands
                .into_iter()
                .map(|c| {
                    let out = common::wgstress(&[c, "--help"], dir.path());
                    (c, String::from_utf8_lossy(&out.stdout).into_owned())
                })
                .collect(),
        )
    }

    /// Indices into OPTIONS of the options `command` takes.
    fn taken(&self, command: &str) -> Vec<usize> {
        let help = self.0.get(command).map_or("", String::as_str);
        (0..OPTIONS.len())
            .filter(|&i| {
                help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .any(|word| word == OPTIONS[i].0)
            })
            .collect()
    }
}

/// One case: the arguments, and the spec file's text when the case uses one (`spec.toml`).
fn case(seed: u64, helps: &Helps) -> (Vec<String>, Option<String>) {
    let mut rng = Rng(seed);
    let command = rng.pick(&[
        "run",
        "run",
        "run",
        "compare",
        "fences",
        "fences",
        "litmus",
        "litmus",
        "mutants",
        "tune",
        "instrument",
        "instrument",
        "campaign",
        "merge",
        "apps",
        "adapters",
        "nosuch",
    ]);
    let mut args = vec![command.to_string()];
    let mut spec = None;
    let counter = fixture("counter.toml");
    let racy = fixture("racy.toml");
    let shader = fixture("counter.wgsl");
    match command {
        "run" | "compare" | "fences" => {
            let app = rng.pick(&[
                "spec.toml",
                "spec.toml",
                counter.as_str(),
                racy.as_str(),
                shader.as_str(),
                "sdk-red",
                "cbe-dot",
                "nosuch-app",
                "/dev/zero",
            ]);
            if app == "spec.toml" {
                let base = base_spec();
                spec = Some(if rng.chance(25) {
                    base
                } else {
                    mutate(&base, &mut rng)
                });
            }
            args.push(app.to_string());
        }
        "litmus" => args.push(
            rng.pick(&["mp", "sb", "lb", "corr", "2+2w", "nosuch", ""])
                .into(),
        ),
        "instrument" => args.extend(
            [
                rng.pick(&[
                    shader.as_str(),
                    shader.as_str(),
                    "/dev/zero",
                    "missing.wgsl",
                    "deep-sum.wgsl",
                    "deep-chain.wgsl",
                    "bom.wgsl",
                    "fifo",
                    "shader.wgsl",
                ]),
                "-o",
                rng.pick(&["o.wgsl", "o.wgsl", "link.wgsl"]),
                "--manifest",
                "m.json",
            ]
            .map(str::to_string),
        ),
        // --list alone: a campaign that ran would start child processes of its own.
        "campaign" => args.extend(
            [
                rng.pick(&[
                    "plan.toml",
                    "dash-plan.toml",
                    "/dev/zero",
                    "fifo",
                    "missing.toml",
                ]),
                "--list",
            ]
            .map(str::to_string),
        ),
        "merge" => args.push(rng.pick(&["results", "results", "missing", "fifo"]).into()),
        _ => {}
    }
    let taken = helps.taken(command);
    // apps and adapters take no option: one is rarely drawn for them.
    let options = if taken.is_empty() && rng.chance(80) {
        0
    } else {
        rng.below(4)
    };
    for _ in 0..options {
        // Mostly an option the command takes; sometimes any.
        let index = if !taken.is_empty() && rng.chance(80) {
            taken[rng.below(taken.len())]
        } else {
            rng.below(OPTIONS.len())
        };
        let (flag, values) = OPTIONS[index];
        let value = rng.pick(values);
        if value.is_empty() && rng.chance(80) {
            args.push(flag.to_string());
        } else if rng.chance(50) {
            args.push(format!("{flag}={value}"));
        } else {
            args.extend([flag.to_string(), value.to_string()]);
        }
    }
    for (flag, value) in bounds(command) {
        let drawn = args
            .iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")));
        if !drawn {
            args.extend([flag.to_string(), value.to_string()]);
        }
    }
    if matches!(
        command,
        "run" | "compare" | "fences" | "litmus" | "mutants" | "tune"
    ) && !args
        .iter()
        .any(|a| a.starts_with("--log") || a == "--no-log")
    {
        args.push("--no-log".into());
    }
    (args, spec)
}

/// What is wrong with how a case ended, if anything.
fn verdict(output: &Output, interrupted: bool) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("panicked") {
        return Some(format!("panicked: {stderr}"));
    }
    // Ctrl-C before wgstress listens for it ends the process by the signal, which a shell
    // reports as 130 too.
    let code = output
        .status
        .code()
        .or_else(|| (output.status.signal() == Some(2)).then_some(130));
    match code {
        Some(0..=2) => None,
        Some(130) if interrupted => None,
        other => Some(format!("exit status {other:?}: {stderr}")),
    }
}

/// Runs case `seed`; panics with the seed that replays it when it goes wrong.
fn run_case(seed: u64, helps: &Helps) {
    let (args, spec) = case(seed, helps);
    let replay = format!("replay with WGSTRESS_SEED={seed:#x} cargo test --test fuzz");
    run_args(&args, spec.as_deref(), &format!("case {seed:#x}"), &replay);
}

/// Runs `args` beside the hostile files (and `spec` as spec.toml); panics, naming `what`
/// and how to `replay` it, when it goes wrong.
fn run_args(args: &[String], spec: Option<&str>, what: &str, replay: &str) {
    let dir = tempfile::tempdir().unwrap();
    hostile_files(dir.path());
    if let Some(text) = spec {
        std::fs::write(dir.path().join("spec.toml"), text).unwrap();
    }
    let ran = support::interrupting(support::command(args, dir.path()), RUN_FOR, GRACE);
    let Some((output, interrupted)) = ran else {
        panic!(
            "{what} hung: no exit {GRACE:?} after Ctrl-C\n  args: {args:?}\n  spec: {spec:?}\n  {replay}"
        );
    };
    if let Some(wrong) = verdict(&output, interrupted) {
        panic!("{what}: {wrong}\n  args: {args:?}\n  spec: {spec:?}\n  {replay}");
    }
    let kept = std::fs::read_to_string(dir.path().join("shader.wgsl")).unwrap();
    let counter = std::fs::read_to_string(fixture("counter.wgsl")).unwrap();
    assert!(
        kept == counter,
        "{what} overwrote shader.wgsl through its hard link\n  args: {args:?}\n  {replay}"
    );
    assert!(
        full_is_a_device(),
        "{what} replaced /dev/full with a file\n  args: {args:?}\n  {replay}"
    );
    println!("{what}: {:?} {args:?}", output.status.code());
}

/// Whether /dev/full is still the device it was when the suite started (a machine without
/// it has nothing to check).
fn full_is_a_device() -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata("/dev/full").map_or(true, |m| m.file_type().is_char_device())
}

/// The seed of `WGSTRESS_SEED`, decimal or 0x-hex.
fn seed_from_env() -> Option<u64> {
    let text = std::env::var("WGSTRESS_SEED").ok()?;
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("WGSTRESS_SEED={text} is not a seed")))
}

#[test]
fn random_command_lines_and_specs_never_panic_hang_or_exit_oddly() {
    let helps = Helps::load();
    if let Some(seed) = seed_from_env() {
        println!("replaying case {seed:#x}: {:?}", case(seed, &helps));
        run_case(seed, &helps);
        return;
    }
    let mut master = Rng(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64));
    let first = master.next();
    println!("fuzz: {CASES} cases from master seed {first:#x}");
    let mut seeds = Rng(first);
    for _ in 0..CASES {
        run_case(seeds.next(), &helps);
    }
}

#[test]
fn the_hostile_inputs_of_issue_35_never_panic_hang_exit_oddly_or_overwrite() {
    for args in HOSTILE {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        run_args(&args, None, "hostile case", "the case is in HOSTILE");
    }
}

#[test]
fn cases_are_replayed_exactly_from_their_seed() {
    let helps = Helps::load();
    for seed in [1, 0xdead_beef, u64::MAX] {
        assert_eq!(case(seed, &helps), case(seed, &helps));
    }
    let differ = (0..16)
        .filter(|&s| case(s, &helps) != case(s + 1, &helps))
        .count();
    assert!(differ > 8, "seeds draw different cases");
}

#[test]
fn a_run_past_its_time_takes_ctrl_c_and_exits_130() {
    // The harness's own path for a case that runs long: Ctrl-C, then the summary and 130.
    let dir = tempfile::tempdir().unwrap();
    let args = ["run", &fixture("counter.toml"), "--time", "120", "--no-log"];
    let (output, interrupted) = support::interrupting(
        support::command(&args, dir.path()),
        Duration::from_secs(4),
        GRACE,
    )
    .expect("exits after Ctrl-C");
    assert!(interrupted);
    assert_eq!(verdict(&output, interrupted), None);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("interrupted"), "{stdout}");
}

/// A wgpu trace of a program that counts with an atomic: the shape wgpu 30 writes, the
/// shader and a uniform's words in data files beside it.
const TRACE: &str = r#"[
Init(desc: (label: None, required_features: ""), backend: Vulkan),
CreateShaderModule(id: PointerId(10), desc: (label: Some("count")), data: File("data1.wgsl")),
CreateComputePipeline(id: PointerId(20), desc: (label: Some("count"), layout: None,
    stage: (module: PointerId(10), entry_point: Some("main"), constants: {}))),
CreateBuffer(PointerId(30), (label: Some("total"), size: 4, usage: "COPY_SRC | STORAGE", mapped_at_creation: false)),
CreateBuffer(PointerId(31), (label: Some("config"), size: 4, usage: "COPY_DST | UNIFORM", mapped_at_creation: false)),
WriteBuffer(id: PointerId(31), data: File("data2.bin"), offset: 0, size: 4, queued: true),
CreateBuffer(PointerId(32), (label: Some("readback"), size: 4, usage: "MAP_READ | COPY_DST", mapped_at_creation: false)),
GetComputePipelineBindGroupLayout(id: PointerId(40), pipeline: PointerId(20), index: 0),
CreateBindGroup(PointerId(50), (label: None, layout: PointerId(40), entries: [
    (binding: 0, resource: Buffer((buffer: PointerId(30), offset: 0, size: None))),
    (binding: 1, resource: Buffer((buffer: PointerId(31), offset: 0, size: None))),
])),
Submit(1, [
    RunComputePass(pass: (label: None, commands: [
        SetPipeline(PointerId(20)),
        SetBindGroup(index: 0, num_dynamic_offsets: 0, bind_group: Some(PointerId(50))),
        DispatchWorkgroups((4, 1, 1)),
    ], dynamic_offsets: []), timestamp_writes: None),
    CopyBufferToBuffer(src: PointerId(30), src_offset: 0, dst: PointerId(32), dst_offset: 0, size: Some(4)),
]),
DropBuffer(PointerId(30)),
"#;

const TRACE_SHADER: &str = "@group(0) @binding(0) var<storage, read_write> total: atomic<u32>;\n\
    @group(0) @binding(1) var<uniform> step: u32;\n\
    @compute @workgroup_size(16)\nfn main() { atomicAdd(&total, step); }\n";

/// What a mutation of a trace or log puts in: RON's and JSON's punctuation, escapes that
/// once panicked the trace reader, numbers past every bound, a multi-byte character.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "'",
    "\\x",
    "\\u{",
    "\\u}",
    "é",
    "Some(",
    "PointerId(",
    "None",
    "0",
    "-1",
    "1099511627776",
    "18446744073709551615",
    "4294967296",
    "1e400",
    "null",
    "\n",
    "File(\"../x\")",
    "File(\"zero.bin\")",
    "File(\"fifo\")",
];

/// `text` with one to four random mutations: a range deleted or doubled, a token put in, a
/// number replaced, the end cut off.
fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut text = text.to_string();
    let boundary = |text: &str, i: usize| {
        (0..=i.min(text.len()))
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0)
    };
    for _ in 0..1 + rng.below(4) {
        let a = boundary(&text, rng.below(text.len() + 1));
        let b = boundary(&text, a + rng.below(40));
        match rng.below(5) {
            0 => text.replace_range(a..b, ""),
            1 => {
                let part = text[a..b].to_string();
                text.insert_str(b, &part);
            }
            2 => text.insert_str(a, rng.pick(TOKENS)),
            3 => {
                let digits = text[a..].find(|c: char| c.is_ascii_digit()).map(|i| a + i);
                if let Some(start) = digits {
                    let end = text[start..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(text.len(), |i| start + i);
                    text.replace_range(
                        start..end,
                        rng.pick(&[
                            "0",
                            "18446744073709551615",
                            "1099511627776",
                            "4294967295",
                            "8589934592",
                        ]),
                    );
                }
            }
            _ => text.truncate(a),
        }
    }
    text
}

/// A directory `trace/` in `dir` holding `trace` and its data files, with a data file
/// linked to /dev/zero and a FIFO beside them for mutations to name.
fn trace_dir(dir: &std::path::Path, trace: &str) -> std::path::PathBuf {
    let at = dir.join("trace");
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(at.join("trace.ron"), trace).unwrap();
    std::fs::write(at.join("data1.wgsl"), TRACE_SHADER).unwrap();
    std::fs::write(at.join("data2.bin"), 1u32.to_le_bytes()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", at.join("zero.bin")).unwrap();
    let fifo = std::ffi::CString::new(at.join("fifo").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    at
}

/// Runs `args` in `dir`; panics, naming `what`, when it panics, hangs or exits oddly.
fn ends_well(args: &[&str], dir: &std::path::Path, what: &str) -> Output {
    let ran = support::interrupting(support::command(args, dir), RUN_FOR, GRACE);
    let Some((output, interrupted)) = ran else {
        panic!("{what} hung: no exit {GRACE:?} after Ctrl-C\n  args: {args:?}");
    };
    if let Some(wrong) = verdict(&output, interrupted) {
        panic!("{what}: {wrong}\n  args: {args:?}");
    }
    output
}

/// Seeds for `n` cases: WGSTRESS_SEED's alone, or new ones from the clock, printed.
fn case_seeds(n: u64, what: &str) -> Vec<u64> {
    if let Some(seed) = seed_from_env() {
        return vec![seed];
    }
    let mut master = Rng(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64));
    let first = master.next();
    println!("fuzz {what}: {n} cases from master seed {first:#x}");
    let mut seeds = Rng(first);
    (0..n).map(|_| seeds.next()).collect()
}

#[test]
fn import_of_hostile_and_mutated_traces_never_panics_hangs_or_exits_oddly() {
    // Issue 59's reproductions first: each panicked or overflowed the stack.
    let deep = format!("[{}{}]", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let huge = |size: &str| {
        TRACE.replace(
            "(label: Some(\"readback\"), size: 4,",
            &format!("(label: Some(\"readback\"), size: {size},"),
        )
    };
    let mut traces: Vec<(String, String)> = [
        "['abc]",
        "[\"\\x]",
        "[\"\\u}\"]",
        "[\"\\xé\"]",
        deep.as_str(),
    ]
    .iter()
    .map(|t| (t.to_string(), format!("hostile trace {:.12}", t)))
    .collect();
    for size in [
        "1099511627776",
        "18446744073709551615",
        "4294967296",
        "8589934592",
    ] {
        traces.push((huge(size), format!("a read-back of {size} bytes")));
    }
    traces.push((
        TRACE.replace("data2.bin", "zero.bin"),
        "data linked to /dev/zero".into(),
    ));
    traces.push((TRACE.replace("data2.bin", "fifo"), "data in a FIFO".into()));
    for seed in case_seeds(12, "import") {
        let mut rng = Rng(seed);
        traces.push((
            mutate_text(TRACE, &mut rng),
            format!("mutated trace {seed:#x} (replay with WGSTRESS_SEED={seed:#x})"),
        ));
    }
    // The trace as wgpu wrote it imports: the mutations start from a trace that works.
    let dir = tempfile::tempdir().unwrap();
    trace_dir(dir.path(), TRACE);
    let out = ends_well(
        &["import", "trace", "--out", "spec"],
        dir.path(),
        "the trace",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (trace, what) in traces {
        let dir = tempfile::tempdir().unwrap();
        trace_dir(dir.path(), &trace);
        let out = ends_well(&["import", "trace", "--out", "spec"], dir.path(), &what);
        println!("{what}: {:?}", out.status.code());
    }
}

#[test]
fn merge_of_mutated_shard_logs_never_panics_hangs_or_exits_oddly() {
    // One real campaign's output, each case a copy with one of its files mutated.
    let made = tempfile::tempdir().unwrap();
    std::fs::write(
        made.path().join("plan.toml"),
        "[[item]]\ncommand = \"litmus\"\ntest = \"mp\"\niterations = 2\n",
    )
    .unwrap();
    let ran = ends_well(
        &["campaign", "plan.toml", "--out", "results"],
        made.path(),
        "the campaign to merge",
    );
    assert_eq!(
        ran.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut stack = vec![made.path().join("results")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            match entry.file_type().unwrap().is_dir() {
                true => stack.push(entry.path()),
                false => files.push(entry.path()),
            }
        }
    }
    files.sort();
    for seed in case_seeds(12, "merge") {
        let mut rng = Rng(seed);
        let dir = tempfile::tempdir().unwrap();
        for file in &files {
            let to = dir.path().join(file.strip_prefix(made.path()).unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(file, &to).unwrap();
        }
        for _ in 0..1 + rng.below(2) {
            let file = &files[rng.below(files.len())];
            let to = dir.path().join(file.strip_prefix(made.path()).unwrap());
            let text = std::fs::read_to_string(&to).unwrap();
            std::fs::write(&to, mutate_text(&text, &mut rng)).unwrap();
        }
        let mut args = vec!["merge", "results"];
        if rng.chance(50) {
            args.push("--json");
        }
        if rng.chance(50) {
            args.extend(["--html", "report.html"]);
        }
        let what = format!("merge case {seed:#x} (replay with WGSTRESS_SEED={seed:#x})");
        let out = ends_well(&args, dir.path(), &what);
        println!("{what}: {:?}", out.status.code());
    }
}
