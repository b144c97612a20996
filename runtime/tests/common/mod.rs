//! Helpers for runtime tests on a real Vulkan device (lavapipe in CI).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;
use wgstress_model::stress::params::{RunParams, Settings, StressShape};
use wgstress_model::stress::strategy::Strategy;
pub use wgstress_runtime::app::spec::{App, Binding};
use wgstress_runtime::gpu::engine::{Engine, EngineConfig};

pub fn engine(app: App) -> Engine {
    Engine::new(app, &EngineConfig::new(16, 1 << 16)).unwrap_or_else(|e| panic!("engine: {e}"))
}

pub fn settings(strategy: Strategy, shuffle: bool) -> Settings {
    Settings {
        strategy,
        shuffle,
        shape: StressShape::default(),
        iterations: 64,
        cache_words: 1 << 16,
        watchdog_limit: 4096,
        stress_fraction: (0.15, 0.5),
        placement: Default::default(),
        buffer_shuffle: true,
        scheduling: Default::default(),
    }
}

pub fn params(engine: &Engine, settings: &Settings, seeds: std::ops::Range<u64>) -> Vec<RunParams> {
    seeds
        .map(|s| RunParams::draw(s, settings, engine.app_groups()))
        .collect()
}

/// Captures the read-back buffers of every run an app's host check sees.
pub fn capture(app: &mut App) -> Arc<Mutex<Vec<Vec<Vec<u32>>>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let keys: Vec<(u32, u32)> = app.bindings.iter().map(|b| (b.group, b.binding)).collect();
    app.host_check = Some(Arc::new(move |outputs| {
        let words = keys
            .iter()
            .map(|(g, b)| outputs.get(*g, *b).unwrap().to_vec())
            .collect();
        sink.lock().unwrap().push(words);
        Ok(())
    }));
    seen
}

/// Runs an uninstrumented shader once, plainly through wgpu, and reads back every binding.
pub fn run_original(source: &str, workgroups: [u32; 3], bindings: &[Binding]) -> Vec<Vec<u32>> {
    // wgpu itself, not the runtime's device: the reference the runtime is compared with.
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    let device = &device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: None,
        compilation_options: Default::default(),
        cache: None,
    });
    let buffers: Vec<wgpu::Buffer> = bindings
        .iter()
        .map(|b| {
            let words = b.init.words(b.words).unwrap();
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(&words),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            })
        })
        .collect();
    let entries: Vec<_> = bindings
        .iter()
        .zip(&buffers)
        .map(|(b, buf)| wgpu::BindGroupEntry {
            binding: b.binding,
            resource: buf.as_entire_binding(),
        })
        .collect();
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let reads: Vec<wgpu::Buffer> = buffers
        .iter()
        .map(|b| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: b.size(),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .collect();
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(workgroups[0], workgroups[1], workgroups[2]);
    }
    for (b, r) in buffers.iter().zip(&reads) {
        encoder.copy_buffer_to_buffer(b, 0, r, 0, b.size());
    }
    queue.submit([encoder.finish()]);
    for r in &reads {
        r.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    }
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    reads
        .iter()
        .map(|r| bytemuck::cast_slice(&r.slice(..).get_mapped_range().unwrap()).to_vec())
        .collect()
}
