//! What the user sees: tables, charts, progress. The libraries compute; this module shows.

pub mod bar;
pub mod campaign;
pub mod chart;
pub mod comparison;
pub mod fences;
pub mod heat_map;
pub mod litmus;
pub mod mutants;
pub mod numbers;
pub mod profile;
pub mod progress_report;
pub mod replay;
pub mod style;
pub mod summary;
pub mod termination;

#[cfg(test)]
mod table_snapshots;
