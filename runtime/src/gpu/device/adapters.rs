//! Choosing and opening a native adapter: every adapter of every backend wgpu has here, the
//! one a choice names, and its device.

use crate::error::{Result, RuntimeError};
use wgstress_device::{describe, Gpu};

/// What wgpu tells of an adapter: its name, type, driver and backend.
pub type Info = wgpu::AdapterInfo;

/// What a user must know about this adapter before trusting its results, if anything.
pub fn caveat(adapter_name: &str) -> Option<&'static str> {
    // Mesa's gallivm gives every shader invocation one loop limiter, LP_MAX_TGSI_LOOP_ITERATIONS
    // (65535), shared by all its loops: past it, loops end without a word. ls-bh's large size
    // lost its last bodies to it, and cbe-ht's fixed variant a key in 1 of 6,000 runs: a
    // spinner whose lock holder the OS had preempted left its spin loop without the lock.
    adapter_name.contains("llvmpipe").then_some(
        "llvmpipe ends an invocation's loops after 65,535 iterations in all: an instrumented run \
         names a loop it ended and stops (exit 2), a raw run cannot see it; use small sizes \
         (docs/apps.md lists which bundled sizes fit), and LP_NUM_THREADS=1 where workgroups \
         spin on each other",
    )
}

/// A graphics API wgpu drives a GPU through. Which are compiled in depends on the platform
/// (runtime/Cargo.toml): Vulkan and GL on Linux, Metal on macOS, DX12, Vulkan and GL on
/// Windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Vulkan,
    Metal,
    Dx12,
    Gl,
}

impl Backend {
    /// The backend of an adapter wgpu found (`None` for wgpu's own no-op and browser ones).
    fn of(backend: wgpu::Backend) -> Option<Backend> {
        match backend {
            wgpu::Backend::Vulkan => Some(Backend::Vulkan),
            wgpu::Backend::Metal => Some(Backend::Metal),
            wgpu::Backend::Dx12 => Some(Backend::Dx12),
            wgpu::Backend::Gl => Some(Backend::Gl),
            wgpu::Backend::Noop | wgpu::Backend::BrowserWebGpu => None,
        }
    }

    /// Its name as `--backend` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Vulkan => "vulkan",
            Backend::Metal => "metal",
            Backend::Dx12 => "dx12",
            Backend::Gl => "gl",
        }
    }
}

/// Which device to open: a native adapter, or the GPU of a headless Chromium that wgstress
/// starts (the browser's adapter, the one a web page would get).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdapterChoice {
    Native(NativeChoice),
    Browser,
    /// A browser's page that `wgstress serve` holds and lends this process (its items').
    BrowserRelay(BrowserRelay),
}

/// Where `wgstress serve` lends a page, and the secret it made for this process (from the
/// environment, not the command line, which every user of the machine can read).
#[derive(Clone, PartialEq, Eq)]
pub struct BrowserRelay {
    pub address: std::net::SocketAddr,
    pub secret: String,
}

/// The secret stays out of debug output.
impl std::fmt::Debug for BrowserRelay {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("BrowserRelay")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Default for AdapterChoice {
    fn default() -> AdapterChoice {
        AdapterChoice::Native(NativeChoice::default())
    }
}

/// Which native adapter to open: `name` as `pick` reads it, among the adapters of `backend`
/// where one is given; by default the best adapter of a native backend (Vulkan, Metal,
/// DX12), GL only where there is none, as GL compiles compute shaders through GLSL, less
/// directly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeChoice {
    pub name: Option<String>,
    pub backend: Option<Backend>,
}

impl AdapterChoice {
    /// The native adapter `name` names (or the best), on any backend.
    pub fn named(name: Option<&str>) -> AdapterChoice {
        AdapterChoice::Native(NativeChoice {
            name: name.map(str::to_string),
            backend: None,
        })
    }
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::PRIMARY | wgpu::Backends::GL;
    wgpu::Instance::new(desc)
}

/// Every adapter of every backend compiled in: the native backends' first, then GL's. `#N`
/// counts in this order.
fn enumerate(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    let mut all = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
    all.extend(pollster::block_on(
        instance.enumerate_adapters(wgpu::Backends::GL),
    ));
    all
}

/// Every adapter wgpu finds, on every backend.
pub fn adapters() -> Vec<wgpu::AdapterInfo> {
    enumerate(&instance())
        .iter()
        .map(|a| a.get_info())
        .collect()
}

/// Whether an adapter of `infos` is one a choice without a backend considers: a native
/// backend's, or GL's where no native backend found any.
pub fn by_default(infos: &[wgpu::AdapterInfo], info: &wgpu::AdapterInfo) -> bool {
    let native = |i: &wgpu::AdapterInfo| Backend::of(i.backend).is_some_and(|b| b != Backend::Gl);
    native(info) || !infos.iter().any(native)
}

