//! The browser device in a real headless Chromium (never a mock): a device opens, runs a
//! kernel of atomics with a dynamic-offset uniform, clears and copies into a buffer read back
//! word by word, refuses a shader with an error at its line:column, calls a kernel that runs
//! past its timeout a hang, and its server refuses requests without the page's token. A
//! machine without Chromium fails these tests, naming what is missing.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use wgstress_device::commands::{
    BindGroupDesc, BindingType, GroupEntry, LayoutDesc, LayoutEntry, PassOp, PipelineDesc,
    Read as ReadBack, Step, Submission, Usage,
};
use wgstress_device::{DeviceError, Gpu};

/// Generous: Chromium's start on a busy machine takes tens of seconds, and a batch's
/// kernels compile on the CPU.
const BATCH: Duration = Duration::from_secs(120);

fn gpu() -> Gpu {
    match wgstress_browser::open(wgpu_types::Features::empty(), "the browser tests") {
        Ok(gpu) => gpu,
        Err(e) => panic!(
            "no browser device: {e} (these tests need Chromium with WebGPU: on Debian, apt-get \
             install chromium)"
        ),
    }
}

fn storage(binding: u32, read_only: bool) -> LayoutEntry {
    LayoutEntry {
        binding,
        ty: BindingType::Storage { read_only },
        dynamic: false,
    }
}

