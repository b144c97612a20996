use super::*;

fn recording(json: &str) -> Recording {
    serde_json::from_str(json).unwrap()
}

fn b64(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    crate::base64_data::encode_base64(&bytes)
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
            dir: None,
        },
    )
    .unwrap();
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

/// A recording whose buffers hold more than a spec is made from in memory is refused with
/// their size and the limit, before anything of theirs is held: never cut down to what fits.
#[test]
fn buffers_past_what_a_recording_may_hold_are_refused_with_their_size_and_the_limit() {
    let text = staged(&[1, 3, 6, 10]).replace(
        r#"{"label": "output", "size": 16,"#,
        r#"{"label": "output", "size": 4294967296,"#,
    );
    let error = convert(&recording(&text), &[]).unwrap_err().to_string();
    assert!(
        error.contains("buffers of 4294967328 bytes in all")
            && error.contains("may hold 4294967296 bytes"),
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
            dir: None,
        },
    )
    .unwrap();
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

#[test]
fn a_wgpu_trace_reads_as_a_recording_with_its_read_backs_to_replay() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data1.wgsl"), "// the shader").unwrap();
    std::fs::write(dir.path().join("data2.bin"), [4u8, 0, 0, 0]).unwrap();
    // The shape wgpu 30 writes, cut to what a spin lock's program does.
    let trace = r#"[
Init(desc: (label: None, required_features: ""), backend: Vulkan),
CreateShaderModule(id: PointerId(10), desc: (label: Some("spin lock")), data: File("data1.wgsl")),
CreateComputePipeline(id: PointerId(20), desc: (label: Some("count"), layout: None,
    stage: (module: PointerId(10), entry_point: Some("main"), constants: {}))),
CreateBuffer(PointerId(30), (label: Some("total"), size: 4, usage: "COPY_SRC | STORAGE", mapped_at_creation: false)),
CreateBuffer(PointerId(31), (label: Some("config"), size: 4, usage: "COPY_DST | UNIFORM", mapped_at_creation: false)),
WriteBuffer(id: PointerId(31), data: File("data2.bin"), offset: 0, size: 4, queued: true),
CreateBuffer(PointerId(32), (label: Some("readback"), size: 4, usage: "MAP_READ | COPY_DST", mapped_at_creation: false)),
GetComputePipelineBindGroupLayout(id: PointerId(40), pipeline: PointerId(20), index: 0),
CreateBindGroup(PointerId(50), (label: None, layout: PointerId(40), entries: [
    (binding: 1, resource: Buffer((buffer: PointerId(30), offset: 0, size: None))),
    (binding: 2, resource: Buffer((buffer: PointerId(31), offset: 0, size: None))),
])),
Submit(1, [
    RunComputePass(pass: (label: None, commands: [
        SetPipeline(PointerId(20)),
        SetBindGroup(index: 0, num_dynamic_offsets: 0, bind_group: Some(PointerId(50))),
        DispatchWorkgroups((256, 1, 1)),
    ], dynamic_offsets: []), timestamp_writes: None),
    CopyBufferToBuffer(src: PointerId(30), src_offset: 0, dst: PointerId(32), dst_offset: 0, size: Some(4)),
]),
CreateTexture(PointerId(60), (label: None)),
DropBuffer(PointerId(30)),
"#;
    std::fs::write(dir.path().join("trace.ron"), trace).unwrap();
    let recording = read_trace(dir.path()).unwrap();
    assert_eq!(recording.buffers.len(), 3);
    assert_eq!(recording.buffers[0].usage, 0x84);
    assert_eq!(recording.shaders[0].code, "// the shader");
    let spec = convert(&recording, &[]).unwrap();
    assert_eq!(spec.dispatches[0].workgroups, [256, 1, 1]);
    assert_eq!(spec.dispatches[0].entry.as_deref(), Some("main"));
    assert_eq!(spec.bindings.len(), 2);
    assert_eq!(spec.bindings[1].init, Some(vec![4]));
    // The read-back is of `total`, through `readback`, its value to be replayed.
    assert_eq!(spec.checks.len(), 1);
    assert_eq!((spec.checks[0].group, spec.checks[0].binding), (0, 1));
    assert!(
        spec.notes.iter().any(|n| n.contains("CreateTexture")),
        "{:?}",
        spec.notes
    );
}

#[test]
fn a_trace_that_is_not_ron_says_where() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("trace.ron"),
        "[\nInit(desc: (label: None,),\nCreateBuffer(PointerId(1), (size: ]",
    )
    .unwrap();
    let error = read_trace(dir.path()).unwrap_err().to_string();
    assert!(error.contains("trace.ron:3:13: Expected colon"), "{error}");
}

