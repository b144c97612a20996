//! The runtime's side of the device boundary (`wgstress_device`): the native adapters wgpu
//! finds here and the one a choice names (`adapters`), and wgpu's device behind the boundary
//! (`native`).

mod adapters;
mod native;

pub use adapters::{
    adapters, by_default, caveat, close_browser, find, open, AdapterChoice, Backend, BrowserRelay,
    Info, NativeChoice,
};
pub(crate) use adapters::{open_with, patiently, reopen};
pub use wgstress_device::commands;
pub use wgstress_device::{describe, on_cpu, Buffer, Device, Gpu, Held};
