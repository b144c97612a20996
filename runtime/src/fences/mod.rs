//! The fence search on a device: the search itself is `wgstress_fences`' (no device); here
//! are its `Lab` on a GPU (`gpu::GpuLab`, which builds the engines of the fixes it may try
//! next on other threads, `ahead`), and the bridge between a spec's `App` and the parts the
//! search patches (`parts`).

mod ahead;
pub mod gpu;
pub mod parts;
