//! WGSL's uniformity analysis, as the specification defines it and Tint implements it, on
//! naga's IR: at every point of every function, whether the control flow there is the same
//! for every invocation of a workgroup, so that a barrier may go there (function.rs for one
//! function, module.rs for the calls between them, behaviors.rs for how statements end).

mod behaviors;
mod dep;
mod function;
mod module;
mod values;

pub(crate) use behaviors::of as behaviors_of;
pub(crate) use dep::{CallInput, Dep};
pub(crate) use function::Positions;
pub(crate) use module::{Context, ModuleUniformity, Target};
