//! A Rust program on wgpu: 256 workgroups take a spin lock 4 times each to count to 1,024,
//! then the program reads the count back and checks it (the shaders are the Node example's,
//! examples/record/node/spin_lock*.wgsl).
//!
//!   spin-lock-wgpu [--fixed] [--trace DIR] [--label TEXT]
//!
//! `--trace DIR` turns on wgpu's API trace into DIR, for `wgstress import DIR`. `--label TEXT`
//! labels the count's buffer TEXT (`total` by default), any characters. Exit status 0:
//! the count was right; 1: it was not.

use std::path::PathBuf;
use wgpu::util::DeviceExt;

const WORKGROUPS: u32 = 256;
const ROUNDS: u32 = 4;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let fixed = args.iter().any(|a| a == "--fixed");
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let trace = value("--trace").map(PathBuf::from);
    let label = value("--label").unwrap_or_else(|| "total".to_string());
    let count = pollster::block_on(run(fixed, trace, &label));
    let expected = WORKGROUPS * ROUNDS;
    println!("count {count} (expected {expected})");
    if count == expected {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

async fn run(fixed: bool, trace: Option<PathBuf>, label: &str) -> u32 {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .expect("an adapter");
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            trace: match trace {
                Some(dir) => wgpu::Trace::Directory(dir),
                None => wgpu::Trace::Off,
            },
            ..Default::default()
        })
        .await
        .expect("a device");
    let source = if fixed {
        include_str!("../../node/spin_lock_fixed.wgsl")
    } else {
        include_str!("../../node/spin_lock.wgsl")
    };
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("spin lock"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("count"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let storage = wgpu::BufferUsages::STORAGE;
    let lock = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("lock"),
        size: 4,
        usage: storage,
        mapped_at_creation: false,
    });
    let total = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: 4,
        usage: storage | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let config = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("config"),
        contents: bytemuck::cast_slice(&[ROUNDS, 0, 0, 0]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: lock.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: total.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: config.as_entire_binding() },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(WORKGROUPS, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&total, 0, &readback, 0, 4);
    queue.submit([encoder.finish()]);
    let slice = readback.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("mapped"));
    device.poll(wgpu::PollType::wait_indefinitely()).expect("polled");
    let count = bytemuck::cast_slice::<u8, u32>(&slice.get_mapped_range().expect("a mapped range"))[0];
    count
}
