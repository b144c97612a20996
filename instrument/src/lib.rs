//! wgstress-instrument: a naga pass that turns a WGSL compute application into one that runs
//! under memory stress, reports assertion and postcondition violations, and cannot hang.
//!
//! ```
//! let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
//! @compute @workgroup_size(64)
//! fn main(@builtin(global_invocation_id) id: vec3<u32>) { out[id.x] = id.x; }";
//! let result = wgstress_instrument::instrument_wgsl(source, &Default::default()).unwrap();
//! assert_eq!(result.manifest.entry_point.name, "main");
//! assert_eq!(result.manifest.bind_group, 1);
//! ```
//!
//! The source is grouped by job:
//! - `lib.rs`, `error.rs`, `options.rs`, `manifest.rs`, `stress.rs` (with `library.wgsl`):
//!   the crate's interface, what it is asked and what it returns; `work.rs`, the count of
//!   parses, placements and analyses a thread has done (the fence search's tests hold it).
//! - `passes/`: the steps of instrumentation over the user's module (overrides, pointer
//!   specialization, name checks, assertion hooks, the loop watchdog, entry-point wrappers).
//! - `ir/`: plumbing over naga's IR that the passes share (building, importing, remapping,
//!   reordering and walking).
//! - `wgsl/`: WGSL source text (parsing, directives, nesting, locating, outlining, rendering).
//! - `placement/`: where a storage barrier may go (candidate fence sites, their roles, the
//!   shader with barriers at a chosen set, and the same edits as patches of the source).
//! - `atomic/`: make-atomic, the rewrite of a plain storage variable into an atomic one.

#![deny(unreachable_pub)]

pub mod atomic;
mod edited;
mod error;
mod ir;
pub mod manifest;
mod options;
mod passes;
pub mod placement;
pub mod stress;
mod wgsl;
mod work;

pub use edited::EditedShader;
pub use error::{InstrumentError, ShaderLocation};
pub use manifest::Manifest;
pub use options::InstrumentOptions;
pub use passes::overrides::constants_for;
pub use stress::library_source;
pub use wgsl::nesting::{check as check_nesting, MAX_BRACKETS, MAX_NESTING};
pub use wgsl::render::{raw_wgsl, render, Raw};
pub use wgsl::shader::{read_module, validate, validate_user};
pub use work::Work;

use error::Result;
use ir::import;
use ir::pointers;
use passes::{barriers, entry, holds, hooks, loop_state, names, overrides, sites, watchdog};
use wgsl::{directives, locate, render};

use naga::valid::ModuleInfo;
use naga::Module;
use wgsl::shader::{parse, postcondition_directive};

/// Bind groups a WebGPU device is guaranteed to offer (`maxBindGroups`).
pub const MAX_BIND_GROUPS: u32 = 4;

/// An instrumented application.
pub struct Instrumented {
    pub module: Module,
    pub info: ModuleInfo,
    pub wgsl: String,
    pub manifest: Manifest,
    /// naga's rendering of the module before instrumentation, for diffs.
    pub original_wgsl: String,
}

impl Instrumented {
    /// A unified diff from naga's rendering of the original to the instrumented WGSL.
    pub fn diff(&self) -> String {
        similar::TextDiff::from_lines(&self.original_wgsl, &self.wgsl)
            .unified_diff()
            .context_radius(3)
            .header("original", "instrumented")
            .to_string()
    }
}

/// Parses, validates and instruments WGSL source.
pub fn instrument_wgsl(source: &str, options: &InstrumentOptions) -> Result<Instrumented> {
    let path = options.file_name.as_deref().unwrap_or("shader.wgsl");
    let module = parse(source, path)?;
    let mut options = options.clone();
    if options.postcondition.is_none() {
        options.postcondition = postcondition_directive(source);
    }
    instrument(module, Some(source), &options)
}

/// `wgsl` as wgpu (which parses WGSL with naga 30) takes it: the directives naga refuses,
/// such as `enable subgroups;`, blanked out; every other byte, and so every line and column,
/// as it was. For any shader handed to wgpu, the user's or one wgstress wrote.
pub fn for_wgpu(wgsl: &str) -> std::borrow::Cow<'_, str> {
    directives::for_naga(wgsl)
}

/// Instruments a module a Rust application built or parsed itself. Without source text the
/// manifest's sites carry no line numbers.
pub fn instrument_module(mut module: Module, options: &InstrumentOptions) -> Result<Instrumented> {
    pointers::specialize(&mut module);
    instrument(module, None, options)
}

