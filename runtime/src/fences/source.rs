//! The application's source, and what the search derives from it without a device: the
//! candidate sites of a fix, the variables make-atomic may rewrite, and the patched shader.

use super::lab::FixSet;
use crate::app::spec::App;
use crate::error::Result;
use wgstress_instrument::atomic::candidates_wgsl;
use wgstress_instrument::fences::{analyse, fenced_at_atomic, Analysis, Patched};

/// A single-kernel application whose shader the search patches.
#[derive(Clone)]
pub struct Shader {
    pub app: App,
}

impl Shader {
    fn options(&self) -> wgstress_instrument::Options {
        wgstress_instrument::Options {
            entry: self.app.entry.clone(),
            postcondition: self.app.postcondition.clone(),
            file_name: Some(self.app.shader_path.clone()),
            ..Default::default()
        }
    }

    /// The source with `fix` applied (and the candidate sites of the module it applies to).
    pub fn patch(&self, fix: &FixSet) -> Result<Patched> {
        let chosen: Vec<u32> = fix.sites.iter().map(|s| *s as u32).collect();
        Ok(fenced_at_atomic(
            &self.app.source,
            &self.options(),
            fix.atomic.as_deref(),
            &chosen,
        )?)
    }

    /// The application with `fix` applied, for an engine.
    pub fn app_with(&self, fix: &FixSet) -> Result<App> {
        let patched = self.patch(fix)?;
        Ok(App {
            source: patched.wgsl,
            postcondition: patched.postcondition,
            ..self.app.clone()
        })
    }

    /// What a fix means in the user's text: the candidate sites (with `atomic` made atomic
    /// first, if given), their roles and counterparts, and source patches.
    pub fn analyse(&self, atomic: Option<&str>) -> Result<Analysis> {
        Ok(analyse(&self.app.source, &self.options(), atomic)?)
    }

    /// The variables make-atomic may rewrite, in declaration order (the plain read_write
    /// storage integers, and arrays and structs of them, that an entry point accesses).
    pub fn atomic_candidates(&self) -> Result<Vec<String>> {
        let found = candidates_wgsl(&self.app.source, &self.app.shader_path)?;
        Ok(found.into_iter().map(|c| c.name).collect())
    }
}
