//! The points of a shader where a barrier could go, found here independently of the site
//! analysis, for the completeness test (sites_tint.rs): naga's IR of the source, every
//! point between two statements of the application's entry point and of the functions it
//! calls that separates storage accesses, and the documented rule for when a site serves a
//! point (docs/fences.md, "Candidate sites").

use naga::{AddressSpace, Block, Expression, Function, Handle, Module, Statement, TypeInner};
use std::collections::HashSet;
use wgstress_instrument::placement::IrPoint;

/// A function of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    Entry(usize),
    Function(Handle<Function>),
}

pub fn function(module: &Module, which: Which) -> &Function {
    match which {
        Which::Entry(i) => &module.entry_points[i].function,
        Which::Function(h) => &module.functions[h],
    }
}

/// The name `FenceSite::function` gives it.
pub fn name(module: &Module, which: Which) -> String {
    match which {
        Which::Entry(i) => module.entry_points[i].name.clone(),
        Which::Function(h) => module.functions[h].name.clone().unwrap_or_default(),
    }
}

/// The entry point and every function it calls, directly or not.
pub fn reachable(module: &Module, entry: usize) -> Vec<Which> {
    let mut found = vec![Which::Entry(entry)];
    let mut next = 0;
    while next < found.len() {
        let mut calls = Vec::new();
        each(&function(module, found[next]).body, &mut |s| {
            if let Statement::Call { function, .. } = s {
                calls.push(Which::Function(*function));
            }
        });
        for call in calls {
            if !found.contains(&call) {
                found.push(call);
            }
        }
        next += 1;
    }
    found
}

fn each(block: &Block, visit: &mut impl FnMut(&Statement)) {
    for statement in block.iter() {
        visit(statement);
        for inner in children(statement) {
            each(inner, visit);
        }
    }
}

/// The blocks nested in a statement, in the order `IrPoint` paths count them.
pub fn children(statement: &Statement) -> Vec<&Block> {
    match statement {
        Statement::Block(b) => vec![b],
        Statement::If { accept, reject, .. } => vec![accept, reject],
        Statement::Switch { cases, .. } => cases.iter().map(|c| &c.body).collect(),
        Statement::Loop {
            body, continuing, ..
        } => vec![body, continuing],
        _ => Vec::new(),
    }
}

fn children_mut(statement: &mut Statement) -> Vec<&mut Block> {
    match statement {
        Statement::Block(b) => vec![b],
        Statement::If { accept, reject, .. } => vec![accept, reject],
        Statement::Switch { cases, .. } => cases.iter_mut().map(|c| &mut c.body).collect(),
        Statement::Loop {
            body, continuing, ..
        } => vec![body, continuing],
        _ => Vec::new(),
    }
}

/// `module` with a `storageBarrier()` at `point` of `which`.
pub fn with_barrier(module: &Module, which: Which, point: &IrPoint) -> Module {
    let mut module = module.clone();
    let function = match which {
        Which::Entry(i) => &mut module.entry_points[i].function,
        Which::Function(h) => &mut module.functions[h],
    };
    let mut block = &mut function.body;
    for &(index, child) in &point.path {
        let statement = block.get_mut(index).expect("the path leads to a statement");
        block = children_mut(statement).swap_remove(child);
    }
    let mut rebuilt = Block::new();
    for (i, (statement, span)) in std::mem::take(block).span_into_iter().enumerate() {
        if i == point.index {
            rebuilt.push(Statement::ControlBarrier(naga::Barrier::STORAGE), span);
        }
        rebuilt.push(statement, span);
    }
    if point.index == rebuilt.len() {
        rebuilt.push(
            Statement::ControlBarrier(naga::Barrier::STORAGE),
            Default::default(),
        );
    }
    *block = rebuilt;
    module
}

/// What the site analysis orders: storage the dispatch may write.
pub struct Storage<'m> {
    module: &'m Module,
    functions: HashSet<Handle<Function>>,
}

fn writable(space: AddressSpace) -> bool {
    matches!(space, AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE))
}

