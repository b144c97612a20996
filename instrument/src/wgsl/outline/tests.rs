use super::*;

const SOURCE: &str = "struct S { a: u32 }
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
// fn not_a_function() {}
fn helper(@builtin(local_invocation_index) lid: u32, k: u32) -> u32 { return lid + k; }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let x: u32 = buf[0]; // a comment; with a semicolon
    var y = 0u;
    if (lid == 0u) { buf[1] = x; } else if lid == 1u { y += 1u; } else { return; }
    for (var i = 0u; i < 4u; i++) {
        buf[i] = i;
    }
    loop { continuing { break if y > 2u; } }
    switch lid { case 0u: { buf[2] = 1u; } default { } }
    { buf[3] = helper(lid, y); }
}
";

fn text(range: &Range<usize>) -> &'static str {
    &SOURCE[range.clone()]
}

#[test]
fn functions_and_their_statements_are_outlined() {
    let outline = Outline::of(SOURCE);
    let names: Vec<&str> = outline.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["helper", "main"]);
    assert_eq!(outline.functions[0].parameters, ["lid", "k"]);
    let main = outline.function("main").unwrap();
    let statements: Vec<&str> = main
        .body
        .statements
        .iter()
        .map(|s| text(&s.range))
        .collect();
    assert_eq!(statements[0], "let x: u32 = buf[0];");
    assert_eq!(statements[1], "var y = 0u;");
    assert!(statements[2].starts_with("if (lid == 0u)") && statements[2].ends_with("{ return; }"));
    assert!(statements[3].starts_with("for (") && statements[3].ends_with('}'));
    assert_eq!(statements[4], "loop { continuing { break if y > 2u; } }");
    assert!(statements[5].starts_with("switch"));
    assert_eq!(statements[6], "{ buf[3] = helper(lid, y); }");
    assert_eq!(statements.len(), 7);
}

#[test]
fn declarations_branches_and_blocks_have_their_parts() {
    let outline = Outline::of(SOURCE);
    let main = outline.function("main").unwrap();
    let StmtKind::Decl(decl) = &main.body.statements[0].kind else {
        panic!("a declaration");
    };
    assert_eq!(decl.name, "x");
    assert_eq!(decl.ty.as_ref().map(text), Some("u32"));
    assert_eq!(decl.init.as_ref().map(text), Some("buf[0]"));
    let StmtKind::If(arms) = &main.body.statements[2].kind else {
        panic!("an if");
    };
    let conditions: Vec<Option<&str>> = arms
        .iter()
        .map(|a| a.condition.as_ref().map(text))
        .collect();
    assert_eq!(conditions, [Some("lid == 0u"), Some("lid == 1u"), None]);
    assert_eq!(text(&arms[1].body.statements[0].range), "y += 1u;");
    let StmtKind::Switch(clauses) = &main.body.statements[5].kind else {
        panic!("a switch");
    };
    assert_eq!(clauses.len(), 2);
    let store = SOURCE.find("buf[i] = i").unwrap();
    let inner = main.body.innermost(store);
    assert_eq!(text(&inner.statements[0].range), "buf[i] = i;");
    assert_eq!(main.body.child_at(store), Some(3));
}

#[test]
fn words_and_mentions_skip_comments() {
    assert!(mentions("a + b // c", "b"));
    assert!(!mentions("a + b // c", "c"));
    assert_eq!(words("let x = y; /* z */"), ["let", "x", "y"]);
}

#[test]
fn a_name_is_referred_to_unless_a_block_declares_its_own_first() {
    let source = "fn f(c: bool) -> u32 {
    if c { let b = 1u; _ = b; }
    if c { _ = b; }
    if b > 0u { }
    loop { let b = 2u; if b > 1u { break; } }
    { _ = b + 1u; let b = 3u; }
    let d: u32 = b;
    let b = 4u;
    for (var i = b; i < 2u; i++) { }
    return b;
}
";
    let outline = Outline::of(source);
    let body = &outline.function("f").unwrap().body;
    let refers: Vec<bool> = body
        .statements
        .iter()
        .map(|s| refers_outside(source, s, "b"))
        .collect();
    assert_eq!(
        refers,
        [false, true, true, false, true, true, false, true, true]
    );
}
