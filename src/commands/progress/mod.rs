//! `wgstress progress`: forward progress. With an application, runs it under each progress
//! model and occupancy bound and says which it needs (app.rs).

mod app;

pub use app::{execute, plan, Args, ModelResult, Report};
