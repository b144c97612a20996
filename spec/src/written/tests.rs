use super::*;
use crate::check::{Check, Rule};
use crate::described::{BindAt, Binding, BindingKind, UniformWords};
use crate::document::{read, unspanned, DispatchTable};
use crate::init::Init;
use std::path::{Path, PathBuf};

fn document() -> Document {
    let mut dispatch = DispatchTable::new(Some("main".into()), [4, 1, 1]);
    dispatch.bind.push(BindAt {
        group: 0,
        slot: 1,
        binding: 2,
    });
    dispatch.uniforms.push(UniformWords {
        group: 0,
        binding: 3,
        words: vec![7],
    });
    Document {
        name: Some("a\r\nb\u{1b}[31m \"q\" \\".into()),
        shader: "shader-0.wgsl".into(),
        entry: None,
        postcondition: None,
        postcondition_shader: None,
        workgroups: None,
        postcondition_workgroups: None,
        constants: [
            ("width".to_string(), 8.0),
            ("odd key".to_string(), f64::INFINITY),
        ]
        .into_iter()
        .collect(),
        dispatches: vec![unspanned(dispatch)],
        bindings: vec![
            unspanned(Binding {
                name: Some("in\u{7f}put".into()),
                init: Init::File {
                    path: PathBuf::from("init-0-0.bin"),
                },
                ..Binding::storage(0, 64, Init::Zeros)
            }),
            unspanned(Binding {
                kind: BindingKind::Uniform,
                ..Binding::storage(3, 4, Init::Zeros)
            }),
        ],
        checks: vec![unspanned(Check {
            name: Some("read-back 0".into()),
            group: 0,
            binding: 0,
            words: None,
            start: Some(2),
            count: Some(3),
            stride: None,
            last: false,
            rule: Rule::EqualsFile {
                path: "expected-0.bin".into(),
            },
        })],
    }
}

#[test]
fn a_written_document_reads_back_as_itself() {
    let document = document();
    let text = write(&document, &Comments::default()).unwrap();
    let again = read(&text, Path::new("spec.toml")).unwrap();
    assert_eq!(again, document, "{text}");
}

#[test]
fn tagged_values_are_written_as_a_spec_writes_them() {
    let text = write(&document(), &Comments::default()).unwrap();
    for line in [
        "init = { kind = \"file\", path = \"init-0-0.bin\" }",
        "kind = \"equals-file\"",
        "path = \"expected-0.bin\"",
        "bind = [{ group = 0, slot = 1, binding = 2 }]",
        "[[dispatch.uniform]]",
        "\"odd key\" = inf",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in:\n{text}");
    }
    assert!(!text.contains("rule"), "{text}");
    // A name with a line break, a carriage return and a terminal escape stays on its line.
    let name = "name = \"a\\r\\nb\\u001B[31m \\\"q\\\" \\\\\"";
    assert!(text.lines().any(|l| l == name), "{name} in:\n{text}");
    // The default contents are left out.
    assert_eq!(text.matches("init =").count(), 1, "{text}");
}

#[test]
fn comments_go_above_tables_and_after_values_each_on_one_line() {
    let comments = Comments {
        above: vec![
            (Place::Top, "Recorded from: a\nb".into()),
            (Place::Top, "Adapter: x\u{1b}y".into()),
            (Place::Dispatch(0), "dispatch 0: at page.js:3:5".into()),
            (Place::Check(0), "read back at page.js:9:1".into()),
        ],
        after: vec![
            (
                Place::Dispatch(0),
                "workgroups",
                "from its indirect buffer".into(),
            ),
            (Place::Binding(0), "init", "what the program wrote".into()),
        ],
    };
    let text = write(&document(), &comments).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "# Recorded from: a\\nb");
    assert_eq!(lines[1], "# Adapter: x\\u{1b}y");
    assert!(lines[2].starts_with("name = "), "{text}");
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| *l == line)
            .unwrap_or_else(|| panic!("{line} in:\n{text}"))
    };
    assert_eq!(at("# dispatch 0: at page.js:3:5") + 1, at("[[dispatch]]"));
    assert_eq!(at("# read back at page.js:9:1") + 1, at("[[check]]"));
    assert!(
        text.contains("workgroups = [4, 1, 1]  # from its indirect buffer\n"),
        "{text}"
    );
    assert!(text.contains("}  # what the program wrote\n"), "{text}");
    assert_eq!(read(&text, Path::new("spec.toml")).unwrap(), document());
}

#[test]
fn a_comment_for_a_table_the_document_lacks_is_refused() {
    let comments = Comments {
        above: vec![(Place::Check(3), "no such check".into())],
        after: Vec::new(),
    };
    let error = write(&document(), &comments).unwrap_err();
    assert!(error.to_string().contains("[[check]] 4"), "{error}");
}
