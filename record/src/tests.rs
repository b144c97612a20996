use super::*;

fn recording(json: &str) -> Recording {
    serde_json::from_str(json).unwrap()
}

fn b64(words: &[u32]) -> String {
    // Test data only: the recorder's encoding, written by hand for a few words.
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// A program that writes its input, runs `main` over it, copies the output to a staging
/// buffer and reads it back: the shape of most public compute samples.
fn staged(output: &[u32]) -> String {
    format!(
        r#"{{"version": 1, "adapter": {{"description": "llvmpipe"}},
        "buffers": [
          {{"label": "input", "size": 16, "usage": 136, "at": "prog.mjs:3:1"}},
          {{"label": "output", "size": 16, "usage": 132, "at": "prog.mjs:4:1"}},
          {{"label": "staging", "size": 16, "usage": 9, "at": "prog.mjs:5:1"}}],
        "shaders": [{{"label": "", "code": "// wgsl", "at": "prog.mjs:6:1"}}],
        "pipelines": [{{"label": "sum", "shader": 0, "entryPoint": "main", "constants": {{}}}}],
        "bindGroups": [{{"label": "", "entries": [
            {{"binding": 0, "buffer": 0, "offset": 0, "size": null}},
            {{"binding": 1, "buffer": 1, "offset": 0, "size": null}}]}}],
        "timeline": [
          {{"kind": "write", "buffer": 0, "offset": 0, "data": "{input}"}},
          {{"kind": "dispatch", "pipeline": 0, "groups": [{{"index": 0, "group": 0, "offsets": []}}],
            "counts": [4, 1, 1], "indirect": null, "at": "prog.mjs:9:1", "submit": 0}},
          {{"kind": "copy", "src": 1, "srcOffset": 0, "dst": 2, "dstOffset": 0, "size": 16, "submit": 0}},
          {{"kind": "submit", "submit": 0}},
          {{"kind": "read", "buffer": 2, "offset": 0, "data": "{out}", "after": 1, "at": "prog.mjs:12:1"}}],
        "unsupported": [], "unresolved": 0}}"#,
        input = b64(&[1, 2, 3, 4]),
        out = b64(output)
    )
}

#[test]
fn a_staged_read_back_checks_the_buffer_it_was_copied_from() {
    let spec = convert(&recording(&staged(&[1, 3, 6, 10])), &[]).unwrap();
    assert_eq!(spec.bindings.len(), 2, "the staging buffer is no binding");
    assert_eq!(spec.bindings[0].init, Some(vec![1, 2, 3, 4]));
    assert_eq!(spec.bindings[1].init, None);
    assert_eq!(spec.dispatches[0].workgroups, [4, 1, 1]);
    assert_eq!(spec.checks.len(), 1);
    let check = &spec.checks[0];
    assert_eq!((check.group, check.binding), (0, 1));
    assert_eq!(check.words, [(0, 1), (1, 3), (2, 6), (3, 10)]);
    assert_eq!(check.through.as_deref(), Some("`staging`"));
}

#[test]
fn words_that_differ_between_two_recordings_are_not_checked() {
    let first = recording(&staged(&[1, 3, 6, 10]));
    let second = recording(&staged(&[1, 3, 7, 10]));
    let spec = convert(&first, &[second.clone(), second]).unwrap();
    assert_eq!(spec.checks[0].words, [(0, 1), (1, 3), (3, 10)]);
    assert!(
        spec.notes
            .iter()
            .any(|n| n.contains("not deterministic") && n.contains("1 of the 4")),
        "{:?}",
        spec.notes
    );
    let files = render(
        &spec,
        &Origin {
            name: "sum".into(),
            program: "node prog.mjs".into(),
            adapter: None,
            recordings: 2,
        },
    );
    let toml = String::from_utf8(files[0].bytes.clone()).unwrap();
    assert_eq!(toml.matches("[[check]]").count(), 2, "{toml}");
    assert!(toml.contains("start = 3\ncount = 1"), "{toml}");
}

#[test]
fn a_storage_write_between_dispatches_is_refused_at_its_call() {
    let text = staged(&[1, 3, 6, 10]).replace(
        r#"{"kind": "submit", "submit": 0}"#,
        r#"{"kind": "submit", "submit": 0}, {"kind": "write", "buffer": 0, "offset": 0, "data": "AAAAAA==", "at": "prog.mjs:11:3"}"#,
    );
    let error = convert(&recording(&text), &[]).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "prog.mjs:11:3: the program wrote storage buffer `input` between dispatches"
        ),
        "{error}"
    );
}

#[test]
fn recordings_that_took_different_paths_are_refused() {
    let first = recording(&staged(&[1, 3, 6, 10]));
    let mut second = first.clone();
    second.timeline.pop();
    let error = convert(&first, &[second]).unwrap_err().to_string();
    assert!(
        error.contains("timeline entry 4 (a read of buffer 2 against the end)"),
        "{error}"
    );
}

#[test]
fn the_rendered_spec_names_its_files() {
    let spec = convert(&recording(&staged(&[1, 3, 6, 10])), &[]).unwrap();
    let files = render(
        &spec,
        &Origin {
            name: "sum".into(),
            program: "node prog.mjs".into(),
            adapter: Some("llvmpipe".into()),
            recordings: 1,
        },
    );
    let names: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        names,
        [
            "spec.toml",
            "shader-0.wgsl",
            "init-0-0.bin",
            "expected-0.bin"
        ]
    );
    let toml = String::from_utf8(files[0].bytes.clone()).unwrap();
    assert!(
        toml.contains("entry = \"main\"\nworkgroups = [4, 1, 1]"),
        "{toml}"
    );
    assert_eq!(
        files[3].bytes,
        [1, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 10, 0, 0, 0]
    );
}