/// Instruments `module`, parsed from `source` and edited since (a fence search's trial: its
/// barriers placed, variables made atomic, by `placement::SiteTable::edited`): its spans
/// still point into `source`, so the manifest's sites carry the user's lines, and no text is
/// written or parsed again.
pub fn instrument_edited(
    module: Module,
    source: &str,
    options: &InstrumentOptions,
) -> Result<Instrumented> {
    let mut options = options.clone();
    if options.postcondition.is_none() {
        options.postcondition = postcondition_directive(source);
    }
    instrument(module, Some(source), &options)
}

/// Instruments `module`, parsed from `source` when there is one.
fn instrument(
    module: Module,
    source: Option<&str>,
    options: &InstrumentOptions,
) -> Result<Instrumented> {
    let path = options.file_name.as_deref().unwrap_or("shader.wgsl");
    let info = validate_user(&module, source, path)?;
    let (mut module, info) = overrides::resolve(module, info, &options.constants, path)?;
    let original_wgsl = render(&module, &info, source)?;
    let locator = locate::Locator::new(path, source);
    names::check_reserved(&module, &locator)?;
    let (entry, postcondition) = if options.postcondition_only {
        let check = names::postcondition_only(&module, options)?;
        (check, None)
    } else {
        let entry = names::application_entry(&module, options)?;
        (entry, names::postcondition_entry(&module, options, entry)?)
    };
    let group = match options.bind_group {
        Some(group) => taken_check(&module, group)?,
        None => free_bind_group(&module)?,
    };
    let assert_hook = names::assert_hook(&module, &locator)?;
    if let Some((what, span)) = import::unsupported(&module) {
        return Err(InstrumentError::Unsupported {
            what,
            at: locator.at(span),
        });
    }

    // The library goes first: user functions call it, and callees must precede callers.
    let library = naga::front::wgsl::parse_str(&library_source(
        options.parking,
        options.scripting,
        options.start_order,
    ))
    .expect("the wgstress library parses");
    let user = std::mem::take(&mut module);
    let imported = import::import_module(&mut module, &library);
    let user_map = import::import_module(&mut module, &user);
    // The importer leaves diagnostic filters behind; the written shader must carry them.
    module.diagnostic_filters = user.diagnostic_filters.clone();
    let assert_hook = assert_hook.map(|h| user_map.function_handle(h));
    let user_functions = user_map.imported_functions();
    for name in ["wgstress_params", "wgstress_results", "wgstress_scratch"] {
        let var = &mut module.global_variables[imported.global(name)];
        if let Some(binding) = &mut var.binding {
            binding.group = group;
        }
    }
    let u32_type = module.types.insert(
        naga::Type {
            name: None,
            inner: naga::TypeInner::Scalar(naga::Scalar::U32),
        },
        naga::Span::UNDEFINED,
    );

    let mut hooks = sites::Sites::new(&locator);
    let mut loops = sites::Sites::new(&locator);
    let mut holds = sites::Sites::new(&locator);
    let hold = (options.parking && options.hold_writes).then(|| holds::Holds {
        park: imported.function("wgstress_hold_write"),
    });
    let hook = assert_hook.map(|hook| hooks::AssertHook {
        hook,
        recorder: imported.function("wgstress_assert_at"),
    });
    let watchdog = watchdog::Watchdog {
        check: imported.function("wgstress_watchdog"),
        step: imported.function("wgstress_step"),
        left: imported.function("wgstress_left"),
        stopped: imported.function("wgstress_stopped"),
        stopped_uniform: imported.function("wgstress_stopped_uniform"),
        needs: barriers::FunctionNeeds::of_module(&module),
        u32_type,
    };
    // Typed before any rewrite: the watchdog hashes each loop's state from these.
    let function_types: Vec<_> = user_functions
        .iter()
        .map(|h| loop_state::StateTypes::of(&module, &module.functions[*h]))
        .collect();
    let entry_types: Vec<_> = module
        .entry_points
        .iter()
        .map(|e| loop_state::StateTypes::of(&module, &e.function))
        .collect();
    // Which pointers reach storage is read from the module as it stands before the rewrite.
    let user_globals = hold.as_ref().map(|_| module.clone());
    let mut instrument_function =
        |function: &mut naga::Function, name: &str, types: loop_state::StateTypes| {
            if let Some(hook) = &hook {
                hook.rewrite(function, name, &mut hooks);
            }
            if let (Some(hold), Some(globals)) = (&hold, &user_globals) {
                hold.mark(globals, function, name, &mut holds);
            }
            watchdog.guard_loops(function, name, types, &mut loops);
        };
    for (handle, types) in user_functions.into_iter().zip(function_types) {
        let function = &mut module.functions[handle];
        let name = function.name.clone().unwrap_or_default();
        instrument_function(function, &name, types);
    }
    for (entry_point, types) in module.entry_points.iter_mut().zip(entry_types) {
        instrument_function(&mut entry_point.function, &entry_point.name.clone(), types);
    }

    let lib = entry::Library {
        role: imported.function("wgstress_role"),
        stress: imported.function("wgstress_stress"),
        enter_app: imported.function("wgstress_enter_app"),
        start_order: imported.function("wgstress_in_start_order"),
        start: imported.function("wgstress_start"),
        start_alone: imported.function("wgstress_start_alone"),
        leave_alone: imported.function("wgstress_leave_alone"),
        has_barriers: watchdog
            .needs
            .of_block(&module.entry_points[entry].function.body)
            >= barriers::Needs::Workgroup,
        leave_app: imported.function("wgstress_leave_app"),
        enter_check: imported.function("wgstress_enter_check"),
        params: imported.global("wgstress_params"),
    };
    let entry_role = if options.postcondition_only {
        entry::EntryRole::Postcondition
    } else {
        entry::EntryRole::Application
    };
    entry::wrap(&mut module, entry, entry_role, &lib, &locator)?;
    if let Some(check) = postcondition {
        entry::wrap(
            &mut module,
            check,
            entry::EntryRole::Postcondition,
            &lib,
            &locator,
        )?;
    }

    let info = validate(&module).map_err(|e| InstrumentError::Internal(format!("{e:?}")))?;
    let (wgsl, written_names) = render::render_named(&module, &info, source)?;
    let describe = |index: usize| manifest::EntryPoint {
        name: module.entry_points[index].name.clone(),
        wgsl_name: written_names[index].clone(),
        workgroup_size: module.entry_points[index].workgroup_size,
    };
    let manifest = Manifest {
        format: manifest::FORMAT,
        source: path.to_string(),
        entry_point: describe(entry),
        postcondition: if options.postcondition_only {
            Some(describe(entry))
        } else {
            postcondition.map(describe)
        },
        bind_group: group,
        bindings: manifest::Bindings {
            params: 0,
            results: 1,
            scratch: 2,
        },
        params: layout_of(&module, "WgstressParams"),
        results: layout_of(&module, "WgstressResults"),
        event: layout_of(&module, "WgstressEvent"),
        hooks: hooks.into_vec(),
        loops: loops.into_vec(),
        holds: holds.into_vec(),
    };
    Ok(Instrumented {
        module,
        info,
        wgsl,
        manifest,
        original_wgsl,
    })
}

