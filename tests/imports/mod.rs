//! Which source file of a crate imports which: the graph the layering test searches for
//! cycles. A crate's modules are read from its root (`mod name;` and `mod name { ... }`,
//! an inline module counting as its file); every `use` and every path that starts with
//! `crate::`, `super::` or `self::` (in code, types and macro arguments) is resolved to the
//! file that defines the name it reaches, through re-exports. Test modules (`mod tests`,
//! `#[cfg(test)]`) are left out: a test module that imports its parent is no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The files of one crate and the names each takes from the others.
pub struct Graph {
    pub files: Vec<PathBuf>,
    /// (importer, imported) -> the names imported.
    pub edges: BTreeMap<(usize, usize), BTreeSet<String>>,
}

/// One module: its file and what it defines and imports.
struct Module {
    file: usize,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Items defined here (functions, types, constants, macros...).
    defined: BTreeSet<String>,
    /// Names brought in by `use`: name -> the path it stands for.
    aliases: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    /// The paths this module uses.
    paths: Vec<Vec<String>>,
}

/// Reads the crate whose root file is `root` (its lib.rs or main.rs).
pub fn read_crate(root: &Path) -> Graph {
    let mut reader = Reader {
        files: Vec::new(),
        modules: Vec::new(),
    };
    let root_file = reader.file(root);
    let text = std::fs::read_to_string(root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let dir = root.parent().unwrap().to_path_buf();
    reader.module(None, root_file, &parsed.items, &dir);
    reader.graph()
}

struct Reader {
    files: Vec<PathBuf>,
    modules: Vec<Module>,
}

/// Whether an item is compiled for tests only.
fn is_test(item: &syn::Item) -> bool {
    let named_tests = matches!(item, syn::Item::Mod(m) if m.ident == "tests");
    named_tests
        || item_attrs(item).iter().any(|a| {
            a.path().is_ident("cfg")
                && a.parse_args::<syn::Meta>()
                    .is_ok_and(|m| m.path().is_ident("test"))
        })
}

impl Reader {
    fn file(&mut self, path: &Path) -> usize {
        self.files.push(path.to_path_buf());
        self.files.len() - 1
    }

    /// Adds the module made of `items`, in `file`, whose child files live in `dir`.
    fn module(
        &mut self,
        parent: Option<usize>,
        file: usize,
        items: &[syn::Item],
        dir: &Path,
    ) -> usize {
        let index = self.modules.len();
        self.modules.push(Module {
            file,
            parent,
            children: BTreeMap::new(),
            defined: BTreeSet::new(),
            aliases: BTreeMap::new(),
            globs: Vec::new(),
            paths: Vec::new(),
        });
        let mut paths = Paths::default();
        for item in items {
            if is_test(item) {
                continue;
            }
            if let syn::Item::Mod(m) = item {
                let name = m.ident.to_string();
                let child = match &m.content {
                    Some((_, inner)) => self.module(Some(index), file, inner, &dir.join(&name)),
                    None => self.file_module(index, &name, dir),
                };
                self.modules[index].children.insert(name, child);
                continue;
            }
            if let syn::Item::Use(u) = item {
                let m = &mut self.modules[index];
                for (name, path) in imported(&u.tree) {
                    match name {
                        Some(name) => _ = m.aliases.insert(name, path.clone()),
                        None => m.globs.push(path.clone()),
                    }
                    m.paths.push(path);
                }
                continue;
            }
            if let Some(name) = defined_name(item) {
                self.modules[index].defined.insert(name);
            }
            paths.visit_item(item);
        }
        self.modules[index].paths.extend(paths.found);
        index
    }

    /// The module `name` declared in a file whose children live in `dir`.
    fn file_module(&mut self, parent: usize, name: &str, dir: &Path) -> usize {
        let candidates = [
            dir.join(format!("{name}.rs")),
            dir.join(name).join("mod.rs"),
        ];
        let path = candidates
            .iter()
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("no file for module `{name}` in {}", dir.display()))
            .clone();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = self.file(&path);
        self.module(Some(parent), file, &parsed.items, &dir.join(name))
    }

    /// The module a path's first segment starts from in `module`, and the segments left.
    fn start<'p>(&self, module: usize, path: &'p [String]) -> Option<(usize, &'p [String])> {
        let (first, rest) = path.split_first()?;
        match first.as_str() {
            "crate" => Some((0, rest)),
            "self" => Some((module, rest)),
            "super" => {
                let mut at = self.modules[module].parent?;
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                Some((at, rest))
            }
            _ => self.modules[module]
                .children
                .get(first)
                .map(|&child| (child, rest)),
        }
    }

    /// The module whose file defines what `path`, used in `module`, names; `None` for paths
    /// outside the crate.
    fn resolve(&self, module: usize, path: &[String], depth: usize) -> Option<usize> {
        let (at, rest) = self.start(module, path)?;
        Some(self.walk(at, rest, depth))
    }

    /// The module whose file defines what `rest` names inside module `at`: down its
    /// children, through its `use` names and globs to the file that defines the name.
    fn walk(&self, mut at: usize, mut rest: &[String], depth: usize) -> usize {
        while let Some((segment, after)) = rest.split_first() {
            let m = &self.modules[at];
            if let Some(&child) = m.children.get(segment) {
                (at, rest) = (child, after);
                continue;
            }
            if m.defined.contains(segment) || depth > 16 {
                return at;
            }
            if let Some(target) = m.aliases.get(segment) {
                let through = [target.as_slice(), after].concat();
                // A name of another crate: this file's own business.
                return self.resolve(at, &through, depth + 1).unwrap_or(at);
            }
            // Brought in by a glob of a module of this crate that has it.
            let from_glob = m.globs.iter().find_map(|glob| {
                let (start, inside) = self.start(at, glob)?;
                let module = self.walk(start, inside, depth + 1);
                let g = &self.modules[module];
                let has = g.defined.contains(segment)
                    || g.aliases.contains_key(segment)
                    || g.children.contains_key(segment);
                has.then(|| self.walk(module, rest, depth + 1))
            });
            return from_glob.unwrap_or(at);
        }
        at
    }

    fn graph(self) -> Graph {
        let mut edges: BTreeMap<(usize, usize), BTreeSet<String>> = BTreeMap::new();
        for (index, m) in self.modules.iter().enumerate() {
            for path in &m.paths {
                let Some(target) = self.resolve(index, path, 0) else {
                    continue;
                };
                let to = self.modules[target].file;
                if to != m.file {
                    let name = path.last().cloned().unwrap_or_default();
                    edges.entry((m.file, to)).or_default().insert(name);
                }
            }
        }
        Graph {
            files: self.files,
            edges,
        }
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module, if it defines one.
fn defined_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The crate-relative paths an item uses outside its `use` declarations.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl Paths {
    fn relative(first: &str) -> bool {
        matches!(first, "crate" | "super" | "self")
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if path.leading_colon.is_none() && segments.len() > 1 && Self::relative(&segments[0]) {
            self.found.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    /// A `use` inside a function: its paths count, its names stay inside.
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.found
            .extend(imported(&u.tree).into_iter().map(|(_, path)| path));
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // Modules are read as modules of their own.
    }

    /// Macro arguments are tokens: `crate::a::b` sequences in them count as paths.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.found.extend(token_paths(mac.tokens.clone()));
        syn::visit::visit_macro(self, mac);
    }

    /// So are an attribute's (`#[error("...", max = crate::a::MAX)]`).
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if let syn::Meta::List(list) = &attr.meta {
            self.found.extend(token_paths(list.tokens.clone()));
        }
        syn::visit::visit_attribute(self, attr);
    }
}

