//! Bad input: a clear error naming the problem, never a panic.

use wgstress_instrument::{instrument_wgsl, InstrumentError, InstrumentOptions};

fn error(source: &str) -> InstrumentError {
    match instrument_wgsl(
        source,
        &InstrumentOptions {
            file_name: Some("app.wgsl".into()),
            ..Default::default()
        },
    ) {
        Ok(_) => panic!("instrumenting should fail:\n{source}"),
        Err(e) => e,
    }
}

#[test]
fn parse_error_has_file_line_column_and_nagas_message() {
    let e = error("@compute @workgroup_size(1)\nfn main() {\n    let x = 1u +;\n}\n");
    assert_eq!(e.location(), Some((3, 17)));
    let text = e.to_string();
    assert!(
        text.starts_with("app.wgsl:3:17: expected expression"),
        "{text}"
    );
}

/// naga's other labels name places too: where a name defined twice was defined first.
#[test]
fn parse_error_names_the_other_places_naga_points_at() {
    let e = error("fn f() {}\nfn f() {}\n@compute @workgroup_size(1) fn main() {}\n");
    assert_eq!(
        e.to_string(),
        "app.wgsl:2:4: redefinition of `f`; previous definition of `f` at 1:4"
    );
}

#[test]
fn validation_error_has_location() {
    let e = error("@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = 1.5;\n}\n");
    let text = e.to_string();
    assert!(text.starts_with("app.wgsl:3:"), "{text}");
}

/// naga's top error names only the item ("Entry point main at Compute is invalid"); the
/// errors under it say what is wrong, and the message carries them all.
#[test]
fn validation_error_carries_nagas_whole_reason() {
    let e = error(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(1)\nfn main() {\n    let one: i32 = 1;\n    out[0] = 2u + one;\n}\n",
    );
    let text = e.to_string();
    assert!(
        text.starts_with("app.wgsl:5:14: Entry point main at Compute is invalid: Expression"),
        "{text}"
    );
    assert!(text.contains("Operation Add can't work with"), "{text}");
    assert!(text.contains("Uint") && text.contains("Sint"), "{text}");
}

#[test]
fn entry_point_problems() {
    // Every entry point error names the file, as the shader's other errors do.
    assert_eq!(
        error("fn f() {}").to_string(),
        "app.wgsl: the shader has no @compute entry point"
    );
    let two = "@compute @workgroup_size(1) fn a() {} @compute @workgroup_size(1) fn b() {}";
    assert_eq!(
        error(two).to_string(),
        "app.wgsl: the shader has several @compute entry points (a, b); pick one with --entry"
    );
    let e = instrument_wgsl(
        two,
        &InstrumentOptions {
            entry: Some("c".into()),
            ..Default::default()
        },
    )
    .err()
    .unwrap();
    assert_eq!(
        e.to_string(),
        "shader.wgsl: no @compute entry point named `c` (the shader has: a, b)"
    );
    let e = instrument_wgsl(
        two,
        &InstrumentOptions {
            entry: Some("a".into()),
            postcondition: Some("a".into()),
            ..Default::default()
        },
    )
    .err()
    .unwrap();
    assert!(matches!(e, InstrumentError::PostconditionIsEntry { .. }));
}

#[test]
fn reserved_names_clash() {
    let e = error("var<private> wgstress_state: u32; @compute @workgroup_size(1) fn main() { wgstress_state = 1u; }");
    assert_eq!(e.to_string(), "app.wgsl:1:1: `wgstress_state` uses the prefix `wgstress_`, which is reserved for the instrumenter; rename it");
    assert_eq!(e.location(), Some((1, 1)));
}

#[test]
fn bad_hook_signature() {
    let e = error("fn wgstress_assert(x: u32) {} @compute @workgroup_size(1) fn main() { wgstress_assert(1u); }");
    assert!(matches!(e, InstrumentError::BadAssertHook { .. }), "{e}");
    assert!(e.to_string().starts_with("app.wgsl:1:1: "), "{e}");
}

#[test]
fn every_bind_group_used() {
    let e = error(
        "@group(0) @binding(0) var<storage, read_write> a: u32;
         @group(1) @binding(0) var<storage, read_write> b: u32;
         @group(2) @binding(0) var<storage, read_write> c: u32;
         @group(3) @binding(0) var<storage, read_write> d: u32;
         @compute @workgroup_size(1) fn main() { a = b + c + d; }",
    );
    assert_eq!(
        e.to_string(),
        "the shader uses every bind group 0..4; wgstress needs one free group for its bindings"
    );
}

#[test]
fn an_override_without_a_value_is_refused_by_name() {
    let e = error("override size: u32; @compute @workgroup_size(size) fn main() {}");
    assert!(matches!(e, InstrumentError::Overrides { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "app.wgsl: override `size` has no default and no value; give it one in the spec's [constants] (or `--constant size=VALUE` to `wgstress instrument`)"
    );
}

/// Every error about a place in the user's shader starts with file:line:column.
#[test]
fn errors_about_the_shader_carry_file_line_column() {
    let cases = [
        (
            "@compute @workgroup_size(1)\nfn main() {\n    var wgstress_n = 1u;\n    wgstress_n += 1u;\n}",
            (3, 5),
        ),
        (
            "fn helper() {}\nfn wgstress_helper() {}\n@compute @workgroup_size(1) fn main() { helper(); }",
            (2, 1),
        ),
        (
            "\n@compute @workgroup_size(1)\nfn main(@builtin(subgroup_invocation_id) s: u32, @location(0) x: u32) { let y = x + s; }",
            (3, 63),
        ),
    ];
    for (source, position) in cases {
        let e = error(source);
        assert_eq!(e.location(), Some(position), "{e}");
        let prefix = format!("app.wgsl:{}:{}: ", position.0, position.1);
        assert!(e.to_string().starts_with(&prefix), "{e}");
    }
}

#[test]
fn errors_are_one_line() {
    for e in [
        error("fn f() {}"),
        error("var<private> wgstress_x: u32; @compute @workgroup_size(1) fn m() {}"),
        error("@compute @workgroup_size(1)\nfn main() {\n    let x = 1u +;\n}\n"),
        error("@compute @workgroup_size(1)\nfn main() {\n    let x: u32 = 1.5;\n}\n"),
    ] {
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