fn preference(kind: wgpu::DeviceType) -> u8 {
    match kind {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Opens the adapter `choice` names (see `pick`), else the best one: a discrete GPU, else an
/// integrated one, else a CPU implementation such as lavapipe.
pub fn open(choice: &AdapterChoice) -> Result<Gpu> {
    open_with(choice, wgpu::Features::empty(), "wgstress")
}

/// The native adapter `open` would open, and its place in `adapters()`, without opening it.
pub fn find(choice: &NativeChoice) -> Result<(usize, wgpu::AdapterInfo)> {
    let infos = adapters();
    let index = pick(&infos, choice)?;
    Ok((index, infos[index].clone()))
}

/// Which of `infos` (in `adapters()`'s order) `choice` names. Its name: `#N` the N-th,
/// counted from 0 (identical GPUs of one host differ only there), which must be of the
/// backend if one is given; else the first whose name contains it (case-insensitive) in
/// order of preference; none, the most preferred. Among the backend's adapters where one is
/// given, else those `by_default` keeps.
fn pick(infos: &[wgpu::AdapterInfo], choice: &NativeChoice) -> Result<usize> {
    let of_backend = |info: &wgpu::AdapterInfo| match choice.backend {
        Some(backend) => Backend::of(info.backend) == Some(backend),
        None => by_default(infos, info),
    };
    let mut order: Vec<usize> = (0..infos.len())
        .filter(|&i| of_backend(&infos[i]))
        .collect();
    if order.is_empty() {
        return Err(match choice.backend {
            Some(backend) if !infos.is_empty() => RuntimeError::AdapterNotFound {
                wanted: format!("--backend {}", backend.name()),
                found: listing(infos),
            },
            _ => RuntimeError::NoAdapter,
        });
    }
    order.sort_by_key(|&i| preference(infos[i].device_type));
    let not_found = |wanted: &str| RuntimeError::AdapterNotFound {
        wanted: match choice.backend {
            Some(backend) => format!("{wanted} --backend {}", backend.name()),
            None => wanted.to_string(),
        },
        found: listing(infos),
    };
    match choice.name.as_deref() {
        None => Ok(order[0]),
        Some(w) => match w.strip_prefix('#').map(str::parse::<usize>) {
            Some(Ok(n)) if order.contains(&n) => Ok(n),
            Some(Ok(n)) if n < infos.len() && choice.backend.is_none() => Ok(n),
            Some(_) => Err(not_found(w)),
            None => {
                let lower = w.to_lowercase();
                order
                    .into_iter()
                    .find(|&i| infos[i].name.to_lowercase().contains(&lower))
                    .ok_or_else(|| not_found(&lower))
            }
        },
    }
}

/// "#0 llvmpipe (Vulkan), #1 llvmpipe (Gl)": the adapters as an error names them.
fn listing(infos: &[wgpu::AdapterInfo]) -> String {
    infos
        .iter()
        .enumerate()
        .map(|(i, info)| format!("#{i} {} ({:?})", info.name, info.backend))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `open`, with the device `features` that `needed_by` (an application's name) needs: an
/// adapter without one of them is a one-line error naming it.
pub(crate) fn open_with(
    choice: &AdapterChoice,
    features: wgpu::Features,
    needed_by: &str,
) -> Result<Gpu> {
    match choice {
        AdapterChoice::Native(native) => open_native(native, features, needed_by),
        #[cfg(unix)]
        AdapterChoice::Browser => Ok(wgstress_browser::open(features, needed_by)?),
        #[cfg(unix)]
        AdapterChoice::BrowserRelay(relay) => Ok(wgstress_browser::open_relayed(
            relay.address,
            &relay.secret,
            features,
            needed_by,
        )?),
        #[cfg(not(unix))]
        AdapterChoice::Browser | AdapterChoice::BrowserRelay(_) => Err(RuntimeError::Device(
            "--browser drives Chromium on Linux and macOS only".to_string(),
        )),
    }
}

/// Ends the browser that `AdapterChoice::Browser` started, if any (its devices fail from
/// then on; the next opens a new browser): a process that opened one only to read its
/// adapter gives the machine back at once.
pub fn close_browser() {
    #[cfg(unix)]
    wgstress_browser::close();
}

fn open_native(choice: &NativeChoice, features: wgpu::Features, needed_by: &str) -> Result<Gpu> {
    let instance = instance();
    let all = enumerate(&instance);
    let infos: Vec<wgpu::AdapterInfo> = all.iter().map(|a| a.get_info()).collect();
    let index = pick(&infos, choice)?;
    let adapter = all.into_iter().nth(index).expect("picked among them");
    let info = adapter.get_info();
    let limits = adapter.limits();
    crate::gpu::features::check(features, adapter.features(), &info.name, needed_by)?;
    let desc = wgpu::DeviceDescriptor {
        label: Some("wgstress"),
        required_features: features,
        required_limits: limits.clone(),
        ..Default::default()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&desc))
        .map_err(|e| RuntimeError::Device(format!("{}: {e}", describe(&info))))?;
    let native = super::native::WgpuDevice::new(device, queue, features);
    Ok(Gpu::new(std::sync::Arc::new(native), info, limits))
}

/// `open_with` after a device was lost, asked again while the driver recovers (`patiently`).
pub(crate) fn reopen(
    choice: &AdapterChoice,
    features: wgpu::Features,
    needed_by: &str,
) -> Result<Gpu> {
    patiently(|| open_with(choice, features, needed_by))
}

/// `open`, asked again for up to 30 s while it finds no adapter or cannot open the device: a
/// driver that is resetting the GPU after a lost device lists no adapter for a while (fence
/// searches that open a device for each fix they try ended partway with "no GPU adapter
/// found" when they opened one at once).
pub(crate) fn patiently<T>(mut open: impl FnMut() -> Result<T>) -> Result<T> {
    let mut wait = std::time::Duration::from_millis(100);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match open() {
            Err(RuntimeError::NoAdapter | RuntimeError::Device(_))
                if std::time::Instant::now() < until =>
            {
                std::thread::sleep(wait);
                wait = (wait * 2).min(std::time::Duration::from_secs(2));
            }
            opened => return opened,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{pick, Backend, NativeChoice};

    fn info(
        name: &str,
        device_type: wgpu::DeviceType,
        backend: wgpu::Backend,
    ) -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: name.to_string(),
            device_type,
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::Other, backend)
        }
    }

    fn named(name: Option<&str>) -> NativeChoice {
        NativeChoice {
            name: name.map(str::to_string),
            backend: None,
        }
    }

    #[test]
    fn adapters_are_picked_by_place_then_by_name_in_order_of_preference() {
        let vulkan = wgpu::Backend::Vulkan;
        let infos = [
            info("llvmpipe", wgpu::DeviceType::Cpu, vulkan),
            info("GPU A", wgpu::DeviceType::DiscreteGpu, vulkan),
            info("GPU A", wgpu::DeviceType::DiscreteGpu, vulkan),
        ];
        assert_eq!(pick(&infos, &named(None)).unwrap(), 1);
        assert_eq!(pick(&infos, &named(Some("gpu a"))).unwrap(), 1);
        assert_eq!(pick(&infos, &named(Some("#2"))).unwrap(), 2);
        assert_eq!(pick(&infos, &named(Some("LLVM"))).unwrap(), 0);
        for bad in ["#3", "#x", "nvidia"] {
            let error = pick(&infos, &named(Some(bad))).unwrap_err().to_string();
            assert!(error.contains("#2 GPU A"), "{bad}: {error}");
        }
    }

    #[test]
    fn gl_adapters_are_picked_when_asked_for_or_when_there_is_no_other() {
        let cpu = wgpu::DeviceType::Cpu;
        let infos = [
            info("llvmpipe", cpu, wgpu::Backend::Vulkan),
            info("llvmpipe", cpu, wgpu::Backend::Gl),
        ];
        let on = |name: Option<&str>, backend| NativeChoice {
            name: name.map(str::to_string),
            backend,
        };
        assert_eq!(pick(&infos, &named(None)).unwrap(), 0);
        assert_eq!(pick(&infos, &named(Some("llvm"))).unwrap(), 0);
        assert_eq!(pick(&infos, &named(Some("#1"))).unwrap(), 1);
        assert_eq!(pick(&infos, &on(None, Some(Backend::Gl))).unwrap(), 1);
        assert_eq!(
            pick(&infos, &on(Some("llvm"), Some(Backend::Gl))).unwrap(),
            1
        );
        assert_eq!(pick(&infos, &on(Some("#1"), Some(Backend::Gl))).unwrap(), 1);
        let wrong = pick(&infos, &on(Some("#0"), Some(Backend::Gl))).unwrap_err();
        assert!(wrong.to_string().contains("#0 --backend gl"), "{wrong}");
        let none = pick(&infos, &on(None, Some(Backend::Metal))).unwrap_err();
        assert!(none.to_string().contains("--backend metal"), "{none}");
        assert!(none.to_string().contains("#1 llvmpipe (Gl)"), "{none}");
        // Only GL found: it is the default.
        assert_eq!(pick(&infos[1..], &named(None)).unwrap(), 0);
    }

    #[test]
    fn only_llvmpipe_has_a_caveat() {
        assert!(super::caveat("llvmpipe (LLVM 15.0.6, 256 bits)")
            .unwrap()
            .contains("65,535"));
        assert_eq!(super::caveat("NVIDIA H100 80GB HBM3"), None);
    }
}
