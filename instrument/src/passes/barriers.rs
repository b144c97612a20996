//! Which code must run in uniform control flow: a barrier (and `workgroupUniformLoad`) needs
//! the whole workgroup's, a subgroup operation its subgroup's. Passes that add a branch on a
//! value that differs between invocations (the watchdog's early exit) must not put such code
//! under it, or Tint rejects the shader.

use crate::ir::statement::{Memory, Step};
use naga::{Block, Function, Handle, Module, Statement};

/// What uniformity a piece of code needs, weakest first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Needs {
    /// Nothing: any branch may guard it.
    #[default]
    Nothing,
    /// Subgroup operations: every invocation of the subgroup.
    Subgroup,
    /// Barriers: every invocation of the workgroup.
    Workgroup,
}

/// What each function of a module needs, callees included.
pub(crate) struct FunctionNeeds(Vec<Needs>);

impl FunctionNeeds {
    /// Functions come callees first in naga's arena, so one pass sees every callee's answer.
    pub(crate) fn of_module(module: &Module) -> FunctionNeeds {
        let mut needs = FunctionNeeds(Vec::with_capacity(module.functions.len()));
        for (_, function) in module.functions.iter() {
            let own = needs.of_block(&function.body);
            needs.0.push(own);
        }
        needs
    }

    fn of_function(&self, handle: Handle<Function>) -> Needs {
        self.0.get(handle.index()).copied().unwrap_or_default()
    }

    /// What `block` needs, with every statement nested in it.
    pub(crate) fn of_block(&self, block: &Block) -> Needs {
        block
            .iter()
            .map(|s| self.of_statement(s))
            .max()
            .unwrap_or_default()
    }

    /// What `statement` needs, with the statements nested in it.
    fn of_statement(&self, statement: &Statement) -> Needs {
        let mut needs = self.of_itself(statement);
        crate::ir::walk::nested_blocks_ref(statement, |inner| {
            needs = needs.max(self.of_block(inner))
        });
        needs
    }

    /// What `statement` needs itself, apart from the blocks nested in it.
    fn of_itself(&self, statement: &Statement) -> Needs {
        match Step::of(statement) {
            Step::Barrier { control: true, .. } | Step::Memory(Memory::UniformLoad { .. }) => {
                Needs::Workgroup
            }
            Step::Subgroup { .. } => Needs::Subgroup,
            Step::Call { function, .. } => self.of_function(*function),
            Step::Barrier { control: false, .. }
            | Step::Memory(Memory::Store { .. } | Memory::Atomic { .. } | Memory::Texel { .. })
            | Step::Emit(_)
            | Step::Nested(_)
            | Step::Jump(_)
            | Step::Other { .. } => Needs::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs_of_main(source: &str) -> Needs {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let needs = FunctionNeeds::of_module(&module);
        needs.of_block(&module.entry_points[0].function.body)
    }

    #[test]
    fn barriers_in_callees_count() {
        let source = "
            var<workgroup> w: u32;
            fn sync() { workgroupBarrier(); }
            fn plain() { w = 1u; }
            @compute @workgroup_size(8) fn main() { loop { plain(); sync(); break; } }";
        assert_eq!(needs_of_main(source), Needs::Workgroup);
        let free = "
            var<workgroup> w: u32;
            @compute @workgroup_size(8) fn main() { loop { w = 2u; break; } }";
        assert_eq!(needs_of_main(free), Needs::Nothing);
        let uniform_load = "
            var<workgroup> w: u32;
            @compute @workgroup_size(8) fn main() { let x = workgroupUniformLoad(&w); }";
        assert_eq!(needs_of_main(uniform_load), Needs::Workgroup);
    }
}
