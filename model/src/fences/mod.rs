//! The fence search's results as data: what runs and trials measured (`measured`), what a fix costs
//! (`cost`), the patches it suggests (`patch`) and what it found (`outcome`).

pub mod cost;
pub mod measured;
pub mod outcome;
pub mod patch;
