//! Misuse of the macros is a compile error pointing at the offending item.

#[test]
fn misuse_is_a_compile_error() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/ok.rs");
    t.pass("tests/ui/pipeline.rs");
    t.compile_fail("tests/ui/duplicate_binding.rs");
    t.compile_fail("tests/ui/wrong_field_type.rs");
    t.compile_fail("tests/ui/postcondition_signature.rs");
    t.compile_fail("tests/ui/unknown_buffer.rs");
    t.compile_fail("tests/ui/missing_dispatch.rs");
}
