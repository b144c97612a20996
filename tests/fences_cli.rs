//! `wgstress fences`: lists a bundled application's candidate sites and writes its shader
//! with a barrier at every one.

use std::process::Command;

#[test]
fn fences_lists_sites_and_writes_the_all_fenced_shader() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("all.wgsl");
    let out = Command::new(env!("CARGO_BIN_EXE_wgstress"))
        .args(["fences", "sdk-red", "--sites", "--all", "-o"])
        .arg(&output)
        .output()
        .expect("wgstress runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(!lines.is_empty(), "no sites listed");
    for (id, line) in lines.iter().enumerate() {
        // file:line:column: site N before|after (in function): source line
        let (location, rest) = line.split_once(": site ").expect(line);
        let parts: Vec<&str> = location.rsplitn(3, ':').collect();
        assert!(
            parts[0].parse::<u32>().is_ok() && parts[1].parse::<u32>().is_ok(),
            "{line}"
        );
        assert!(parts[2].ends_with("sdk_red.wgsl"), "{line}");
        assert!(
            rest.starts_with(&format!("{id} before (in "))
                || rest.starts_with(&format!("{id} after (in ")),
            "{line}"
        );
    }
    let fenced = std::fs::read_to_string(&output).unwrap();
    let module = naga::front::wgsl::parse_str(&fenced).unwrap();
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
    let original = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("apps/wgsl/sdk_red.wgsl"),
    )
    .unwrap();
    assert_eq!(
        fenced.matches("storageBarrier()").count(),
        code_lines(&original) + lines.len(),
        "one barrier per site"
    );
}

/// `storageBarrier()` calls outside comments.
fn code_lines(source: &str) -> usize {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.matches("storageBarrier()").count())
        .sum()
}
