//! `wgstress record` on real Node programs (examples/record/node) on Dawn, on Mesa 25's
//! lavapipe (tools/record/mesa.sh, which the README's test command runs): the recorder changes
//! nothing the program sees, and the spec it writes replays the program's own read-backs.

mod common;

use common::wgstress;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A directory holding the Node examples beside the `webgpu` package that tools/tint installs,
/// as a user's project holds its own.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let modules = workspace().join("tools/tint/node_modules");
    assert!(
        modules.join("webgpu/package.json").exists(),
        "the webgpu package is missing: run `npm ci --prefix tools/tint` (the README's test command does)"
    );
    std::os::unix::fs::symlink(&modules, dir.path().join("node_modules")).unwrap();
    for entry in std::fs::read_dir(workspace().join("examples/record/node")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// The environment that runs Node's Dawn on Mesa 25's lavapipe, on one thread (see `replay`:
/// the programs' own checks would otherwise fail now and then on a busy machine).
fn mesa() -> [(&'static str, PathBuf); 3] {
    let mesa = workspace().join("tools/record/mesa");
    assert!(
        mesa.join("lvp.json").exists(),
        "Mesa 25's lavapipe is missing: run `bash tools/record/mesa.sh` (the README's test \
         command does, through tools/test-deps.sh)"
    );
    [
        ("VK_DRIVER_FILES", mesa.join("lvp.json")),
        ("LD_LIBRARY_PATH", mesa.join("lib")),
        ("LP_NUM_THREADS", PathBuf::from("1")),
    ]
}

fn node(dir: &Path, args: &[&str]) -> Output {
    Command::new("node")
        .args(args)
        .envs(mesa())
        .current_dir(dir)
        .output()
        .expect("node runs")
}

/// `record --out OUT PROGRAM`, where PROGRAM is `node ...` or options, `--`, `node ...`.
/// `wgstress record ARGS` in `dir`, with Mesa 25's lavapipe for Node, whatever its exit.
fn record_with(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .arg("record")
        .args(args)
        .envs(mesa())
        .current_dir(dir)
        .output()
        .expect("wgstress runs")
}

fn record(dir: &Path, out: &str, program: &[&str]) -> Output {
    let mut args = vec!["--out", out];
    if program.first() == Some(&"node") {
        args.push("--");
    }
    args.extend(program);
    let output = record_with(dir, &args);
    assert!(
        output.status.success(),
        "record {program:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs `wgstress` on a recorded spec. lavapipe runs one workgroup per thread to its end and
/// cuts a loop at 65,535 iterations: on a busy machine a lock's or a look-back's waiter spins
/// past that while the thread it waits for is descheduled, and the run goes wrong for the
/// driver's sake. On one thread each workgroup runs after the ones it waits for: what is
/// tested here is that the spec replays the program, not lavapipe's scheduling.
fn replay(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(args)
        .env("LP_NUM_THREADS", "1")
        .current_dir(dir)
        .output()
        .expect("wgstress runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_recorder_changes_nothing_the_program_sees() {
    let dir = project();
    let hook = workspace().join("tools/record/node-hook.mjs");
    let recording = dir.path().join("recording.json");
    for program in [
        vec!["spin_lock.mjs"],
        vec!["spin_lock.mjs", "--fixed"],
        vec!["compact.mjs"],
        vec!["compact.mjs", "--indirect"],
    ] {
        let plain = node(dir.path(), &program);
        let mut args = vec!["--import", hook.to_str().unwrap()];
        args.extend(&program);
        let recorded = Command::new("node")
            .args(&args)
            .envs(mesa())
            .env("WGSTRESS_RECORDING", &recording)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(plain.status.success(), "{program:?}: {}", text(&plain));
        assert_eq!(plain.status.code(), recorded.status.code(), "{program:?}");
        assert_eq!(plain.stdout, recorded.stdout, "{program:?}");
        assert!(recording.exists(), "{program:?} wrote no recording");
        std::fs::remove_file(&recording).unwrap();
    }
}

#[test]
fn a_recorded_lock_replays_the_programs_read_back() {
    let dir = project();
    for (out, program) in [
        ("fixed", vec!["node", "spin_lock.mjs", "--fixed"]),
        ("buggy", vec!["node", "spin_lock.mjs"]),
    ] {
        record(dir.path(), out, &program);
        let spec = dir.path().join(out).join("spec.toml");
        let toml = std::fs::read_to_string(&spec).unwrap();
        assert!(toml.contains("workgroups = [256, 1, 1]"), "{toml}");
        // The program read its shader from a file: the spec runs that file, so that a fix of
        // the spec is a fix of the program's own file.
        let shader = if out == "fixed" {
            "spin_lock_fixed.wgsl"
        } else {
            "spin_lock.wgsl"
        };
        assert!(
            toml.contains(&format!("shader = \"../{shader}\"")),
            "{toml}"
        );
        assert!(!dir.path().join(out).join("shader-0.wgsl").exists());
        // The program read back 1,024: the check expects those bytes.
        let expected = std::fs::read(dir.path().join(out).join("expected-0.bin")).unwrap();
        assert_eq!(expected, 1024u32.to_le_bytes(), "{out}");
        let raw = replay(
            &["run", "spec.toml", "--raw", "--runs", "10"],
            &dir.path().join(out),
        );
        assert!(raw.status.success(), "{out} raw: {}", text(&raw));
        assert!(
            text(&raw).contains("failure rate     0 of 10"),
            "{}",
            text(&raw)
        );
    }
    let fixed = replay(
        &["run", "spec.toml", "--runs", "40"],
        &dir.path().join("fixed"),
    );
    assert!(fixed.status.success(), "fixed, stressed: {}", text(&fixed));
    // The search's sites are in the program's own file.
    let sites = wgstress(
        &["fences", "spec.toml", "--sites"],
        &dir.path().join("buggy"),
    );
    assert!(sites.status.success(), "{}", text(&sites));
    assert!(text(&sites).contains("spin_lock.wgsl:"), "{}", text(&sites));
    // The check can fail: a read-back that is not the program's is caught.
    std::fs::write(
        dir.path().join("fixed/expected-0.bin"),
        1025u32.to_le_bytes(),
    )
    .unwrap();
    let wrong = replay(
        &["run", "spec.toml", "--raw", "--runs", "3"],
        &dir.path().join("fixed"),
    );
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong));
    assert!(
        text(&wrong).contains("[0] = 1024 (expected 1025)"),
        "{}",
        text(&wrong)
    );
}

#[test]
fn work_that_depends_on_what_the_program_read_is_recorded_as_it_ran() {
    let dir = project();
    record(dir.path(), "host", &["node", "compact.mjs"]);
    let toml = std::fs::read_to_string(dir.path().join("host/spec.toml")).unwrap();
    assert!(
        toml.contains("# Note: the program read back binding 0:1 after dispatch 1 of 2"),
        "{toml}"
    );
    // 100 values were picked: the second pass ran ceil(100 / 64) workgroups.
    assert!(
        toml.contains("entry = \"square\"\nworkgroups = [2, 1, 1]"),
        "{toml}"
    );
    let raw = replay(
        &["run", "spec.toml", "--raw", "--runs", "5"],
        &dir.path().join("host"),
    );
    assert!(raw.status.success(), "{}", text(&raw));

    record(
        dir.path(),
        "indirect",
        &["node", "compact.mjs", "--indirect"],
    );
    let toml = std::fs::read_to_string(dir.path().join("indirect/spec.toml")).unwrap();
    assert!(
        toml.contains("workgroups = [2, 1, 1]  # from its indirect buffer in this run"),
        "{toml}"
    );
    let raw = replay(
        &["run", "spec.toml", "--raw", "--runs", "5"],
        &dir.path().join("indirect"),
    );
    assert!(raw.status.success(), "{}", text(&raw));
}

#[test]
fn a_program_that_renders_keeps_its_compute_part_and_says_what_was_left_out() {
    let dir = project();
    let program = r#"
import { create, globals } from 'webgpu';
Object.assign(globalThis, globals);
const gpu = create([]);
const device = await (await gpu.requestAdapter()).requestDevice();
const texture = device.createTexture({ size: [4, 4], format: 'rgba8unorm', usage: GPUTextureUsage.STORAGE_BINDING });
const out = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const module = device.createShaderModule({ code: `
@group(0) @binding(0) var<storage, read_write> out: array<u32, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { out[i] = i + 10u; }` });
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: out } }] });
const e = device.createCommandEncoder();
const pass = e.beginComputePass(); pass.setPipeline(pipeline); pass.setBindGroup(0, group); pass.dispatchWorkgroups(1); pass.end();
e.copyBufferToBuffer(out, 0, read, 0, 16);
device.queue.submit([e.finish()]);
await read.mapAsync(GPUMapMode.READ);
console.log(Array.from(new Uint32Array(read.getMappedRange())).join(' '));
void texture;
"#;
    std::fs::write(dir.path().join("texture.mjs"), program).unwrap();
    let out = record(dir.path(), "spec", &["node", "texture.mjs"]);
    assert!(
        text(&out).contains("left out: GPUDevice.createTexture at "),
        "{}",
        text(&out)
    );
    let toml = std::fs::read_to_string(dir.path().join("spec/spec.toml")).unwrap();
    assert!(
        toml.contains("# Note: left out: GPUDevice.createTexture at "),
        "{toml}"
    );
    assert!(
        toml.contains("texture.mjs:6:"),
        "the note says where: {toml}"
    );
    let raw = replay(
        &["run", "spec.toml", "--raw", "--runs", "3"],
        &dir.path().join("spec"),
    );
    assert!(raw.status.success(), "{}", text(&raw));
    assert_eq!(
        std::fs::read(dir.path().join("spec/expected-0.bin")).unwrap(),
        [10u32, 11, 12, 13]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    );
}

