//! An application's shaders, instrumented: one unit per dispatch of a run, and one for a
//! postcondition in a file of its own. All units put wgstress's bindings in the same bind
//! group (the lowest none of the shaders uses), so that one pipeline layout serves them all.
//!
//! Every unit has its own results block in a run (its manifest's sites are its own); a
//! postcondition in the last dispatch's file records into that dispatch's block.

use crate::app::spec::{App, Dispatch};
use crate::error::Result;
use wgstress_instrument::{EditedShader, InstrumentOptions, Instrumented, Manifest};

/// A dispatch's shader, instrumented for its entry point, with the user's shader for raw runs.
pub(crate) struct Unit {
    pub inst: Instrumented,
    pub path: String,
    pub user: UserShader,
}

/// The shader a raw run runs: the user's text, or a fence search's edit of it.
pub(crate) enum UserShader {
    Text(String),
    /// Rendered only if a raw run asks for it.
    Edited(Box<EditedShader>),
}

impl UserShader {
    /// The WGSL text of the shader.
    pub(crate) fn text(&self) -> Result<String> {
        match self {
            UserShader::Text(text) => Ok(text.clone()),
            UserShader::Edited(edited) => {
                let info = wgstress_instrument::validate(&edited.module).map_err(|e| {
                    wgstress_instrument::InstrumentError::Internal(format!("{e:?}"))
                })?;
                Ok(wgstress_instrument::render(
                    &edited.module,
                    &info,
                    Some(&edited.source),
                )?)
            }
        }
    }
}

pub(crate) struct Program {
    pub dispatches: Vec<Dispatch>,
    /// One per dispatch.
    pub units: Vec<Unit>,
    /// The postcondition's own file, instrumented for it alone.
    pub check: Option<Unit>,
    /// The device features the shaders need.
    pub features: wgpu::Features,
}

impl Program {
    /// `parking`: whether runs may hold a workgroup back inside a loop (`InstrumentOptions::parking`);
    /// `scripting`: whether they may also follow a script (`EngineConfig::scripts`);
    /// `hold_writes`: whether, parking, after each write (`InstrumentOptions::hold_writes`).
    /// `start_order`: whether ids can be given in start order (`InstrumentOptions::start_order`).
    /// `edited`: shaders a fence search edited, which their dispatches run instead of the
    /// app's text.
    pub(crate) fn build(
        app: &App,
        parking: bool,
        scripting: bool,
        hold_writes: bool,
        start_order: bool,
        edited: &[EditedShader],
    ) -> Result<Program> {
        let dispatches = app.dispatches();
        let mut plans: Vec<Plan> = Vec::new();
        let last = dispatches.len() - 1;
        for (index, dispatch) in dispatches.iter().enumerate() {
            let (path, source) = app.shader_of(dispatch);
            let postcondition = (index == last && app.postcondition_shader.is_none())
                .then(|| app.postcondition.clone())
                .flatten();
            let options = InstrumentOptions {
                entry: dispatch.entry.clone(),
                postcondition,
                file_name: Some(path.to_string()),
                constants: app.constants.clone(),
                parking,
                scripting,
                hold_writes,
                start_order,
                ..Default::default()
            };
            // Only stressed dispatches are a search's parts, as only they are patched in the
            // fix it reports (`AppSource::with_parts`).
            let user = match edited
                .iter()
                .find(|e| dispatch.stress && e.path == path && e.entry == dispatch.entry)
            {
                Some(edit) => UserShader::Edited(Box::new(edit.clone())),
                None => UserShader::Text(source.to_string()),
            };
            plans.push(Plan {
                options,
                path: path.to_string(),
                user,
            });
        }
        if let Some(shader) = &app.postcondition_shader {
            let options = InstrumentOptions {
                postcondition: app.postcondition.clone(),
                file_name: Some(shader.path.clone()),
                constants: app.constants.clone(),
                postcondition_only: true,
                ..Default::default()
            };
            plans.push(Plan {
                options,
                path: shader.path.clone(),
                user: UserShader::Text(shader.source.clone()),
            });
        }
        let mut units = instrument_all(&plans, None)?;
        // Each shader picked the lowest group it leaves free; they must agree.
        let group = common_group(&units);
        if units.iter().any(|u| u.inst.manifest.bind_group != group) {
            units = instrument_all(&plans, Some(group))?;
        }
        let features = units
            .iter()
            .map(|u| crate::gpu::features::required(&u.inst.module))
            .fold(wgpu::Features::empty(), |all, f| all | f);
        let check = app
            .postcondition_shader
            .is_some()
            .then(|| units.pop())
            .flatten();
        Ok(Program {
            dispatches,
            units,
            check,
            features,
        })
    }

    /// The manifest of each results block of a run, in order: the dispatches', then the
    /// postcondition's own file's.
    pub(crate) fn manifests(&self) -> Vec<&Manifest> {
        self.units
            .iter()
            .chain(&self.check)
            .map(|u| &u.inst.manifest)
            .collect()
    }

    /// The unit whose module holds the postcondition, and its results block, if any.
    pub(crate) fn postcondition(&self) -> Option<(&Unit, usize)> {
        match &self.check {
            Some(unit) => Some((unit, self.units.len())),
            None => {
                let last = self.units.last()?;
                last.inst
                    .manifest
                    .postcondition
                    .as_ref()
                    .map(|_| (last, self.units.len() - 1))
            }
        }
    }

    /// Results blocks a run has.
    pub(crate) fn blocks(&self) -> usize {
        self.units.len() + usize::from(self.check.is_some())
    }
}

/// What a unit is instrumented from.
struct Plan {
    options: InstrumentOptions,
    path: String,
    user: UserShader,
}

fn instrument_all(plans: &[Plan], group: Option<u32>) -> Result<Vec<Unit>> {
    plans
        .iter()
        .map(|plan| {
            let options = InstrumentOptions {
                bind_group: group,
                ..plan.options.clone()
            };
            let (inst, user) = match &plan.user {
                UserShader::Text(source) => (
                    wgstress_instrument::instrument_wgsl(source, &options)?,
                    UserShader::Text(source.clone()),
                ),
                UserShader::Edited(edit) => (
                    wgstress_instrument::instrument_edited(
                        edit.module.clone(),
                        &edit.source,
                        &options,
                    )?,
                    UserShader::Edited(edit.clone()),
                ),
            };
            Ok(Unit {
                inst,
                path: plan.path.clone(),
                user,
            })
        })
        .collect()
}

/// The lowest bind group no unit's own shader uses (wgstress's group in a unit is free in
/// that unit's shader by construction).
fn common_group(units: &[Unit]) -> u32 {
    let used: Vec<u32> = units
        .iter()
        .flat_map(|u| {
            let own = u.inst.manifest.bind_group;
            wgstress_instrument::used_bind_groups(&u.inst.module)
                .into_iter()
                .filter(move |g| *g != own)
        })
        .collect();
    (0..wgstress_instrument::MAX_BIND_GROUPS)
        .find(|g| !used.contains(g))
        .unwrap_or(wgstress_instrument::MAX_BIND_GROUPS)
}
