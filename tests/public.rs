//! The workspace's public surface: what each library crate lets other crates name. Every
//! library denies `unreachable_pub`, so an item written `pub` is one that another crate can
//! reach; these tests read the sources to hold that surface small and its type names unique.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The library crates, by the directory of their sources.
const LIBRARIES: &[&str] = &[
    "runtime/src",
    "fences/src",
    "instrument/src",
    "litmus/src",
    "progress/src",
    "model/src",
    "spec/src",
    "log/src",
    "chromium/src",
    "device/src",
    "browser/src",
    "campaign/src",
    "apps/src",
    "tools/tint/src",
];

/// runtime's public items: fewer than half of the 466 it had when each of its modules was
/// public (issue 34), and fewer again since the fence search moved to wgstress-fences, what
/// an application is to wgstress-spec and the run loop's events to wgstress-model. A new
/// `pub` item is one more thing every other crate may come to lean on.
const RUNTIME_AT_MOST: usize = 112;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A public item: its kind, name and where it is written.
#[derive(Debug)]
struct Public {
    kind: &'static str,
    name: String,
    at: String,
}

fn is_public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// The public items of `items` (recursing into inline modules and impl blocks), test
/// modules left out.
fn collect(items: &[syn::Item], at: &str, out: &mut Vec<Public>) {
    use syn::Item;
    for item in items {
        let mut push = |kind: &'static str, name: String| {
            out.push(Public {
                kind,
                name,
                at: at.to_string(),
            })
        };
        match item {
            Item::Struct(i) if is_public(&i.vis) => push("struct", i.ident.to_string()),
            Item::Enum(i) if is_public(&i.vis) => push("enum", i.ident.to_string()),
            Item::Union(i) if is_public(&i.vis) => push("union", i.ident.to_string()),
            Item::Trait(i) if is_public(&i.vis) => push("trait", i.ident.to_string()),
            Item::Type(i) if is_public(&i.vis) => push("type", i.ident.to_string()),
            Item::Fn(i) if is_public(&i.vis) => push("fn", i.sig.ident.to_string()),
            Item::Const(i) if is_public(&i.vis) => push("const", i.ident.to_string()),
            Item::Static(i) if is_public(&i.vis) => push("static", i.ident.to_string()),
            Item::Use(i) if is_public(&i.vis) => push("use", quote_use(&i.tree)),
            Item::Mod(m) if !is_test(&m.attrs) && m.ident != "tests" => {
                if is_public(&m.vis) {
                    push("mod", m.ident.to_string());
                }
                if let Some((_, inner)) = &m.content {
                    collect(inner, at, out);
                }
            }
            Item::Impl(i) if !is_test(&i.attrs) => {
                for inner in &i.items {
                    match inner {
                        syn::ImplItem::Fn(f) if is_public(&f.vis) => {
                            push("fn", f.sig.ident.to_string())
                        }
                        syn::ImplItem::Const(c) if is_public(&c.vis) => {
                            push("const", c.ident.to_string())
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

fn quote_use(tree: &syn::UseTree) -> String {
    match tree {
        syn::UseTree::Path(p) => format!("{}::{}", p.ident, quote_use(&p.tree)),
        syn::UseTree::Name(n) => n.ident.to_string(),
        syn::UseTree::Rename(r) => format!("{} as {}", r.ident, r.rename),
        syn::UseTree::Glob(_) => "*".to_string(),
        syn::UseTree::Group(g) => format!(
            "{{{}}}",
            g.items.iter().map(quote_use).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The public items of the library whose sources are under `dir` (relative to the workspace).
fn public_items(dir: &str) -> Vec<Public> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&workspace.join(dir), &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let relative = file.strip_prefix(workspace).unwrap().display().to_string();
        // A test module's own file is left out with it.
        if relative.ends_with("/tests.rs") || relative.contains("/tests/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{relative}: {e}"));
        collect(&parsed.items, &relative, &mut out);
    }
    out
}

#[test]
fn every_library_denies_unreachable_pub() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in LIBRARIES {
        let root = workspace.join(dir).join("lib.rs");
        let text = std::fs::read_to_string(&root).unwrap();
        assert!(
            text.contains("#![deny(unreachable_pub)]"),
            "{}: without #![deny(unreachable_pub)], an item written pub may be one no other \
             crate can reach, and this file's counts mean nothing",
            root.display()
        );
    }
}

#[test]
fn no_two_public_types_share_a_name() {
    let mut types: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for dir in LIBRARIES {
        for item in public_items(dir) {
            if matches!(item.kind, "struct" | "enum" | "union" | "trait" | "type") {
                types.entry(item.name).or_default().push(item.at);
            }
        }
    }
    let shared: Vec<String> = types
        .iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(name, at)| format!("{name}: {}", at.join(", ")))
        .collect();
    assert!(
        shared.is_empty(),
        "public types that share a name:\n{}",
        shared.join("\n")
    );
}

#[test]
fn the_runtime_keeps_its_public_items_few() {
    let items = public_items("runtime/src");
    assert!(
        items.len() <= RUNTIME_AT_MOST,
        "runtime has {} public items, more than {RUNTIME_AT_MOST}:\n{}",
        items.len(),
        items
            .iter()
            .map(|i| format!("{} {} ({})", i.kind, i.name, i.at))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The workspace's Rust files, by path from its root: every crate's sources, tests and
/// examples (build outputs, Node's packages and device folders are not sources).
fn workspace_sources() -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(workspace).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && !name.starts_with('.') && !["target", "docs"].contains(&name.as_str()) {
            rust_files_outside_packages(&path, &mut files);
        }
    }
    files
        .into_iter()
        .map(|f| f.strip_prefix(workspace).unwrap().to_path_buf())
        .collect()
}

fn rust_files_outside_packages(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("node_modules") && !path.ends_with("target") {
                rust_files_outside_packages(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Names that say where a module sits, not what it holds: any number of files may bear them.
const PLACE_NAMES: &[&str] = &["mod.rs", "lib.rs", "main.rs", "tests.rs", "build.rs"];

/// Names that each name one file at most: a search for one finds one kind of thing.
const ONE_FILE_EACH: &[&str] = &[
    "progress.rs",
    "record.rs",
    "tally.rs",
    "tune.rs",
    "shapes.rs",
];

/// How many other names two or more files share, at most: a rename that gives a file a name
/// of its own lowers it, and a new file that takes another's name is one more to look past.
const SHARED_NAMES_AT_MOST: usize = 49;

/// The workspace's file names that two or more files bear, with the files.
fn shared_file_names() -> BTreeMap<String, Vec<String>> {
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in workspace_sources() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if !PLACE_NAMES.contains(&name.as_str()) {
            names
                .entry(name)
                .or_default()
                .push(file.display().to_string());
        }
    }
    names.retain(|_, files| files.len() > 1);
    names
}

#[test]
fn file_names_name_one_thing() {
    let shared = shared_file_names();
    let listed = |names: &mut dyn Iterator<Item = (&String, &Vec<String>)>| {
        names
            .map(|(name, files)| format!("{name}: {}", files.join(", ")))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut one_each = shared
        .iter()
        .filter(|(name, _)| ONE_FILE_EACH.contains(&name.as_str()));
    let named = listed(&mut one_each);
    assert!(
        named.is_empty(),
        "names that must name one file each:\n{named}"
    );
    assert!(
        shared.len() <= SHARED_NAMES_AT_MOST,
        "{} file names are shared, more than {SHARED_NAMES_AT_MOST}:\n{}",
        shared.len(),
        listed(&mut shared.iter())
    );
}
