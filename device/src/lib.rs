//! wgstress-device: a GPU behind one boundary. Everything wgstress does on a device
//! (sessions, reference kernels, litmus and progress runs) goes through `Gpu`, a handle to a
//! `Device`: it makes buffers, layouts, pipelines and bind groups from plain descriptions
//! (`commands`) and runs batches of writes, commands and read-backs. The runtime implements
//! it with wgpu; a browser page implements it in another process, from the same data. Nothing
//! above the boundary names a wgpu object, and nothing here needs a GPU.

#![deny(unreachable_pub)]

pub mod commands;
mod error;

pub use error::{DeviceError, DeviceResult};

use commands::{
    BindGroupDesc, BindGroupId, BufferDesc, BufferId, LayoutDesc, LayoutId, PipelineDesc,
    PipelineId, Resource, Usage, Write,
};
use std::sync::Arc;
use std::time::Duration;

/// What a session needs of a GPU. Each call is one step on the device, answered when the
/// device has done it (a buffer made, a batch run and read back); what the device refuses is
/// an error naming what was asked (`DeviceError::Refused`), a batch past its timeout a
/// hang, and a device that stopped a lost device.
pub trait Device: Send + Sync {
    /// The features the device was opened with.
    fn features(&self) -> wgpu_types::Features;
    /// Whether the device reported itself lost.
    fn is_lost(&self) -> bool;
    /// Whether a submission outlasted its timeout (the device may still be running it).
    fn is_hung(&self) -> bool;
    /// A buffer of `desc`, holding `contents` (at most `desc.size` bytes) where given, else
    /// zeros.
    fn create_buffer(&self, desc: &BufferDesc, contents: Option<&[u8]>) -> DeviceResult<BufferId>;
    fn create_layout(&self, desc: &LayoutDesc) -> DeviceResult<LayoutId>;
    fn create_pipeline(&self, desc: &PipelineDesc) -> DeviceResult<PipelineId>;
    fn create_bind_group(&self, desc: &BindGroupDesc) -> DeviceResult<BindGroupId>;
    /// Writes bytes into a buffer, before any later batch runs.
    fn write(&self, write: Write) -> DeviceResult<()>;
    /// Runs `batch` as one submission and returns each read's words, in order; past `timeout`
    /// a `DeviceError::Hang`.
    fn submit(
        &self,
        batch: &commands::Submission,
        timeout: Duration,
    ) -> DeviceResult<Vec<Vec<u32>>>;
    /// Frees a resource no handle holds any longer.
    fn release(&self, resource: Resource);
}

/// An open device with what its adapter said of itself. Cloning shares the device.
#[derive(Clone)]
pub struct Gpu {
    device: Arc<dyn Device>,
    pub info: wgpu_types::AdapterInfo,
    pub limits: wgpu_types::Limits,
}

impl Gpu {
    pub fn new(
        device: Arc<dyn Device>,
        info: wgpu_types::AdapterInfo,
        limits: wgpu_types::Limits,
    ) -> Gpu {
        Gpu {
            device,
            info,
            limits,
        }
    }

    /// Set once the device reports itself lost.
    pub fn is_lost(&self) -> bool {
        self.device.is_lost()
    }

    /// Whether a submission outlasted its hang timeout (and may still be running).
    pub fn is_hung(&self) -> bool {
        self.device.is_hung()
    }

    pub fn features(&self) -> wgpu_types::Features {
        self.device.features()
    }

    /// "NVIDIA H100 80GB HBM3 (DiscreteGpu, Vulkan)"
    pub fn describe(&self) -> String {
        describe(&self.info)
    }

    /// A buffer of `size` bytes (rounded up to four), zeroed.
    pub fn buffer(&self, label: &str, size: u64, usage: Usage) -> DeviceResult<Buffer> {
        self.make_buffer(label, size, usage, None)
    }

    /// A buffer holding `contents`, padded to a multiple of four bytes.
    pub fn buffer_with(&self, label: &str, contents: &[u8], usage: Usage) -> DeviceResult<Buffer> {
        self.make_buffer(label, contents.len() as u64, usage, Some(contents))
    }

