//! Which functions return a value that is the same in every invocation of a workgroup, and
//! which of their arguments that depends on: `fn per_group(groups: u32) -> u32 { return
//! arrayLength(&a) / groups; }` is uniform when `groups` is, and a function that returns
//! `workgroupUniformLoad(&p)` always is. Tint follows function results the same way; without
//! this, a loop bounded by such a result is non-uniform to the fence search and no site goes
//! inside it (ct-octree's work-stealing loop, whose fixed variant fences inside it).
//!
//! Conservative: a function qualifies only when every `return` sits outside branches and
//! loops (every invocation returns at the same point), and its locals count as non-uniform.

pub use super::calls::Results;
use super::uniformity::Uniformity;
use naga::{Block, Expression, Handle, Module, Statement};
#[cfg(test)]
use std::collections::HashMap;

/// The summary of every function of `module` that qualifies. Callees come before their
/// callers in naga's arena, so a caller's summary sees its callees'.
pub fn results(module: &Module) -> Results {
    let mut results = Results::new();
    for (handle, function) in module.functions.iter() {
        if function.result.is_none() {
            continue;
        }
        let Some(values) = top_level_returns(&function.body) else {
            continue;
        };
        let n = function.arguments.len();
        let mut uniformity = Uniformity::new(module, function, &results);
        uniformity.non_uniform_locals = function.local_variables.iter().map(|(h, _)| h).collect();
        let mut uniform_with = |arguments: Vec<bool>| {
            uniformity.uniform_arguments = arguments;
            values.iter().all(|v| uniformity.is_uniform(*v))
        };
        if !uniform_with(vec![true; n]) {
            continue;
        }
        // `is_uniform` is a conjunction over what a value derives from: the result depends on
        // exactly the arguments without which it is not uniform.
        let depends_on: Vec<usize> = (0..n)
            .filter(|&i| {
                let mut arguments = vec![true; n];
                arguments[i] = false;
                !uniform_with(arguments)
            })
            .collect();
        results.insert(handle, depends_on);
    }
    results
}

/// The values of the function's returns when every one is outside branches and loops.
fn top_level_returns(body: &Block) -> Option<Vec<Handle<Expression>>> {
    let mut values = Vec::new();
    for statement in body.iter() {
        match statement {
            Statement::Return { value: Some(value) } => values.push(*value),
            Statement::Return { value: None } => return None,
            Statement::Block(block) => values.extend(top_level_returns(block)?),
            nested => {
                let mut returns = false;
                crate::walk::nested_blocks_ref(nested, |inner| returns |= has_return(inner));
                if returns {
                    return None;
                }
            }
        }
    }
    Some(values)
}

fn has_return(block: &Block) -> bool {
    crate::walk::any_statement(block, &|statement| {
        matches!(statement, Statement::Return { .. } | Statement::Kill)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(source: &str) -> HashMap<String, Vec<usize>> {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        results(&module)
            .into_iter()
            .map(|(h, deps)| (module.functions[h].name.clone().unwrap(), deps))
            .collect()
    }

    #[test]
    fn results_depend_on_the_arguments_they_derive_from() {
        let found = summary(
            "@group(0) @binding(0) var<storage, read_write> a: array<u32>;
            var<workgroup> shared_v: u32;
            fn per(groups: u32, lid: u32) -> u32 { return arrayLength(&a) / groups; }
            fn both(x: u32, y: u32) -> u32 { return x + y; }
            fn broadcast(lid: u32) -> u32 {
                if lid == 0u { shared_v = a[0]; }
                return workgroupUniformLoad(&shared_v);
            }
            fn nested(lid: u32) -> u32 { return per(lid, 0u) + broadcast(lid); }
            fn loaded(i: u32) -> u32 { return a[i]; }
            fn early(x: u32) -> u32 { if x == 0u { return 1u; } return x; }
            fn local(x: u32) -> u32 { var v = x; return v; }
            @compute @workgroup_size(1) fn main() {}",
        );
        assert_eq!(found["per"], [0]);
        assert_eq!(found["both"], [0, 1]);
        assert_eq!(found["broadcast"], Vec::<usize>::new());
        assert_eq!(found["nested"], [0]);
        for never in ["loaded", "early", "local"] {
            assert!(!found.contains_key(never), "{never}: {found:?}");
        }
    }
}
