//! The application with a barrier at every candidate site: what `wgstress fences --sites`
//! lists, and what the tests validate with naga and Tint.

use super::module::place;
use super::site::FenceSite;
use crate::error::{InstrumentError, Result};
use crate::options::InstrumentOptions;
use crate::passes::names;
use crate::wgsl::render::render;
use crate::wgsl::shader::validate;

/// The candidate sites of an application, and its source with a barrier at every one.
pub struct Fences {
    pub sites: Vec<FenceSite>,
    /// The application's module with a `storageBarrier()` at every site, as WGSL.
    pub all_fenced_wgsl: String,
}

/// Finds the candidate sites of the application entry point of `source`.
pub fn fences(source: &str, options: &InstrumentOptions) -> Result<Fences> {
    let path = options.file_name.as_deref().unwrap_or("shader.wgsl");
    let mut module = crate::wgsl::shader::parse(source, path)?;
    let info = crate::wgsl::shader::validate_user(&module, Some(source), path)?;
    let mut options = options.clone();
    if options.postcondition.is_none() {
        options.postcondition = crate::wgsl::shader::postcondition_directive(source);
    }
    let entry = names::application_entry(&module, &options)?;
    let (sites, _) = place(&mut module, &info, entry, source, None);
    let info = validate(&module).map_err(|e| InstrumentError::Internal(format!("{e:?}")))?;
    Ok(Fences {
        sites,
        all_fenced_wgsl: render(&module, &info, Some(source))?,
    })
}
