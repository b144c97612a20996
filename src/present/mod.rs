//! What more than one command shows: the progress bar, numbers and counts, the colours'
//! meanings, the options that replay a run. Each command's own tables and reports are in its
//! folder.

pub mod bar;
pub mod numbers;
pub mod replay;
pub mod style;

#[cfg(test)]
mod table_snapshots;
