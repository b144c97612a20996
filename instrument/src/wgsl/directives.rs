//! The directives at the head of a WGSL module (`enable`, `requires`, `diagnostic`): naga 30
//! refuses some that Dawn and Chrome require (`enable subgroups;`), and its WGSL writer drops
//! the others (it writes only the `enable`s its own output needs). So a shader is read with
//! the directives naga refuses blanked out (lines and columns stay as they were), and every
//! shader wgstress writes starts with the directives the user gave, the `enable`s the module
//! needs, and the diagnostic filters it carries.

use naga::diagnostic_filter::Severity;
use naga::{Barrier, Binding, Block, BuiltIn, Module, Statement, TypeInner};
use std::borrow::Cow;
use std::ops::Range;

/// Extensions naga 30 knows but refuses (`EnableExtensionNotYetImplemented`,
/// `LanguageExtensionNotYetImplemented`), which Tint accepts. naga's subgroup operations
/// need no `enable`; its validator refuses pointer parameters in any case (pointers.rs
/// rewrites them). A test checks that naga still refuses each.
pub(crate) const NAGA_REFUSES: [(DirectiveKind, &str); 2] = [
    (DirectiveKind::Enable, "subgroups"),
    (DirectiveKind::Requires, "unrestricted_pointer_parameters"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DirectiveKind {
    Enable,
    Requires,
    Diagnostic,
}

impl DirectiveKind {
    fn keyword(self) -> &'static str {
        match self {
            DirectiveKind::Enable => "enable",
            DirectiveKind::Requires => "requires",
            DirectiveKind::Diagnostic => "diagnostic",
        }
    }
}

/// One directive as written: its kind, its names (for `enable` and `requires`) with their
/// byte ranges, and the byte range of the whole directive, `;` included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Directive {
    pub kind: DirectiveKind,
    pub names: Vec<(String, Range<usize>)>,
    pub span: Range<usize>,
}

/// The directives at the head of `source`, in order. Scanning stops at the first thing that
/// is not a well-formed directive; naga reports what is wrong there.
pub(crate) fn scan(source: &str) -> Vec<Directive> {
    let mut lexer = Lexer { source, at: 0 };
    let mut out = Vec::new();
    loop {
        lexer.skip_blank();
        let start = lexer.at;
        let kind = match lexer.word() {
            Some("enable") => DirectiveKind::Enable,
            Some("requires") => DirectiveKind::Requires,
            Some("diagnostic") => DirectiveKind::Diagnostic,
            _ => return out,
        };
        let names = match kind {
            DirectiveKind::Diagnostic => lexer.until_semicolon().map(|()| Vec::new()),
            DirectiveKind::Enable | DirectiveKind::Requires => lexer.name_list(),
        };
        match names {
            Some(names) => out.push(Directive {
                kind,
                names,
                span: start..lexer.at,
            }),
            None => return out,
        }
    }
}

/// `source` as naga 30 reads it: the names of `NAGA_REFUSES` blanked out of their
/// directives (a directive left with none goes whole), every other byte where it was.
pub(crate) fn for_naga(source: &str) -> Cow<'_, str> {
    let mut blank: Vec<Range<usize>> = Vec::new();
    for directive in scan(source) {
        let refused = |name: &str| NAGA_REFUSES.contains(&(directive.kind, name));
        let names = &directive.names;
        if names.is_empty() || !names.iter().any(|(n, _)| refused(n)) {
            continue;
        }
        if names.iter().all(|(n, _)| refused(n)) {
            blank.push(directive.span.clone());
            continue;
        }
        // A refused name goes with the comma after it, or the last one with the comma before.
        for (index, (name, range)) in names.iter().enumerate() {
            if !refused(name) {
                continue;
            }
            let end = match names.get(index + 1) {
                Some((_, next)) => next.start,
                None => range.end,
            };
            let start = match (index + 1 == names.len(), index.checked_sub(1)) {
                (true, Some(before)) => names[before].1.end,
                _ => range.start,
            };
            blank.push(start..end);
        }
    }
    if blank.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut out = source.as_bytes().to_vec();
    for range in blank {
        for byte in &mut out[range] {
            // Line breaks stay, so that lines and columns after the directive do not move.
            if *byte != b'\n' && *byte != b'\r' {
                *byte = b' ';
            }
        }
    }
    // Only ASCII bytes of names, commas and blanks were replaced.
    Cow::Owned(String::from_utf8(out).expect("ASCII replaced by ASCII"))
}