const COUNTER: &str = "
struct Add { amount: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<storage, read_write> counter: array<atomic<u32>, 2>;
@group(0) @binding(1) var<uniform> add: Add;
override SIZE: u32 = 64;
@compute @workgroup_size(SIZE)
fn main(@builtin(local_invocation_index) local: u32) {
    atomicAdd(&counter[0], add.amount);
    if (local == 0u) { atomicAdd(&counter[1], 1u); }
}
";

#[test]
fn a_kernel_of_atomics_runs_and_its_words_come_back() {
    let gpu = gpu();
    assert_eq!(gpu.info.backend, wgpu_types::Backend::BrowserWebGpu);
    assert!(!gpu.info.name.is_empty(), "{:?}", gpu.info);
    assert!(
        gpu.info.driver.contains('.'),
        "a version: {:?}",
        gpu.info.driver
    );
    assert!(
        gpu.limits.max_compute_workgroup_size_x >= 256,
        "{:?}",
        gpu.limits
    );
    let alignment = gpu.limits.min_uniform_buffer_offset_alignment as u64;

    // The counter starts at [1000, 7]: contents given at creation.
    let counter_words: [u32; 2] = [1000, 7];
    let counter_bytes: Vec<u8> = counter_words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let counter = gpu
        .buffer_with(
            "counter",
            &counter_bytes,
            Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
        )
        .unwrap();
    // Two uniforms at one alignment apart: amount 3 at offset 0, amount 5 at `alignment`.
    let mut uniform_bytes = vec![0u8; 2 * alignment as usize];
    uniform_bytes[..4].copy_from_slice(&3u32.to_le_bytes());
    uniform_bytes[alignment as usize..alignment as usize + 4].copy_from_slice(&5u32.to_le_bytes());
    let uniform = gpu
        .buffer_with("uniform", &uniform_bytes, Usage::UNIFORM)
        .unwrap();
    let scratch = gpu
        .buffer(
            "scratch",
            16,
            Usage::STORAGE | Usage::COPY_SRC | Usage::COPY_DST,
        )
        .unwrap();
    gpu.write(
        &scratch,
        0,
        &[9, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0, 6, 0, 0, 0],
    )
    .unwrap();
    let readback = gpu
        .buffer("readback", 32, Usage::MAP_READ | Usage::COPY_DST)
        .unwrap();

    let layout = gpu
        .layout(&LayoutDesc {
            groups: vec![vec![
                storage(0, false),
                LayoutEntry {
                    binding: 1,
                    ty: BindingType::Uniform,
                    dynamic: true,
                },
            ]],
        })
        .unwrap();
    let pipeline = gpu
        .pipeline(&PipelineDesc {
            label: "counter".into(),
            layout: layout.id(),
            wgsl: COUNTER.into(),
            entry: "main".into(),
            constants: vec![("SIZE".into(), 32.0)],
        })
        .unwrap();
    let group = gpu
        .bind_group(&BindGroupDesc {
            layout: layout.id(),
            group: 0,
            entries: vec![
                GroupEntry {
                    binding: 0,
                    buffer: counter.id(),
                    offset: 0,
                    size: None,
                },
                GroupEntry {
                    binding: 1,
                    buffer: uniform.id(),
                    offset: 0,
                    size: Some(16),
                },
            ],
        })
        .unwrap();

    let batch = Submission {
        writes: vec![],
        commands: vec![
            // Two passes of 4 workgroups of 32: the first adds 3 each, the second 5 each.
            Step::Pass {
                steps: vec![
                    PassOp::Pipeline {
                        pipeline: pipeline.id(),
                    },
                    PassOp::BindGroup {
                        index: 0,
                        group: group.id(),
                        offsets: vec![0],
                    },
                    PassOp::Dispatch {
                        workgroups: [4, 1, 1],
                    },
                    PassOp::BindGroup {
                        index: 0,
                        group: group.id(),
                        offsets: vec![alignment as u32],
                    },
                    PassOp::Dispatch {
                        workgroups: [2, 2, 1],
                    },
                ],
            },
            Step::Clear {
                buffer: readback.id(),
            },
            Step::Copy {
                from: counter.id(),
                from_offset: 0,
                to: readback.id(),
                to_offset: 0,
                size: 8,
            },
            Step::Copy {
                from: scratch.id(),
                from_offset: 4,
                to: readback.id(),
                to_offset: 16,
                size: 8,
            },
        ],
        reads: vec![
            ReadBack {
                buffer: readback.id(),
                bytes: 32,
            },
            ReadBack {
                buffer: readback.id(),
                bytes: 8,
            },
        ],
    };
    let words = gpu.submit(&batch, BATCH).unwrap();
    let counted = 1000 + 4 * 32 * 3 + 4 * 32 * 5;
    assert_eq!(
        words,
        vec![vec![counted, 7 + 8, 0, 0, 8, 7, 0, 0], vec![counted, 7 + 8]]
    );
    assert!(!gpu.is_hung() && !gpu.is_lost());

    // A second batch with writes: the counter goes on from where it was.
    let again = Submission {
        writes: vec![wgstress_device::commands::Write {
            buffer: counter.id(),
            offset: 4,
            bytes: 100u32.to_le_bytes().to_vec(),
        }],
        ..batch
    };
    let words = gpu.submit(&again, BATCH).unwrap();
    assert_eq!(words[1], vec![counted + 4 * 32 * 8, 100 + 8]);
}

#[test]
fn a_shader_the_browser_refuses_is_refused_at_its_line_and_column() {
    let gpu = gpu();
    let layout = gpu
        .layout(&LayoutDesc {
            groups: vec![vec![storage(0, false)]],
        })
        .unwrap();
    let wgsl = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
                @compute @workgroup_size(1)\n\
                fn main() {\n    out[0] = undefined_name;\n}\n";
    let refused = gpu.pipeline(&PipelineDesc {
        label: "broken".into(),
        layout: layout.id(),
        wgsl: wgsl.into(),
        entry: "main".into(),
        constants: vec![],
    });
    match refused {
        Err(DeviceError::Refused { what, message }) => {
            assert!(what.contains("broken"), "{what}");
            assert!(message.contains("undefined_name"), "{message}");
            assert!(message.contains("(at 4:"), "a line:column: {message}");
        }
        Err(e) => panic!("not refused: {e:?}"),
        Ok(_) => panic!("a shader with an unknown name was made"),
    }
    // The device goes on after a refusal.
    assert!(!gpu.is_lost());
    let buffer = gpu
        .buffer("after", 16, Usage::MAP_READ | Usage::COPY_DST)
        .unwrap();
    let words = gpu
        .submit(
            &Submission {
                reads: vec![ReadBack {
                    buffer: buffer.id(),
                    bytes: 16,
                }],
                ..Submission::default()
            },
            BATCH,
        )
        .unwrap();
    assert_eq!(words, vec![vec![0; 4]]);
}

/// A kernel that runs for seconds on SwiftShader and ends: 2^28 steps of a chain no compiler
/// folds. Returns it as a batch, with what the batch needs kept alive.
fn spin(gpu: &Gpu) -> (Submission, impl Sized) {
    let layout = gpu
        .layout(&LayoutDesc {
            groups: vec![vec![storage(0, false)]],
        })
        .unwrap();
    let wgsl = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
                @compute @workgroup_size(1)\n\
                fn main() {\n\
                    var x = out[0];\n\
                    for (var i = 0u; i < (1u << 28u); i++) { x = x * 1664525u + 1013904223u + i; }\n\
                    out[0] = x;\n\
                }\n";
    let pipeline = gpu
        .pipeline(&PipelineDesc {
            label: "spin".into(),
            layout: layout.id(),
            wgsl: wgsl.into(),
            entry: "main".into(),
            constants: vec![],
        })
        .unwrap();
    let out = gpu.buffer("out", 4, Usage::STORAGE).unwrap();
    let group = gpu
        .bind_group(&BindGroupDesc {
            layout: layout.id(),
            group: 0,
            entries: vec![GroupEntry {
                binding: 0,
                buffer: out.id(),
                offset: 0,
                size: None,
            }],
        })
        .unwrap();
    let batch = Submission {
        commands: vec![Step::Pass {
            steps: vec![
                PassOp::Pipeline {
                    pipeline: pipeline.id(),
                },
                PassOp::BindGroup {
                    index: 0,
                    group: group.id(),
                    offsets: vec![],
                },
                PassOp::Dispatch {
                    workgroups: [1, 1, 1],
                },
            ],
        }],
        ..Submission::default()
    };
    (batch, (layout, pipeline, out, group))
}

#[test]
fn a_kernel_past_its_timeout_is_a_hang() {
    let gpu = gpu();
    let (batch, _held) = spin(&gpu);
    let timeout = Duration::from_millis(200);
    let started = Instant::now();
    match gpu.submit(&batch, timeout) {
        Err(DeviceError::Hang(t)) => assert_eq!(t, timeout),
        other => panic!(
            "not a hang after {:?}: {:?}",
            started.elapsed(),
            other.map(|_| ())
        ),
    }
    assert!(gpu.is_hung());
}

#[test]
fn a_feature_the_adapter_lacks_is_named() {
    // SHADER_F16 is a feature SwiftShader does not offer; on an adapter that has it the
    // device opens.
    match wgstress_browser::open(wgpu_types::Features::SHADER_F16, "the f16 test") {
        Err(DeviceError::Open(message)) => {
            assert!(
                message.starts_with("the f16 test needs the device feature SHADER_F16, which "),
                "{message}"
            );
            assert!(message.ends_with(" does not offer"), "{message}");
        }
        Err(e) => panic!("not an open error: {e:?}"),
        Ok(gpu) => assert!(gpu.features().contains(wgpu_types::Features::SHADER_F16)),
    }
    match wgstress_browser::open(wgpu_types::Features::SHADER_INT64, "the i64 test") {
        Err(DeviceError::Open(message)) => assert!(
            message.starts_with("the i64 test needs the device feature SHADER_INT64"),
            "{message}"
        ),
        other => panic!("not an open error: {:?}", other.map(|_| ())),
    }
}

/// The status line of a plain HTTP GET of `path` at `address`.
fn status_of(address: std::net::SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

#[test]
fn requests_without_the_token_are_refused() {
    let _gpu = gpu();
    let (http, socket) = wgstress_browser::addresses().expect("a running server");
    for path in [
        "/",
        "/executor.js",
        "/00000000000000000000000000000000/",
        "/00000000000000000000000000000000/executor.js",
    ] {
        assert_eq!(status_of(http, path), "HTTP/1.1 403 Forbidden", "{path}");
    }
    // The WebSocket's handshake without the token: 403 as well.
    let stream = TcpStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    match tungstenite::client::client(format!("ws://{socket}/not-the-token"), stream) {
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response))) => {
            assert_eq!(response.status(), 403)
        }
        Err(e) => panic!("not refused with 403: {e}"),
        Ok(_) => panic!("a WebSocket without the token was taken"),
    }
}

