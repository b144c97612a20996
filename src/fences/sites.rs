//! `wgstress fences --sites`: the candidate sites of every stressed pass, numbered as the
//! search numbers them; `--all -o FILE`: a single kernel's shader with a barrier at every one.

use crate::notes::emit;
use crate::status::Status;
use anyhow::{Context, Result};
use std::path::Path;
use wgstress_fences::FixSet;
use wgstress_instrument::placement::Side;
use wgstress_runtime::fences::parts::source_of;
use wgstress_runtime::App;

pub fn sites(app: App, list: bool, output: Option<&Path>) -> Result<Status> {
    let shader = source_of(&app)?;
    let sites = shader.tables(&[])?.sites();
    if list {
        let roles = shader.roles()?;
        let mut text = String::new();
        for ((id, site), role) in sites.iter().enumerate().zip(roles) {
            let part = &shader.parts[site.part];
            let s = &site.site;
            let side = match s.side {
                Side::Before => "before",
                Side::After => "after",
            };
            let source = part
                .source
                .lines()
                .nth(s.line as usize - 1)
                .map_or("", str::trim);
            let role = role.map_or(String::new(), |r| format!(" [{r}]"));
            text.push_str(&format!(
                "{}:{}:{}: site {id} {side} (in {}){role}: {source}\n",
                part.path, s.line, s.column, s.function
            ));
        }
        emit(&text)?;
    }
    if let Some(output) = output {
        let all: Vec<usize> = (0..sites.len()).collect();
        let fenced = shader.patch(&FixSet::barriers(&all))?;
        wgstress_runtime::write::replace(output, fenced.parts[0].wgsl.as_bytes())
            .with_context(|| format!("{}", output.display()))?;
    }
    Ok(Status::Passed)
}