impl<'m> Storage<'m> {
    pub fn new(module: &'m Module) -> Self {
        let mut storage = Storage {
            module,
            functions: HashSet::new(),
        };
        for (handle, function) in module.functions.iter() {
            let pointer = function.arguments.iter().any(|a| {
                matches!(module.types[a.ty].inner, TypeInner::Pointer { space, .. } if writable(space))
            });
            let mut touches = pointer;
            each(&function.body, &mut |s| {
                touches |= storage.own_access(function, s)
            });
            if touches {
                storage.functions.insert(handle);
            }
        }
        storage
    }

    fn points_into_storage(&self, function: &Function, pointer: Handle<Expression>) -> bool {
        match function.expressions[pointer] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                self.points_into_storage(function, base)
            }
            Expression::GlobalVariable(g) => writable(self.module.global_variables[g].space),
            Expression::FunctionArgument(i) => matches!(
                self.module.types[function.arguments[i as usize].ty].inner,
                TypeInner::Pointer { space, .. } if writable(space)
            ),
            _ => false,
        }
    }

    /// Whether `statement` itself (not what is nested in it) accesses storage.
    fn own_access(&self, function: &Function, statement: &Statement) -> bool {
        match statement {
            Statement::Emit(range) => range.clone().any(|e| {
                matches!(function.expressions[e], Expression::Load { pointer } if self.points_into_storage(function, pointer))
            }),
            Statement::Store { pointer, .. } | Statement::Atomic { pointer, .. } => {
                self.points_into_storage(function, *pointer)
            }
            Statement::Call { function: f, .. } => self.functions.contains(f),
            Statement::ImageStore { .. } | Statement::ImageAtomic { .. } => true,
            _ => false,
        }
    }

    /// Whether `statement` accesses storage, or anything nested in it does.
    pub fn touches(&self, function: &Function, statement: &Statement) -> bool {
        let mut found = false;
        each(&Block::from_vec(vec![statement.clone()]), &mut |s| {
            found |= self.own_access(function, s)
        });
        found
    }
}

/// Whether `statement` may fall through to the statement after it (WGSL's behaviors, as
/// the specification gives them).
fn falls_through(statement: &Statement) -> bool {
    of(statement) & 1 != 0
}

/// Whether control may leave `statement` other than to the statement after it.
fn leaves(statement: &Statement) -> bool {
    of(statement) & !1 != 0
}

/// Bits: 1 next, 2 break, 4 continue, 8 return.
fn of(statement: &Statement) -> u8 {
    match statement {
        Statement::Break => 2,
        Statement::Continue => 4,
        Statement::Return { .. } | Statement::Kill => 8,
        Statement::Block(b) => of_block(b),
        Statement::If { accept, reject, .. } => of_block(accept) | of_block(reject),
        Statement::Switch { cases, .. } => {
            let mut all = 0;
            let mut next = 1;
            for case in cases.iter().rev() {
                let mut own = of_block(&case.body);
                if case.fall_through && own & 1 != 0 {
                    own = (own & !1) | next;
                }
                all |= own;
                next = own;
            }
            if all & 2 != 0 {
                all = (all & !2) | 1;
            }
            all
        }
        Statement::Loop {
            body,
            continuing,
            break_if,
        } => {
            let mut all = of_block(body);
            if all & 5 != 0 && break_if.is_some() && of_block(continuing) & 1 != 0 {
                all |= 2;
            }
            (if all & 2 != 0 { 1 } else { 0 }) | (all & 8)
        }
        _ => 1,
    }
}

fn of_block(block: &Block) -> u8 {
    let mut b = 1;
    for statement in block.iter() {
        if b & 1 == 0 {
            break;
        }
        b = (b & !1) | of(statement);
    }
    b
}

/// The points of a loop's body that belong to its condition: naga lowers `for` and `while`
/// to a body that starts `evaluations; if condition {} else { break; }`.
fn condition_points(body: &Block) -> usize {
    for (i, s) in body.iter().enumerate() {
        match s {
            Statement::Emit(_) => {}
            Statement::If { accept, reject, .. }
                if accept.is_empty()
                    && reject.len() == 1
                    && matches!(reject.first(), Some(Statement::Break)) =>
            {
                return i + 1;
            }
            _ => return 0,
        }
    }
    0
}

/// Every point of `which` that separates storage accesses and is a point of the source.
pub fn boundaries(storage: &Storage, function: &Function) -> Vec<IrPoint> {
    let mut found = Vec::new();
    collect(
        storage,
        function,
        &function.body,
        &mut Vec::new(),
        (false, false),
        0,
        &mut found,
    );
    found
}