/// The lowest bind group the shader does not use.
fn free_bind_group(module: &Module) -> Result<u32> {
    let used: Vec<u32> = module
        .global_variables
        .iter()
        .filter_map(|(_, v)| v.binding.as_ref().map(|b| b.group))
        .collect();
    (0..MAX_BIND_GROUPS)
        .find(|g| !used.contains(g))
        .ok_or(InstrumentError::NoFreeBindGroup(MAX_BIND_GROUPS))
}

/// `group` if the shader leaves it free.
fn taken_check(module: &Module, group: u32) -> Result<u32> {
    if group >= MAX_BIND_GROUPS {
        return Err(InstrumentError::NoFreeBindGroup(MAX_BIND_GROUPS));
    }
    let taken = module
        .global_variables
        .iter()
        .any(|(_, v)| v.binding.as_ref().is_some_and(|b| b.group == group));
    if taken {
        return Err(InstrumentError::BindGroupTaken(group));
    }
    Ok(group)
}

/// The bind groups the shader's own resources use.
pub fn used_bind_groups(module: &Module) -> Vec<u32> {
    let mut used: Vec<u32> = module
        .global_variables
        .iter()
        .filter_map(|(_, v)| v.binding.as_ref().map(|b| b.group))
        .collect();
    used.sort();
    used.dedup();
    used
}

/// Field offsets and sizes of the library struct `name`, as naga laid it out.
fn layout_of(module: &Module, name: &str) -> manifest::Layout {
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .expect("library struct");
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        unreachable!("library type {name} is a struct")
    };
    let fields = members
        .iter()
        .map(|m| manifest::Field {
            name: m.name.clone().unwrap_or_default(),
            offset: m.offset,
            size: module.types[m.ty].inner.size(module.to_ctx()),
        })
        .collect();
    manifest::Layout {
        size: *span,
        fields,
    }
}