/// `wgsl` (naga's rendering of `module`) headed by the directives the module needs: those of
/// `source` (the user's shader, when there is one), the `enable`s naga wrote, `enable
/// subgroups;` where the module uses subgroups, and one `diagnostic` directive per rule the
/// module filters (the most permissive severity the module gives it anywhere: naga's writer
/// drops the `@diagnostic` attributes of functions, so their filters apply to the module).
pub(crate) fn head(wgsl: &str, module: &Module, source: Option<&str>) -> String {
    let user = source.map(scan).unwrap_or_default();
    let (written, body) = naga_enables(wgsl);
    let mut enables: Vec<String> = names_of(&user, DirectiveKind::Enable);
    let subgroups = needs_subgroups(module).then(|| "subgroups".to_string());
    for name in written.into_iter().chain(subgroups) {
        if !enables.contains(&name) {
            enables.push(name);
        }
    }
    let mut out = String::new();
    for name in &enables {
        out.push_str(&format!("{} {name};\n", DirectiveKind::Enable.keyword()));
    }
    for name in names_of(&user, DirectiveKind::Requires) {
        out.push_str(&format!("{} {name};\n", DirectiveKind::Requires.keyword()));
    }
    for (rule, severity) in diagnostics(module) {
        let keyword = DirectiveKind::Diagnostic.keyword();
        out.push_str(&format!("{keyword}({severity}, {rule});\n"));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(body);
    out
}

fn names_of(directives: &[Directive], kind: DirectiveKind) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in directives
        .iter()
        .filter(|d| d.kind == kind)
        .flat_map(|d| &d.names)
    {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// The extensions of the `enable X;` lines naga's writer puts first, and the rest.
fn naga_enables(wgsl: &str) -> (Vec<String>, &str) {
    let mut names = Vec::new();
    let mut rest = wgsl;
    while let Some(line) = rest.strip_prefix("enable ") {
        let Some((name, after)) = line.split_once(";\n") else {
            break;
        };
        names.push(name.trim().to_string());
        rest = after;
    }
    if !names.is_empty() {
        rest = rest.strip_prefix('\n').unwrap_or(rest);
    }
    (names, rest)
}

/// Whether `module` uses subgroups (a subgroup operation or barrier, a subgroup builtin of an
/// entry point): WGSL then wants `enable subgroups;`.
fn needs_subgroups(module: &Module) -> bool {
    let builtin = |binding: &Option<Binding>| {
        matches!(
            binding,
            Some(Binding::BuiltIn(
                BuiltIn::SubgroupSize
                    | BuiltIn::SubgroupInvocationId
                    | BuiltIn::NumSubgroups
                    | BuiltIn::SubgroupId
            ))
        )
    };
    let inputs = module
        .entry_points
        .iter()
        .flat_map(|e| &e.function.arguments);
    let in_inputs = inputs.clone().any(|a| builtin(&a.binding))
        || inputs
            .filter_map(|a| match &module.types[a.ty].inner {
                TypeInner::Struct { members, .. } => Some(members),
                _ => None,
            })
            .flatten()
            .any(|m| builtin(&m.binding));
    let functions = module.functions.iter().map(|(_, f)| f);
    in_inputs
        || functions
            .chain(module.entry_points.iter().map(|e| &e.function))
            .any(|f| subgroup_statements(&f.body))
}

fn subgroup_statements(block: &Block) -> bool {
    block.iter().any(|statement| {
        let own = match statement {
            Statement::SubgroupBallot { .. }
            | Statement::SubgroupGather { .. }
            | Statement::SubgroupCollectiveOperation { .. } => true,
            Statement::ControlBarrier(barrier) | Statement::MemoryBarrier(barrier) => {
                barrier.contains(Barrier::SUB_GROUP)
            }
            _ => false,
        };
        let mut nested = false;
        crate::ir::walk::nested_blocks_ref(statement, |inner| nested |= subgroup_statements(inner));
        own || nested
    })
}

/// Each rule the module's diagnostic filters name, with the most permissive severity any
/// filter gives it, in the order the rules first appear.
fn diagnostics(module: &Module) -> Vec<(String, &'static str)> {
    let mut rules: Vec<(String, Severity)> = Vec::new();
    for (_, node) in module.diagnostic_filters.iter() {
        let filter = &node.inner;
        let rule = filter.triggering_rule.display_wgsl_ident().to_string();
        match rules.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, severity)) => *severity = permissive(*severity, filter.new_severity),
            None => rules.push((rule, filter.new_severity)),
        }
    }
    rules
        .into_iter()
        .map(|(rule, severity)| (rule, severity_name(severity)))
        .collect()
}