#[test]
fn bad_record_command_lines_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let python = wgstress(
        &["record", "--out", "x", "--", "python3", "p.py"],
        dir.path(),
    );
    assert_eq!(python.status.code(), Some(2));
    assert!(
        text(&python).contains("`python3` is not Node"),
        "{}",
        text(&python)
    );
    std::fs::create_dir(dir.path().join("full")).unwrap();
    std::fs::write(dir.path().join("full/mine.txt"), "keep").unwrap();
    let full = wgstress(
        &["record", "--out", "full", "--", "node", "p.mjs"],
        dir.path(),
    );
    assert_eq!(full.status.code(), Some(2));
    assert!(
        text(&full).contains("full: exists and is not an empty directory"),
        "{}",
        text(&full)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("full/mine.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn a_recorded_page_replays_its_scan() {
    let dir = tempfile::tempdir().unwrap();
    let page = workspace().join("examples/record/web/scan.html");
    for (out, query) in [("fixed", "?fixed"), ("buggy", "")] {
        let url = format!("file://{}{query}", page.display());
        let recorded = wgstress(
            &["record", "--out", out, "--time", "60", "--browser", &url],
            dir.path(),
        );
        assert!(recorded.status.success(), "{url}: {}", text(&recorded));
        let spec = dir.path().join(out);
        let toml = std::fs::read_to_string(spec.join("spec.toml")).unwrap();
        assert!(toml.contains("workgroups = [64, 1, 1]"), "{toml}");
    }
    // The buggy page may read back wrong sums itself (its flags and sums race, and on a busy
    // SwiftShader they do now and then): only the fixed one's are known.
    let fixed = dir.path().join("fixed");
    let expected = std::fs::read(fixed.join("expected-0.bin")).unwrap();
    let sums: Vec<u8> = (1..=4096u32).flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(expected, sums, "the check holds the page's read-back");
    let raw = replay(&["run", "spec.toml", "--raw", "--runs", "5"], &fixed);
    assert!(raw.status.success(), "fixed raw: {}", text(&raw));
    let stressed = replay(&["run", "spec.toml", "--runs", "20"], &fixed);
    assert!(
        stressed.status.success(),
        "fixed, stressed: {}",
        text(&stressed)
    );
}

/// Builds the Rust wgpu example (its own crate, with wgpu's `trace` feature) and returns its
/// binary.
fn wgpu_example() -> PathBuf {
    let manifest = workspace().join("examples/record/wgpu/Cargo.toml");
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("record-wgpu");
    let built = Command::new(env!("CARGO"))
        .args(["build", "--locked", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("cargo runs");
    assert!(built.success(), "building {}", manifest.display());
    target.join("debug/spin-lock-wgpu")
}

#[test]
fn a_wgpu_trace_imports_as_a_spec_that_replays_the_program() {
    let program = wgpu_example();
    let dir = tempfile::tempdir().unwrap();
    // The fixed variant labels its count's buffer with a line break and an escape: the
    // imported spec writes the label escaped, and parses.
    let label = "to\r\ntal\u{1b}[0m";
    for (variant, flags) in [
        ("fixed", vec!["--fixed", "--label", label]),
        ("buggy", vec![]),
    ] {
        let trace = dir.path().join(format!("trace-{variant}"));
        std::fs::create_dir(&trace).unwrap();
        let ran = Command::new(&program)
            .args(&flags)
            .arg("--trace")
            .arg(&trace)
            .env("XDG_RUNTIME_DIR", dir.path())
            .output()
            .unwrap();
        assert!(ran.status.success(), "{variant}: {}", text(&ran));
        assert_eq!(
            String::from_utf8_lossy(&ran.stdout),
            "count 1024 (expected 1024)\n"
        );
        let out = format!("spec-{variant}");
        let imported = wgstress(
            &["import", trace.to_str().unwrap(), "--out", &out],
            dir.path(),
        );
        assert!(imported.status.success(), "{variant}: {}", text(&imported));
        let spec = dir.path().join(&out);
        let toml = std::fs::read_to_string(spec.join("spec.toml")).unwrap();
        assert!(toml.contains("workgroups = [256, 1, 1]"), "{toml}");
        let parsed: toml::Table = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
        let names: Vec<&str> = parsed["binding"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["name"].as_str())
            .collect();
        let counted = if variant == "fixed" { label } else { "total" };
        assert!(names.contains(&counted), "{names:?}\n{toml}");
        assert!(
            toml.contains("# Note: a trace holds no read-backs"),
            "{toml}"
        );
        // What the program read back, 1,024, is what the spec's check expects.
        assert_eq!(
            std::fs::read(spec.join("expected-0.bin")).unwrap(),
            1024u32.to_le_bytes()
        );
        assert_eq!(
            std::fs::read_to_string(spec.join("shader-0.wgsl")).unwrap(),
            std::fs::read_to_string(workspace().join(format!(
                "examples/record/node/spin_lock{}.wgsl",
                if variant == "fixed" { "_fixed" } else { "" }
            )))
            .unwrap(),
            "the shader as the program gave it"
        );
        let raw = replay(&["run", "spec.toml", "--raw", "--runs", "5"], &spec);
        assert!(raw.status.success(), "{variant} raw: {}", text(&raw));
    }
    let fixed = replay(
        &["run", "spec.toml", "--runs", "20"],
        &dir.path().join("spec-fixed"),
    );
    assert!(fixed.status.success(), "fixed, stressed: {}", text(&fixed));
}

/// `import --help` names the wgpu whose trace format it reads, the one its refusals name.
#[test]
fn import_says_which_wgpu_trace_format_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let help = text(&wgstress(&["import", "--help"], dir.path()));
    let version = wgstress_record::TRACE_FORMATS
        .split_once("wgpu ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .expect("the formats name a wgpu version");
    assert!(
        help.contains(&format!("trace.ron of wgpu {version}")),
        "{help}"
    );
}

#[test]
fn a_directory_without_a_trace_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = wgstress(&["import", ".", "--out", "spec"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no trace.ron here"), "{}", text(&out));
}

/// A trace of a program that fills four words, in the form wgpu 30 writes (no closing
/// bracket: wgpu appends to the list as the program runs).
const FILL_TRACE: &str = r#"[
Init(desc: (label: None, required_features: ""), backend: Vulkan),
CreateShaderModule(id: PointerId(1), desc: (label: Some("fill")), data: File("fill.wgsl")),
CreateComputePipeline(id: PointerId(2), desc: (label: None, layout: None,
    stage: (module: PointerId(1), entry_point: Some("main"), constants: {}))),
CreateBuffer(PointerId(3), (label: Some("words"), size: 16, usage: "COPY_SRC | STORAGE", mapped_at_creation: false)),
CreateBuffer(PointerId(4), (label: Some("read"), size: 16, usage: "MAP_READ | COPY_DST", mapped_at_creation: false)),
GetComputePipelineBindGroupLayout(id: PointerId(5), pipeline: PointerId(2), index: 0),
CreateBindGroup(PointerId(6), (label: None, layout: PointerId(5), entries: [
    (binding: 0, resource: Buffer((buffer: PointerId(3), offset: 0, size: None))),
])),
Submit(1, [
    RunComputePass(pass: (label: None, commands: [
        SetPipeline(PointerId(2)),
        SetBindGroup(index: 0, num_dynamic_offsets: 0, bind_group: Some(PointerId(6))),
        DispatchWorkgroups((1, 1, 1)),
    ], dynamic_offsets: []), timestamp_writes: None),
    CopyBufferToBuffer(src: PointerId(3), src_offset: 0, dst: PointerId(4), dst_offset: 0, size: Some(16)),
]),
"#;

const FILL_SHADER: &str = "@group(0) @binding(0) var<storage, read_write> words: array<u32, 4>;\n\
    @compute @workgroup_size(4)\n\
    fn main(@builtin(local_invocation_index) i: u32) { words[i] = i * 3u; }\n";

/// The one `wgstress: error:` line of a refused command, which is its last line on stderr.
fn only_error(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("wgstress: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert_eq!(stderr.lines().last(), Some(errors[0]), "{stderr}");
    errors[0].to_string()
}

/// An `--out` that cannot be written is refused as the command starts, as every other output
/// is: before `record` runs the program, before `import` replays the trace.
#[test]
fn an_unwritable_out_is_refused_before_the_program_runs_or_the_trace_replays() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "kept").unwrap();
    // A directory cannot be made under a file, whoever runs the test.
    let unwritable = "notes.txt/spec";
    std::fs::write(
        dir.path().join("marks.mjs"),
        "import { writeFileSync } from 'node:fs';\nwriteFileSync('ran', 'the program ran');\n",
    )
    .unwrap();
    let recorded = wgstress(
        &["record", "--out", unwritable, "--", "node", "marks.mjs"],
        dir.path(),
    );
    assert_eq!(recorded.status.code(), Some(2), "{}", text(&recorded));
    let line = only_error(&recorded);
    assert!(
        line.contains("notes.txt/spec: cannot write --out: "),
        "{line}"
    );
    assert!(!dir.path().join("ran").exists(), "the program ran");
    let trace = dir.path().join("trace");
    std::fs::create_dir(&trace).unwrap();
    std::fs::write(trace.join("trace.ron"), FILL_TRACE).unwrap();
    std::fs::write(trace.join("fill.wgsl"), FILL_SHADER).unwrap();
    let imported = wgstress(&["import", "trace", "--out", unwritable], dir.path());
    assert_eq!(imported.status.code(), Some(2), "{}", text(&imported));
    let line = only_error(&imported);
    assert!(
        line.contains("notes.txt/spec: cannot write --out: "),
        "{line}"
    );
    assert!(
        !text(&imported).contains("replaying"),
        "{}",
        text(&imported)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "kept"
    );
    // The same trace into a new directory imports: the refusal above was the output's.
    let imported = wgstress(&["import", "trace", "--out", "spec"], dir.path());
    assert!(imported.status.success(), "{}", text(&imported));
    let expected: Vec<u8> = (0..4u32).flat_map(|i| (i * 3).to_le_bytes()).collect();
    assert_eq!(
        std::fs::read(dir.path().join("spec/expected-0.bin")).unwrap(),
        expected
    );
}

/// Runs `wgstress record ARGS` in `dir` on Mesa 25, its stderr lines each with the time it
/// came, as they come; returns how it ended and those lines.
fn record_timed(dir: &Path, args: &[&str]) -> (std::process::ExitStatus, Vec<(Instant, String)>) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .arg("record")
        .args(args)
        .envs(mesa())
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("wgstress runs");
    let lines: Vec<(Instant, String)> = std::io::BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map(|l| (Instant::now(), l.unwrap()))
        .collect();
    (child.wait().unwrap(), lines)
}

fn joined(lines: &[(Instant, String)]) -> String {
    lines
        .iter()
        .map(|(_, l)| l.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// examples/record/web/button.html waits for its button and never logs `wgstress:done`:
/// `--click` clicks it once the page is idle, and each recording ends by itself soon after the
/// page's read-back, not at `--time`. The spec's every comment names the page's own file (not
/// the recorder's frames), its header the adapter and the browser; the page's console line
/// is formatted as the browser would, each of its lines prefixed; its labels, which hold
/// `\r\n` and an escape, are written escaped, and the spec replays the page's read-back.
#[test]
fn a_page_that_waits_for_a_click_and_never_says_done_records() {
    let dir = tempfile::tempdir().unwrap();
    let page = workspace().join("examples/record/web/button.html");
    let url = format!("file://{}", page.display());
    let (status, lines) = record_timed(
        dir.path(),
        &[
            "--out",
            "spec",
            "--time",
            "300",
            "--click",
            "#go",
            "--browser",
            &url,
        ],
    );
    let all = joined(&lines);
    assert!(status.success(), "{all}");
    // Both recordings read back, and each ended within 10 s of it (the next line after the
    // page's second console line is the next recording's start, or the spec's summary).
    let read_backs: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (_, l))| l == "page: second line")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(read_backs.len(), 2, "{all}");
    for &i in &read_backs {
        let (then, _) = lines[i];
        let (next, line) = &lines[i + 1];
        assert!(
            next.duration_since(then) < Duration::from_secs(10),
            "{:?} from the read-back to {line:?}:\n{all}",
            next.duration_since(then)
        );
        assert_eq!(
            lines[i - 1].1,
            "page: 64 groups of 64, 1.5 of the words right",
            "{all}"
        );
    }
    let toml = std::fs::read_to_string(dir.path().join("spec/spec.toml")).unwrap();
    let parsed: toml::Table = toml.parse().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    assert_eq!(
        parsed["binding"][0]["name"].as_str(),
        Some("in\r\nput\u{1b}[0m")
    );
    // The adapter as GPUAdapterInfo gives it (Chromium's SwiftShader: vendor google,
    // architecture swiftshader) and the browser by its product and version.
    let adapter = toml
        .lines()
        .find(|l| l.starts_with("# Adapter: "))
        .unwrap_or_else(|| panic!("no adapter line:\n{toml}"));
    assert!(
        adapter.contains("google") && adapter.contains("swiftshader"),
        "{adapter}"
    );
    let browser = toml
        .split_once(&format!("{url}, in "))
        .map(|(_, rest)| rest.lines().next().unwrap_or(""))
        .unwrap_or_else(|| panic!("no browser version:\n{toml}"));
    assert!(
        browser.contains("Chrome/") && browser.contains(|c: char| c.is_ascii_digit()),
        "{browser}"
    );
    let sites: Vec<&str> = toml
        .lines()
        .filter(|l| {
            l.starts_with("# dispatch") || l.starts_with("# buffer") || l.starts_with("# read back")
        })
        .collect();
    assert_eq!(sites.len(), 4, "{toml}");
    for line in sites {
        assert!(line.contains(&format!("{}:", page.display())), "{line}");
    }
    let expected = std::fs::read(dir.path().join("spec/expected-0.bin")).unwrap();
    let doubled: Vec<u8> = (0..4096u32)
        .flat_map(|i| (i * 2 + 1).to_le_bytes())
        .collect();
    assert_eq!(expected, doubled);
    let raw = replay(
        &["run", "spec.toml", "--raw", "--runs", "3"],
        &dir.path().join("spec"),
    );
    assert!(raw.status.success(), "{}", text(&raw));
}

/// button.html?agree enables its button only once "agree" was clicked: `--click` twice, in
/// order, each once the page is idle, records its work; the button alone, clicked while
/// disabled, starts nothing, and a recording without a dispatch is refused.
#[test]
fn clicks_are_made_in_the_order_given() {
    let dir = tempfile::tempdir().unwrap();
    let page = workspace().join("examples/record/web/button.html");
    let url = format!("file://{}?agree", page.display());
    let record = |out: &str, clicks: &[&str]| {
        let mut args = vec!["--out", out, "--idle", "1", "--time", "20"];
        args.extend(["--recordings", "1"]);
        for click in clicks {
            args.extend(["--click", click]);
        }
        args.extend(["--browser", &url]);
        record_with(dir.path(), &args)
    };
    let both = record("both", &["#agree", "#go"]);
    assert!(both.status.success(), "{}", text(&both));
    let doubled: Vec<u8> = (0..4096u32)
        .flat_map(|i| (i * 2 + 1).to_le_bytes())
        .collect();
    assert_eq!(
        std::fs::read(dir.path().join("both/expected-0.bin")).unwrap(),
        doubled
    );
    let alone = record("alone", &["#go"]);
    assert_eq!(alone.status.code(), Some(2), "{}", text(&alone));
    assert_eq!(
        only_error(&alone),
        "wgstress: error: the program did no compute dispatch the recorder saw"
    );
    assert!(!dir.path().join("alone").exists());
}

/// A `--click` whose selector matches nothing on the page is a one-line error (exit 2) that
/// names it, and no spec is written from a page that never got its click.
#[test]
fn a_click_on_nothing_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let page = workspace().join("examples/record/web/button.html");
    let url = format!("file://{}", page.display());
    let out = record_with(
        dir.path(),
        &[
            "--out",
            "spec",
            "--idle",
            "1",
            "--recordings",
            "1",
            "--click",
            "#nothing",
            "--browser",
            &url,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        only_error(&out),
        "wgstress: error: --click #nothing: no element of the page matches it"
    );
    assert!(!dir.path().join("spec").exists());
}

/// button.html?vary dispatches a number of workgroups, and writes an input, that come from the
/// clock: the two recordings differ, and `record` says where and refuses (exit 2) rather than
/// write a spec from one of them.
#[test]
fn a_page_whose_work_varies_per_load_is_refused_with_what_differs_where() {
    let dir = tempfile::tempdir().unwrap();
    let page = workspace().join("examples/record/web/button.html");
    let url = format!("file://{}?vary", page.display());
    let (status, lines) = record_timed(
        dir.path(),
        &[
            "--out",
            "spec",
            "--idle",
            "1",
            "--click",
            "#go",
            "--browser",
            &url,
        ],
    );
    let all = joined(&lines);
    assert_eq!(status.code(), Some(2), "{all}");
    let error = &lines.last().unwrap().1;
    assert!(
        error.starts_with(&format!(
            "wgstress: error: recordings 1 and 2 differ at {}?vary:",
            page.display()
        )) && error.contains("--take-first"),
        "{all}"
    );
    assert!(
        all.contains("the program wrote other data into `in\\r\\nput\\u{1b}[0m`"),
        "{all}"
    );
    assert!(!dir.path().join("spec").exists());
}

/// A Node program whose input comes from the clock: with `--take-first` the spec is written
/// from recording 1, and its header says what differed.
#[test]
fn take_first_writes_the_first_recording_and_says_what_differed() {
    let dir = project();
    let program = r#"
import { create, globals } from 'webgpu';
Object.assign(globalThis, globals);
const gpu = create([]);
const device = await (await gpu.requestAdapter()).requestDevice();
const data = device.createBuffer({ label: 'data', size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(data, 0, new Uint32Array([Date.now() % 1e9, 1, 2, 3]));
const module = device.createShaderModule({ code: `
@group(0) @binding(0) var<storage, read_write> d: array<u32, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) { d[i] = d[i] + 1u; }` });
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: data } }] });
const e = device.createCommandEncoder();
const pass = e.beginComputePass(); pass.setPipeline(pipeline); pass.setBindGroup(0, group); pass.dispatchWorkgroups(1); pass.end();
e.copyBufferToBuffer(data, 0, read, 0, 16);
device.queue.submit([e.finish()]);
await read.mapAsync(GPUMapMode.READ);
console.log(new Uint32Array(read.getMappedRange()).join(' '));
"#;
    std::fs::write(dir.path().join("clock.mjs"), program).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["record", "--out", "refused", "--", "node", "clock.mjs"])
        .envs(mesa())
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("recordings 1 and 2 differ at ")
            && text(&refused).contains("clock.mjs:8:"),
        "{}",
        text(&refused)
    );
    record(
        dir.path(),
        "first",
        &["--take-first", "--", "node", "clock.mjs"][..],
    );
    let toml = std::fs::read_to_string(dir.path().join("first/spec.toml")).unwrap();
    assert!(
        toml.contains("# Note: recordings 1 and 2 differ at ")
            && toml.contains("the program wrote other data into `data`: 1 of 4 words differ; the spec replays recording 1"),
        "{toml}"
    );
    // The first word read back differed, as its input did: it is not checked.
    assert!(toml.contains("start = 1\ncount = 3"), "{toml}");
}