#[test]
fn empty_batches_take_a_round_trip() {
    let gpu = gpu();
    let n = 300;
    let started = Instant::now();
    for _ in 0..n {
        gpu.submit(&Submission::default(), BATCH).unwrap();
    }
    let each = started.elapsed() / n;
    // Reported, not judged: a busy machine's round trips are slower.
    std::io::stderr()
        .write_all(format!("an empty batch's round trip: {each:?}\n").as_bytes())
        .unwrap();
}

#[test]
fn a_pipeline_is_made_while_a_batch_runs() {
    let gpu = gpu();
    let (batch, _held) = spin(&gpu);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let running = {
        let (gpu, done) = (gpu.clone(), done.clone());
        std::thread::spawn(move || {
            let words = gpu.submit(&batch, BATCH);
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            words.map(drop)
        })
    };
    // The batch is sent first, then a pipeline is made on this thread while it runs.
    std::thread::sleep(Duration::from_millis(100));
    let layout = gpu
        .layout(&LayoutDesc {
            groups: vec![vec![storage(0, false)]],
        })
        .unwrap();
    gpu.pipeline(&PipelineDesc {
        label: "meanwhile".into(),
        layout: layout.id(),
        wgsl: "@compute @workgroup_size(1) fn main() {}".into(),
        entry: "main".into(),
        constants: vec![],
    })
    .unwrap();
    assert!(
        !done.load(std::sync::atomic::Ordering::SeqCst),
        "the pipeline waited for the batch"
    );
    running.join().unwrap().unwrap();
    assert!(!gpu.is_hung());
}