fn rank(severity: Severity) -> u8 {
    match severity {
        Severity::Off => 0,
        Severity::Info => 1,
        Severity::Warning => 2,
        Severity::Error => 3,
    }
}

fn permissive(a: Severity, b: Severity) -> Severity {
    if rank(b) < rank(a) {
        b
    } else {
        a
    }
}

fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Off => "off",
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// Just enough of WGSL's lexical rules for its directives: blankspace, nested block
/// comments, line comments, identifiers and the punctuation between them.
struct Lexer<'s> {
    source: &'s str,
    at: usize,
}

impl<'s> Lexer<'s> {
    fn rest(&self) -> &'s str {
        &self.source[self.at..]
    }

    fn skip_blank(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if let Some(comment) = trimmed.strip_prefix("//") {
                let line = comment.find(['\n', '\r']).unwrap_or(comment.len());
                self.at += 2 + line;
            } else if trimmed.starts_with("/*") {
                self.at += block_comment(trimmed);
            } else {
                return;
            }
        }
    }

    /// The identifier here, if there is one (consumed).
    fn word(&mut self) -> Option<&'s str> {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let first = rest.chars().next()?;
        if len == 0 || first.is_ascii_digit() {
            return None;
        }
        self.at += len;
        Some(&rest[..len])
    }

    fn punct(&mut self, c: char) -> bool {
        self.skip_blank();
        if self.rest().starts_with(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// `name (, name)* ,? ;` with their ranges.
    fn name_list(&mut self) -> Option<Vec<(String, Range<usize>)>> {
        let mut names = Vec::new();
        loop {
            self.skip_blank();
            let start = self.at;
            match self.word() {
                Some(name) => names.push((name.to_string(), start..self.at)),
                None if !names.is_empty() && self.punct(';') => return Some(names),
                None => return None,
            }
            if self.punct(';') {
                return Some(names);
            }
            if !self.punct(',') {
                return None;
            }
        }
    }

    /// Everything up to and including the next `;` outside comments.
    fn until_semicolon(&mut self) -> Option<()> {
        loop {
            self.skip_blank();
            let c = self.rest().chars().next()?;
            self.at += c.len_utf8();
            if c == ';' {
                return Some(());
            }
        }
    }
}

/// The length of the (nested) block comment `text` starts with, or all of it if unclosed.
fn block_comment(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i + 1 < bytes.len() {
        match &bytes[i..i + 2] {
            b"/*" => {
                depth += 1;
                i += 2;
            }
            b"*/" => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naga_still_refuses_what_is_blanked_for_it() {
        for (kind, name) in NAGA_REFUSES {
            let source = format!(
                "{} {name};\n@compute @workgroup_size(1) fn main() {{}}",
                kind.keyword()
            );
            assert!(
                naga::front::wgsl::parse_str(&source).is_err(),
                "naga accepts `{} {name};` now: take it off NAGA_REFUSES",
                kind.keyword()
            );
            let blanked = for_naga(&source);
            assert_eq!(blanked.len(), source.len());
            naga::front::wgsl::parse_str(&blanked).expect("blanked, the shader parses");
        }
    }

    #[test]
    fn directives_are_scanned_past_comments_and_blanked_by_name() {
        let source = "// head\nenable f16, /* x */ subgroups;\n/* a /* nested */ one */ requires unrestricted_pointer_parameters,\n  pointer_composite_access;\ndiagnostic(off, derivative_uniformity);\nfn f() {}\n";
        let found = scan(source);
        let kinds: Vec<DirectiveKind> = found.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                DirectiveKind::Enable,
                DirectiveKind::Requires,
                DirectiveKind::Diagnostic
            ]
        );
        assert_eq!(found[0].names.len(), 2);
        let blanked = for_naga(source);
        assert_eq!(blanked.lines().count(), source.lines().count());
        assert!(blanked.contains("enable f16 "), "{blanked}");
        assert!(!blanked.contains("subgroups"), "{blanked}");
        assert!(!blanked.contains("unrestricted"), "{blanked}");
        assert!(blanked.contains("pointer_composite_access;"), "{blanked}");
        naga::front::wgsl::parse_str(&blanked).unwrap();
    }

    #[test]
    fn a_shader_without_refused_directives_is_not_copied() {
        let source = "enable f16;\nfn f() {}";
        assert!(matches!(for_naga(source), Cow::Borrowed(_)));
    }
}
