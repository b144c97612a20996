//! The application with a barrier at every candidate site: what `wgstress fences --sites`
//! lists, and what the tests validate with naga and Tint.

use super::module::place;
use super::site::FenceSite;
use crate::error::{Error, Result};
use crate::names;
use crate::options::Options;
use crate::render::render;
use crate::shader::validate;

/// The candidate sites of an application, and its source with a barrier at every one.
pub struct Fences {
    pub sites: Vec<FenceSite>,
    /// The application's module with a `storageBarrier()` at every site, as WGSL.
    pub all_fenced_wgsl: String,
}

/// Finds the candidate sites of the application entry point of `source`.
pub fn fences(source: &str, options: &Options) -> Result<Fences> {
    let path = options.file_name.as_deref().unwrap_or("shader.wgsl");
    let mut module = crate::shader::parse(source, path)?;
    let info = crate::shader::validate_user(&module, Some(source), path)?;
    let mut options = options.clone();
    if options.postcondition.is_none() {
        options.postcondition = crate::shader::postcondition_directive(source);
    }
    let entry = names::application_entry(&module, &options)?;
    let (sites, _) = place(&mut module, &info, entry, source, None);
    let info = validate(&module).map_err(|e| Error::Internal(format!("{e:?}")))?;
    Ok(Fences {
        sites,
        all_fenced_wgsl: render(&module, &info, Some(source))?,
    })
}