/// A program with 768 MiB of buffers (examples/record/node/big.mjs: four storage bindings of
/// 128 MiB, two staging buffers) records, its bytes streamed to a file as it runs, and the
/// spec replays what it read back byte for byte.
#[test]
fn a_program_with_over_512_mib_of_buffers_records_and_replays_byte_for_byte() {
    let dir = project();
    record(
        dir.path(),
        "big",
        &["--recordings", "1", "--", "node", "big.mjs"][..],
    );
    let spec = dir.path().join("big");
    let words = 1u32 << 25;
    let mixed: Vec<u8> = (0..words)
        .flat_map(|i| {
            ((i ^ 0x5bd1_e995)
                .wrapping_mul(2_654_435_761)
                .wrapping_add(i))
            .to_le_bytes()
        })
        .collect();
    assert!(std::fs::read(spec.join("expected-0.bin")).unwrap() == mixed);
    drop(mixed);
    let flipped: Vec<u8> = (0..words)
        .flat_map(|i| ((i ^ 0x27d4_eb2f) ^ (i << 7)).to_le_bytes())
        .collect();
    assert!(std::fs::read(spec.join("expected-1.bin")).unwrap() == flipped);
    drop(flipped);
    // A raw run is not calibrated, so its timeout does not grow: a run over 768 MiB of buffers
    // on llvmpipe, beside the other tests of this file, needs more than the default.
    let raw = replay(
        &[
            "run",
            "spec.toml",
            "--raw",
            "--runs",
            "1",
            "--timeout",
            "60",
        ],
        &spec,
    );
    assert!(raw.status.success(), "{}", text(&raw));
    assert!(text(&raw).contains("pass 1,"), "{}", text(&raw));
}

