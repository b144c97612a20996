//! Plumbing over naga's IR that the passes share: what each statement is, the one match on
//! naga's `Statement` that every pass reads statements through (statement.rs), building
//! statements with naga's emit discipline (builder.rs), importing one module into another
//! (import.rs, import_map.rs, remap.rs), where a pointer points and whether into writable
//! storage (memory.rs), visiting every expression operand (operands.rs), specializing pointer
//! parameters away so that the module renders as valid WGSL (pointers.rs), moving new
//! expressions before their users (reorder.rs) and walking nested blocks (walk.rs). Nothing
//! here decides what to instrument; it only lets the passes edit a module and keep it valid.

pub(crate) mod builder;
pub(crate) mod import;
pub(crate) mod import_map;
pub(crate) mod memory;
pub(crate) mod operands;
pub(crate) mod pointers;
pub(crate) mod remap;
pub(crate) mod reorder;
pub(crate) mod statement;
pub(crate) mod walk;