/// The `crate::`, `super::` and `self::` paths in a token stream.
fn token_paths(stream: proc_macro2::TokenStream) -> Vec<Vec<String>> {
    use proc_macro2::TokenTree;
    let tokens = flatten(stream);
    let colons = |j: usize| {
        matches!(
            (tokens.get(j + 1), tokens.get(j + 2)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && b.as_char() == ':'
        )
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let mut path = Vec::new();
        let mut j = i;
        while let Some(TokenTree::Ident(ident)) = tokens.get(j) {
            path.push(ident.to_string());
            if !colons(j) {
                break;
            }
            j += 3;
        }
        if path.len() > 1 && Paths::relative(&path[0]) {
            found.push(path);
        }
        i = j.max(i) + 1;
    }
    found
}

/// What a `use` tree brings in: each name with the path it stands for, and each glob's
/// module path (with no name).
fn imported(tree: &syn::UseTree) -> Vec<(Option<String>, Vec<String>)> {
    fn walk(
        tree: &syn::UseTree,
        prefix: &mut Vec<String>,
        out: &mut Vec<(Option<String>, Vec<String>)>,
    ) {
        let path = |last: &syn::Ident| [prefix.clone(), vec![last.to_string()]].concat();
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            // `use a::b::{self}` names `b`.
            syn::UseTree::Name(n) if n.ident == "self" => {
                out.push((prefix.last().cloned(), prefix.clone()));
            }
            syn::UseTree::Name(n) => out.push((Some(n.ident.to_string()), path(&n.ident))),
            syn::UseTree::Rename(r) => out.push((Some(r.rename.to_string()), path(&r.ident))),
            syn::UseTree::Glob(_) => out.push((None, prefix.clone())),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    walk(tree, prefix, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// The tokens of a stream with its groups opened.
fn flatten(stream: proc_macro2::TokenStream) -> Vec<proc_macro2::TokenTree> {
    let mut out = Vec::new();
    for token in stream {
        match token {
            proc_macro2::TokenTree::Group(g) => out.extend(flatten(g.stream())),
            other => out.push(other),
        }
    }
    out
}

/// Files that import each other, directly or through others.
#[derive(Debug)]
pub struct Cycle {
    /// Every file of the strongly connected component, sorted.
    pub files: Vec<String>,
    /// One cycle through it, with the names each file takes from the next:
    /// "a.rs -> b.rs (X, Y) -> a.rs (Z)".
    pub named: String,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", self.named)?;
        let shown = self.named.matches(" -> ").count();
        if self.files.len() > shown {
            write!(f, " (the circle holds {})", self.files.join(", "))?;
        }
        Ok(())
    }
}

impl Graph {
    /// Every cycle of files, one per strongly connected component, paths relative to `root`.
    pub fn cycles(&self, root: &Path) -> Vec<Cycle> {
        let n = self.files.len();
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(from, to) in self.edges.keys() {
            next[from].push(to);
        }
        let name = |i: usize| {
            let path = &self.files[i];
            path.strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        components(&next)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|component| {
                let cycle = self.cycle_through(&next, &component);
                let mut files: Vec<String> = component.iter().map(|&i| name(i)).collect();
                files.sort();
                Cycle {
                    files,
                    named: self.describe(&cycle, &name),
                }
            })
            .collect()
    }

    /// Cycles between the siblings of every folder of the crate whose sources are under
    /// `src`: the files and subfolders directly in one folder, a folder standing for every
    /// file under it (and `name.rs` beside `name/` counting as that folder). The folder's own
    /// module file (lib.rs, main.rs, mod.rs) is left out: it declares and re-exports its
    /// children. At the deepest folders this is the file graph's cycles again; above them it
    /// finds folders that climb into each other although no two files do.
    pub fn sibling_cycles(&self, src: &Path) -> Vec<Cycle> {
        let relative: Vec<PathBuf> = self
            .files
            .iter()
            .map(|f| f.strip_prefix(src).unwrap_or(f).to_path_buf())
            .collect();
        let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
        for path in &relative {
            let mut dir = path.parent();
            while let Some(d) = dir {
                folders.insert(d.to_path_buf());
                dir = d.parent();
            }
        }
        let mut out = Vec::new();
        for folder in folders {
            // The sibling under `folder` that holds file i, if it is not the folder's own module.
            let sibling = |i: usize| -> Option<PathBuf> {
                let rest = relative[i].strip_prefix(&folder).ok()?;
                let first = rest.components().next()?.as_os_str().to_str()?.to_string();
                if ["lib.rs", "main.rs", "mod.rs"].contains(&first.as_str()) {
                    return None;
                }
                Some(folder.join(first.strip_suffix(".rs").unwrap_or(&first)))
            };
            let mut names: Vec<PathBuf> = Vec::new();
            let mut edges: BTreeMap<(usize, usize), BTreeSet<String>> = BTreeMap::new();
            let node =
                |p: PathBuf, names: &mut Vec<PathBuf>| match names.iter().position(|n| *n == p) {
                    Some(k) => k,
                    None => {
                        names.push(p);
                        names.len() - 1
                    }
                };
            for (&(from, to), imported) in &self.edges {
                let (Some(a), Some(b)) = (sibling(from), sibling(to)) else {
                    continue;
                };
                if a != b {
                    let (a, b) = (node(a, &mut names), node(b, &mut names));
                    edges
                        .entry((a, b))
                        .or_default()
                        .extend(imported.iter().cloned());
                }
            }
            let siblings = Graph {
                files: names,
                edges,
            };
            out.extend(siblings.cycles(Path::new("")));
        }
        out
    }

    /// A cycle inside `component`: from its first file, the shortest way back to it.
    fn cycle_through(&self, next: &[Vec<usize>], component: &[usize]) -> Vec<usize> {
        let inside: BTreeSet<usize> = component.iter().copied().collect();
        let start = component[0];
        let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(at) = queue.pop_front() {
            for &to in &next[at] {
                if !inside.contains(&to) {
                    continue;
                }
                if to == start {
                    let mut cycle = vec![at];
                    while let Some(&before) = came_from.get(cycle.last().unwrap()) {
                        cycle.push(before);
                    }
                    cycle.reverse();
                    return cycle;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = came_from.entry(to) {
                    e.insert(at);
                    queue.push_back(to);
                }
            }
        }
        unreachable!("a strongly connected component has a cycle through each file")
    }

    fn describe(&self, cycle: &[usize], name: &dyn Fn(usize) -> String) -> String {
        let mut text = name(cycle[0]);
        for (k, &from) in cycle.iter().enumerate() {
            let to = cycle[(k + 1) % cycle.len()];
            let names: Vec<&str> = self.edges[&(from, to)].iter().map(String::as_str).collect();
            text += &format!(" -> {} ({})", name(to), names.join(", "));
        }
        text
    }
}

/// Tarjan's strongly connected components of the graph `next`.
fn components(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.next[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let n = next.len();
    let mut s = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}