/// examples/record/node/scan.mjs, a one-pass look-back scan whose size is a parameter,
/// records, and its spec runs under stress with the default timeout and calibration: its
/// instrumented runs take several times its raw ones, and calibration's warm-up sizes no
/// batch from a raw run. (2^24 words runs too, its hang timeout grown by calibration, in
/// minutes: bench/recorded-scan.sh; 2^18 keeps the test short.)
#[test]
fn a_recorded_look_back_scan_runs_with_the_default_timeout() {
    let dir = project();
    record(
        dir.path(),
        "scan",
        &["node", "scan.mjs", "--words", "262144"][..],
    );
    let spec = dir.path().join("scan");
    let sums: Vec<u8> = (0..1u64 << 18)
        .scan(0u64, |sum, i| {
            *sum += i % 3;
            Some(*sum as u32)
        })
        .flat_map(u32::to_le_bytes)
        .collect();
    assert!(std::fs::read(spec.join("expected-0.bin")).unwrap() == sums);
    let stressed = replay(&["run", "spec.toml", "--runs", "5"], &spec);
    assert!(stressed.status.success(), "{}", text(&stressed));
    assert!(
        !text(&stressed).contains("calibration stopped"),
        "{}",
        text(&stressed)
    );
}

/// A program that dies once the recorder is loaded (here by SIGKILL, as a recorder that ran
/// out of memory would) is said to have died: its import of `webgpu` worked, and is not
/// blamed; a program that never imports it is told to.
#[test]
fn a_program_that_dies_is_not_blamed_on_its_import() {
    let dir = project();
    std::fs::write(
        dir.path().join("dies.mjs"),
        "import 'webgpu';\nprocess.kill(process.pid, 'SIGKILL');\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("plain.mjs"),
        "console.log('no GPU here');\n",
    )
    .unwrap();
    let run = |program: &str| {
        Command::new(env!("CARGO_BIN_EXE_wgstress"))
            .args(["record", "--out", "spec", "--", "node", program])
            .envs(mesa())
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let died = run("dies.mjs");
    assert_eq!(died.status.code(), Some(2), "{}", text(&died));
    assert!(
        text(&died).contains("the program ended (signal: 9 (SIGKILL)) before the recorder wrote its recording, though the recorder was loaded")
            && !text(&died).contains("must import"),
        "{}",
        text(&died)
    );
    // The link to the webgpu package, not the package.
    std::fs::remove_file(dir.path().join("node_modules")).unwrap();
    let plain = run("plain.mjs");
    assert_eq!(plain.status.code(), Some(2), "{}", text(&plain));
    assert!(
        text(&plain).contains("it must import the npm package webgpu"),
        "{}",
        text(&plain)
    );
}
