//! Misuse of the macros is a compile error pointing at the offending item.

#[test]
fn misuse_is_a_compile_error() {
    // trybuild compiles the cases as a crate of its own under the build directory, wherever
    // CARGO_TARGET_DIR puts it: they name their WGSL as `$WGSTRESS_MACROS_TESTS/wgsl/...`,
    // from this variable, which the compiler inherits.
    std::env::set_var(
        "WGSTRESS_MACROS_TESTS",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests"),
    );
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/ok.rs");
    t.pass("tests/ui/pipeline.rs");
    t.compile_fail("tests/ui/duplicate_binding.rs");
    t.compile_fail("tests/ui/wrong_field_type.rs");
    t.compile_fail("tests/ui/postcondition_signature.rs");
    t.compile_fail("tests/ui/unknown_buffer.rs");
    t.compile_fail("tests/ui/missing_dispatch.rs");
}