#[test]
fn a_shader_the_program_read_from_a_file_is_named_by_its_path_from_the_spec() {
    let mut recording = recording(&staged(&[1, 3, 6, 10]));
    recording.shaders[0].file = Some("/home/me/app/shaders/sum.wgsl".into());
    let spec = convert(&recording, &[]).unwrap();
    let origin = Origin {
        name: "sum".into(),
        program: "node prog.mjs".into(),
        adapter: None,
        recordings: 1,
        dir: Some("/home/me/app/recorded".into()),
    };
    let files = render(&spec, &origin).unwrap();
    let toml = String::from_utf8(files[0].bytes.clone()).unwrap();
    assert!(toml.contains("shader = \"../shaders/sum.wgsl\""), "{toml}");
    assert!(
        toml.contains("# shader 0: the program read it from /home/me/app/shaders/sum.wgsl"),
        "{toml}"
    );
    assert!(
        files.iter().all(|f| !f.path.ends_with(".wgsl")),
        "no copy is written"
    );
}

#[test]
fn a_uniform_written_between_dispatches_holds_its_words_for_every_later_dispatch() {
    // Two dispatches after a write of 7 into the uniform `pass`, the second with no write
    // of its own: both run with 7, not with the contents it had before the first.
    let text = format!(
        r#"{{"version": 1,
        "buffers": [
          {{"label": "data", "size": 16, "usage": 132}},
          {{"label": "pass", "size": 4, "usage": 72}}],
        "shaders": [{{"label": "", "code": "// wgsl"}}],
        "pipelines": [{{"label": "", "shader": 0, "entryPoint": "main", "constants": {{}}}}],
        "bindGroups": [{{"label": "", "entries": [
            {{"binding": 0, "buffer": 0, "offset": 0, "size": null}},
            {{"binding": 1, "buffer": 1, "offset": 0, "size": null}}]}}],
        "timeline": [
          {{"kind": "write", "buffer": 1, "offset": 0, "data": "{one}"}},
          {{"kind": "dispatch", "pipeline": 0, "groups": [{{"index": 0, "group": 0, "offsets": []}}],
            "counts": [1, 1, 1], "indirect": null, "submit": 0}},
          {{"kind": "write", "buffer": 1, "offset": 0, "data": "{seven}"}},
          {{"kind": "dispatch", "pipeline": 0, "groups": [{{"index": 0, "group": 0, "offsets": []}}],
            "counts": [1, 1, 1], "indirect": null, "submit": 1}},
          {{"kind": "dispatch", "pipeline": 0, "groups": [{{"index": 0, "group": 0, "offsets": []}}],
            "counts": [1, 1, 1], "indirect": null, "submit": 2}}],
        "unsupported": []}}"#,
        one = b64(&[1]),
        seven = b64(&[7])
    );
    let spec = convert(&recording(&text), &[]).unwrap();
    assert_eq!(spec.bindings[1].init, Some(vec![1]));
    assert!(spec.dispatches[0].uniforms.is_empty());
    assert_eq!(spec.dispatches[1].uniforms, [(0, 1, vec![7])]);
    assert_eq!(spec.dispatches[2].uniforms, [(0, 1, vec![7])]);
}

/// Labels, names and call sites are the program's own text: control characters in any of
/// them (a carriage return, an escape) are written escaped, in strings and in comments, so
/// that the spec parses and gives each string back as the program wrote it.
#[test]
fn control_characters_in_labels_and_names_are_written_escaped() {
    let hostile = "a\r\nb\u{1b}[2J \"q\" \\ \u{7f}";
    let mut r = recording(&staged(&[1, 3, 6, 10]));
    r.buffers[0].label = hostile.to_string();
    r.buffers[1].at = format!("page.html:{hostile}");
    r.pipelines[0].label = hostile.to_string();
    r.pipelines[0].constants.insert(hostile.to_string(), 2.0);
    let spec = convert(&r, &[]).unwrap();
    let files = render(
        &spec,
        &Origin {
            name: hostile.into(),
            program: format!("node {hostile}"),
            adapter: Some(hostile.into()),
            recordings: 1,
            dir: None,
        },
    )
    .unwrap();
    let text = String::from_utf8(files[0].bytes.clone()).unwrap();
    let parsed: toml::Table = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed["name"].as_str(), Some(hostile));
    assert_eq!(parsed["constants"][hostile].as_float(), Some(2.0));
    let names: Vec<&str> = parsed["binding"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b.get("name").and_then(|n| n.as_str()))
        .collect();
    assert_eq!(names, [hostile, "output"]);
    assert!(
        !text.contains('\r') && !text.contains('\u{1b}'),
        "raw control characters: {text:?}"
    );
}