    fn make_buffer(
        &self,
        label: &str,
        size: u64,
        usage: Usage,
        contents: Option<&[u8]>,
    ) -> DeviceResult<Buffer> {
        let desc = BufferDesc {
            label: label.to_string(),
            size: size.next_multiple_of(4).max(4),
            usage,
        };
        let id = self.device.create_buffer(&desc, contents)?;
        Ok(Buffer {
            id,
            size: desc.size,
            device: self.device.clone(),
        })
    }

    pub fn layout(&self, desc: &LayoutDesc) -> DeviceResult<Held<LayoutId>> {
        let id = self.device.create_layout(desc)?;
        Ok(self.held(id))
    }

    pub fn pipeline(&self, desc: &PipelineDesc) -> DeviceResult<Held<PipelineId>> {
        let id = self.device.create_pipeline(desc)?;
        Ok(self.held(id))
    }

    pub fn bind_group(&self, desc: &BindGroupDesc) -> DeviceResult<Held<BindGroupId>> {
        let id = self.device.create_bind_group(desc)?;
        Ok(self.held(id))
    }

    /// Writes `bytes` at `offset` of `buffer`, before any later batch.
    pub fn write(&self, buffer: &Buffer, offset: u64, bytes: &[u8]) -> DeviceResult<()> {
        self.device.write(Write {
            buffer: buffer.id,
            offset,
            bytes: bytes.to_vec(),
        })
    }

    /// Runs `batch` (`Device::submit`).
    pub fn submit(
        &self,
        batch: &commands::Submission,
        timeout: Duration,
    ) -> DeviceResult<Vec<Vec<u32>>> {
        self.device.submit(batch, timeout)
    }

    fn held<T: Copy + Into<Resource>>(&self, id: T) -> Held<T> {
        Held {
            id,
            device: self.device.clone(),
        }
    }
}

/// A buffer on a device, released when dropped.
pub struct Buffer {
    id: BufferId,
    size: u64,
    device: Arc<dyn Device>,
}

impl Buffer {
    pub fn id(&self) -> BufferId {
        self.id
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.device.release(Resource::Buffer(self.id));
    }
}

/// A layout, pipeline or bind group on a device, released when dropped.
pub struct Held<T: Copy + Into<Resource>> {
    id: T,
    device: Arc<dyn Device>,
}

impl<T: Copy + Into<Resource>> Held<T> {
    pub fn id(&self) -> T {
        self.id
    }
}

impl<T: Copy + Into<Resource>> Drop for Held<T> {
    fn drop(&mut self) {
        self.device.release(self.id.into());
    }
}

impl From<LayoutId> for Resource {
    fn from(id: LayoutId) -> Resource {
        Resource::Layout(id)
    }
}

impl From<PipelineId> for Resource {
    fn from(id: PipelineId) -> Resource {
        Resource::Pipeline(id)
    }
}

impl From<BindGroupId> for Resource {
    fn from(id: BindGroupId) -> Resource {
        Resource::BindGroup(id)
    }
}

/// "NVIDIA H100 80GB HBM3 (DiscreteGpu, Vulkan)"; a browser's adapter with its browser and
/// its GPUAdapterInfo ("google swiftshader (Cpu, WebGPU in Chromium 156.0.8078.73; vendor
/// google, architecture swiftshader, device (empty), description (empty))").
pub fn describe(info: &wgpu_types::AdapterInfo) -> String {
    match info.backend {
        wgpu_types::Backend::BrowserWebGpu => format!(
            "{} ({:?}, WebGPU in {}; {})",
            info.name, info.device_type, info.driver, info.driver_info
        ),
        backend => format!("{} ({:?}, {backend:?})", info.name, info.device_type),
    }
}

/// Whether the adapter is a CPU driver (lavapipe, SwiftShader), whose work runs on the host's
/// threads.
pub fn on_cpu(info: &wgpu_types::AdapterInfo) -> bool {
    info.device_type == wgpu_types::DeviceType::Cpu
}
