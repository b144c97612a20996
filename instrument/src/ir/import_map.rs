//! Where an import (import.rs) put each item of the source module in the target module: the
//! importer fills it, and the handle rewriting (remap.rs) and the instrumenter read it.

use naga::{Constant, Expression, Function, GlobalVariable, Handle, Override, Type};
use std::collections::HashMap;

/// Where the imported items landed in the target module.
#[derive(Default)]
pub(crate) struct ImportMap {
    pub(crate) types: HashMap<Handle<Type>, Handle<Type>>,
    pub(crate) constants: HashMap<Handle<Constant>, Handle<Constant>>,
    pub(crate) overrides: HashMap<Handle<Override>, Handle<Override>>,
    pub(crate) global_expressions: HashMap<Handle<Expression>, Handle<Expression>>,
    pub(crate) globals: HashMap<Handle<GlobalVariable>, Handle<GlobalVariable>>,
    pub(crate) functions: HashMap<Handle<Function>, Handle<Function>>,
    pub(crate) global_names: HashMap<String, Handle<GlobalVariable>>,
    pub(crate) function_names: HashMap<String, Handle<Function>>,
}

impl ImportMap {
    /// The imported global named `name`. Used for the library, which is ours: a missing
    /// name is a bug.
    pub(crate) fn global(&self, name: &str) -> Handle<GlobalVariable> {
        *self
            .global_names
            .get(name)
            .unwrap_or_else(|| panic!("library has no global {name}"))
    }

    /// The imported function named `name` (library functions).
    pub(crate) fn function(&self, name: &str) -> Handle<Function> {
        *self
            .function_names
            .get(name)
            .unwrap_or_else(|| panic!("library has no function {name}"))
    }

    /// Where the source module's function `handle` went.
    pub(crate) fn function_handle(&self, handle: Handle<Function>) -> Handle<Function> {
        self.functions[&handle]
    }

    pub(crate) fn ty(&self, handle: Handle<Type>) -> Handle<Type> {
        self.types[&handle]
    }

    pub(crate) fn constant(&self, handle: Handle<Constant>) -> Handle<Constant> {
        self.constants[&handle]
    }

    pub(crate) fn override_(&self, handle: Handle<Override>) -> Handle<Override> {
        self.overrides[&handle]
    }

    pub(crate) fn global_handle(&self, handle: Handle<GlobalVariable>) -> Handle<GlobalVariable> {
        self.globals[&handle]
    }

    /// The imported functions, in their new arena order.
    pub(crate) fn imported_functions(&self) -> Vec<Handle<Function>> {
        let mut all: Vec<_> = self.functions.values().copied().collect();
        all.sort_by_key(|h| h.index());
        all
    }
}