/// Recordings are compared in full: what the program wrote and the workgroups it dispatched,
/// each difference named with the first recording's call site and the recordings' numbers.
#[test]
fn recordings_whose_inputs_differ_say_what_differs_where() {
    let first = recording(&staged(&[1, 3, 6, 10]));
    assert_eq!(compare(&[first.clone(), first.clone()]), []);
    let mut third = first.clone();
    if let crate::recording::Event::Write { data, .. } = &mut third.timeline[0] {
        *data = b64(&[1, 2, 3, 5]);
    }
    if let crate::recording::Event::Dispatch { counts, .. } = &mut third.timeline[1] {
        *counts = Some([5, 1, 1]);
    }
    let differences = compare(&[first.clone(), first.clone(), third.clone()]);
    let said: Vec<String> = differences.iter().map(ToString::to_string).collect();
    assert_eq!(
        said,
        [
            "recordings 1 and 3 differ at the program: the program wrote other data into \
             `input`: 1 of 4 words differ",
            "recordings 1 and 3 differ at prog.mjs:9:1: workgroups [4, 1, 1] against [5, 1, 1]"
        ]
    );
    assert!(same_path(&first, &third));
    let mut shorter = first.clone();
    shorter.timeline.truncate(2);
    assert!(!same_path(&first, &shorter));
    assert!(compare(&[first, shorter])[0]
        .what
        .contains("the timelines part at entry 2: a copy from buffer 1 to 2 against the end"));
}

/// `read_trace` of a trace.ron holding `text` (and the data files `files`), as its error.
fn trace_error(text: &str, files: &[(&str, &[u8])]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trace.ron"), text).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    match read_trace(dir.path()) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_traces_are_errors_that_say_where() {
    // Each once panicked the hand-written reader; the last overflowed its stack.
    let deep = format!("[{}{}]", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let cases = [
        "['abc]",
        "[\"\\x]",
        "[\"\\u}\"]",
        "[\"\\xé\"]",
        "[CreateBuffer(PointerId(1), (size: 4, label: \"\\x",
        deep.as_str(),
    ];
    for text in cases {
        let error = trace_error(text, &[]);
        assert!(error.contains("trace.ron:1:"), "{text:.40}: {error}");
    }
}

#[test]
fn a_trace_of_an_older_wgpu_is_refused_by_its_format() {
    let error = trace_error(
        "[\nInit(desc: (label: None), backend: Vulkan),\nCreateBuffer((1, 1, Vulkan), (label: None, size: 4, usage: \"STORAGE\")),\n]",
        &[],
    );
    assert!(
        error.contains("a trace of an older wgpu")
            && error.contains("import reads the trace.ron of wgpu 30"),
        "{error}"
    );
}

#[test]
fn a_buffer_past_the_bound_is_refused_before_anything_is_allocated() {
    for size in [1u64 << 40, u64::MAX, 4 << 30, 8 << 30] {
        let error = trace_error(
            &format!(
                "[CreateBuffer(PointerId(1), (label: None, size: {size}, usage: \"MAP_READ | COPY_DST\")),]"
            ),
            &[],
        );
        assert!(
            error.contains(&format!("a buffer of {size} bytes")),
            "{size}: {error}"
        );
    }
}

#[test]
fn data_files_are_read_within_their_bound_and_only_when_regular() {
    let write = |name: &str| {
        format!(
            "[CreateBuffer(PointerId(1), (label: None, size: 4, usage: \"STORAGE | COPY_DST\")),\n\
             WriteBuffer(id: PointerId(1), data: File(\"{name}\"), offset: 0, size: 4, queued: true),]"
        )
    };
    let error = trace_error(&write("data1.bin"), &[("data1.bin", &[0; 8])]);
    assert!(error.contains("8 bytes, more than"), "{error}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("trace.ron"), write("zero.bin")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.bin")).unwrap();
    let error = read_trace(dir.path()).unwrap_err().to_string();
    assert!(error.contains("not a regular file"), "{error}");
    std::fs::write(dir.path().join("trace.ron"), write("fifo.bin")).unwrap();
    let fifo = std::ffi::CString::new(dir.path().join("fifo.bin").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let error = read_trace(dir.path()).unwrap_err().to_string();
    assert!(error.contains("not a regular file"), "{error}");
}

#[test]
fn base64_reads_what_javascript_writes() {
    // Buffer.from([0, 0, 0, 0, 7, 0, 0, 0, 14, 0, 0, 0, 21, 0, 0, 0]).toString('base64')
    assert_eq!(
        crate::base64_data::decode_base64("AAAAAAcAAAAOAAAAFQAAAA==").unwrap(),
        [0, 0, 0, 0, 7, 0, 0, 0, 14, 0, 0, 0, 21, 0, 0, 0]
    );
    assert_eq!(crate::base64_data::decode_base64("YQ==").unwrap(), b"a");
    assert_eq!(crate::base64_data::decode_base64("").unwrap(), b"");
    assert!(crate::base64_data::decode_base64("YW=").is_none());
    assert!(crate::base64_data::decode_base64("Y!==").is_none());
    for bytes in [&b""[..], b"a", b"ab", b"abc", &[0, 255, 7, 9, 200]] {
        assert_eq!(
            crate::base64_data::decode_base64(&crate::base64_data::encode_base64(bytes)).unwrap(),
            bytes
        );
    }
}