fn collect(
    storage: &Storage,
    function: &Function,
    block: &Block,
    path: &mut Vec<(usize, usize)>,
    around: (bool, bool),
    skip: usize,
    found: &mut Vec<IrPoint>,
) {
    let touches: Vec<bool> = block.iter().map(|s| storage.touches(function, s)).collect();
    let mut reached = true;
    for i in 0..=block.len() {
        let before = around.0 || touches[..i].iter().any(|t| *t);
        let after = around.1 || touches[i..].iter().any(|t| *t);
        if reached && i >= skip && before && after {
            found.push(IrPoint {
                path: path.clone(),
                index: i,
            });
        }
        let Some(statement) = block.get(i) else { break };
        if reached && touches[i] {
            let inside = match statement {
                Statement::Loop { .. } => (true, true),
                _ => (before, around.1 || touches[i + 1..].iter().any(|t| *t)),
            };
            for (k, inner) in children(statement).into_iter().enumerate() {
                let skip = match (statement, k) {
                    (Statement::Loop { .. }, 0) => condition_points(inner),
                    // `case 1u, 2u:`, naga's empty case falling through to the next.
                    (Statement::Switch { cases, .. }, _) if cases[k].fall_through => {
                        inner.len() + 1
                    }
                    // A `continuing` block without an access: a `for` loop's update.
                    (Statement::Loop { .. }, _)
                        if !inner.iter().any(|s| storage.touches(function, s)) =>
                    {
                        inner.len() + 1
                    }
                    _ => 0,
                };
                path.push((i, k));
                collect(storage, function, inner, path, inside, skip, found);
                path.pop();
            }
        }
        reached &= falls_through(statement);
    }
}

/// Whether a site at one of `sites` serves the point `at` of `function` by the documented
/// rule: in the same block (a nested `{ }` block counts as part of the one around it), with
/// only statements that touch no storage between, none of which may leave when the site is
/// after the point.
pub fn served(storage: &Storage, function: &Function, sites: &[IrPoint], at: &IrPoint) -> bool {
    let sequence = flat(function, storage, at);
    let position = |p: &IrPoint| {
        sequence
            .iter()
            .position(|item| matches!(item, Item::IrPoint(q) if q == p))
    };
    let here = position(at).unwrap_or_else(|| panic!("{at:?} is not in {sequence:?}"));
    sites.iter().filter_map(position).any(|site| {
        let (from, to) = (site.min(here), site.max(here));
        sequence[from..to].iter().all(|item| match item {
            Item::IrPoint(_) => true,
            Item::Statement { touches, leaves } => !touches && (site < here || !leaves),
        })
    })
}

#[derive(Debug)]
enum Item {
    IrPoint(IrPoint),
    Statement { touches: bool, leaves: bool },
}

/// The points and statements of the block holding `at`, nested `{ }` blocks spread out:
/// the innermost block on the path that is not itself a `{ }` block.
fn flat(function: &Function, storage: &Storage, at: &IrPoint) -> Vec<Item> {
    let mut block = &function.body;
    let mut root = (block, 0);
    for (step, &(index, child)) in at.path.iter().enumerate() {
        let statement = block.get(index).expect("the path leads to a statement");
        block = children(statement)[child];
        if !matches!(statement, Statement::Block(_)) {
            root = (block, step + 1);
        }
    }
    let mut items = Vec::new();
    let mut path = at.path[..root.1].to_vec();
    spread(function, root.0, &mut path, storage, &mut items);
    items
}

fn spread(
    function: &Function,
    block: &Block,
    path: &mut Vec<(usize, usize)>,
    storage: &Storage,
    items: &mut Vec<Item>,
) {
    for i in 0..=block.len() {
        items.push(Item::IrPoint(IrPoint {
            path: path.clone(),
            index: i,
        }));
        let Some(statement) = block.get(i) else { break };
        if let Statement::Block(inner) = statement {
            path.push((i, 0));
            spread(function, inner, path, storage, items);
            path.pop();
        } else {
            items.push(Item::Statement {
                touches: storage.touches(function, statement),
                leaves: leaves(statement),
            });
        }
    }
}
