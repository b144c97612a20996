//! What the page's `open` said of its adapter, as wgpu describes an adapter: its
//! `AdapterInfo`, its `Limits` by WebGPU name, and the features wgstress asks for by their
//! WebGPU names.

use serde::Deserialize;
use std::collections::HashMap;
use wgpu_types::{AdapterInfo, Backend, DeviceType, Features, Limits};

/// The features a device may be opened with, by wgpu's name and WebGPU's.
const FEATURES: &[(Features, &str, &str)] = &[
    (Features::SUBGROUP, "SUBGROUP", "subgroups"),
    (Features::SHADER_F16, "SHADER_F16", "shader-f16"),
];

/// The WebGPU names of `features`; a feature without one is an error naming it (wgpu's
/// name).
pub(crate) fn webgpu_names(features: Features) -> Result<Vec<&'static str>, String> {
    let mut names = Vec::new();
    let mut left = features;
    for &(feature, _, webgpu) in FEATURES {
        if features.contains(feature) {
            names.push(webgpu);
            left.remove(feature);
        }
    }
    match left.iter_names().next() {
        Some((name, _)) => Err(name.to_string()),
        None => Ok(names),
    }
}

/// wgpu's name of the feature WebGPU calls `webgpu`, else that name.
pub(crate) fn wgpu_name(webgpu: &str) -> String {
    FEATURES
        .iter()
        .find(|(_, _, w)| *w == webgpu)
        .map_or(webgpu.to_string(), |(_, name, _)| name.to_string())
}

/// `GPUAdapterInfo`'s strings, and its subgroup sizes where the browser gives them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PageInfo {
    pub(crate) vendor: String,
    pub(crate) architecture: String,
    pub(crate) device: String,
    pub(crate) description: String,
    pub(crate) subgroup_min_size: Option<u32>,
    pub(crate) subgroup_max_size: Option<u32>,
}

/// The page's answer to `open`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Opened {
    /// The new device's number; none when a feature asked for is missing.
    pub(crate) device: Option<u64>,
    /// The WebGPU features asked for that the adapter lacks.
    #[serde(default)]
    pub(crate) missing: Vec<String>,
    pub(crate) info: PageInfo,
    pub(crate) fallback: Option<bool>,
    #[serde(default)]
    pub(crate) limits: HashMap<String, f64>,
    pub(crate) user_agent: String,
}

/// The adapter's name as wgpu would give it: its description, else "vendor architecture"
/// (SwiftShader describes itself with neither description nor device).
pub(crate) fn name(info: &PageInfo) -> String {
    if !info.description.is_empty() {
        return info.description.clone();
    }
    format!("{} {}", info.vendor, info.architecture)
        .trim()
        .to_string()
}

/// wgpu's `AdapterInfo` of the page's adapter, in browser `browser` ("Chromium 148.0.…").
/// A browser says nothing of the kind of device: SwiftShader and a fallback adapter run on
/// the CPU; any other is `Other`, since integrated and discrete GPUs look alike from a page.
pub(crate) fn info(opened: &Opened, browser: &str) -> AdapterInfo {
    let page = &opened.info;
    let on_cpu = page.architecture == "swiftshader" || opened.fallback == Some(true);
    let device_type = if on_cpu {
        DeviceType::Cpu
    } else {
        DeviceType::Other
    };
    let mut info = AdapterInfo::new(device_type, Backend::BrowserWebGpu);
    info.name = name(page);
    info.driver = browser.to_string();
    // All four of GPUAdapterInfo's fields, an empty one (a browser may hide it) as such.
    let shown = |value: &str| match value {
        "" => "(empty)".to_string(),
        value => value.to_string(),
    };
    info.driver_info = format!(
        "vendor {}, architecture {}, device {}, description {}",
        shown(&page.vendor),
        shown(&page.architecture),
        shown(&page.device),
        shown(&page.description)
    );
    if let Some(size) = page.subgroup_min_size {
        info.subgroup_min_size = size;
    }
    if let Some(size) = page.subgroup_max_size {
        info.subgroup_max_size = size;
    }
    info
}

/// The browser's name and version: `product` ("Chromium" or "Chrome", from the executable)
/// and the version after `Chrome/` in `version` (DevTools' "HeadlessChrome/148.0.7778.167", or
/// a user agent).
pub(crate) fn browser(product: &str, user_agent: &str) -> String {
    let version = user_agent
        .split_whitespace()
        .find_map(|part| part.split_once("Chrome/").map(|(_, v)| v))
        .unwrap_or("(unknown version)");
    format!("{product} {version}")
}

/// The browser a user agent names, with its version: "Edge 120.0", "Firefox 121.0",
/// "Chrome 148.0.7778.167" (Chromium's headless agent gives its whole version), "Safari 17.2";
/// else "a browser (AGENT)".
pub(crate) fn browser_of_agent(user_agent: &str) -> String {
    let after = |marker: &str| {
        user_agent
            .split_whitespace()
            .find_map(|part| part.split_once(marker).map(|(_, v)| v.to_string()))
    };
    if let Some(version) = after("Edg/") {
        return format!("Edge {version}");
    }
    if let Some(version) = after("Firefox/") {
        return format!("Firefox {version}");
    }
    if let Some(version) = after("Chrome/") {
        return format!("Chrome {version}");
    }
    if let (Some(version), true) = (after("Version/"), user_agent.contains("Safari/")) {
        return format!("Safari {version}");
    }
    let shown: String = user_agent.chars().take(80).collect();
    format!("a browser ({shown})")
}

/// Sets each field of `limits` from the WebGPU limit of the same name.
macro_rules! by_name {
    ($limits:ident, $page:ident, $($name:literal => $field:ident),* $(,)?) => {
        $(
            if let Some(&value) = $page.get($name) {
                $limits.$field = value as _;
            }
        )*
    };
}

/// wgpu's `Limits` from the page's, by WebGPU name; wgpu's defaults for what the page gives
/// no value of.
pub(crate) fn limits(page: &HashMap<String, f64>) -> Limits {
    let mut limits = Limits::default();
    by_name!(limits, page,
        "maxTextureDimension1D" => max_texture_dimension_1d,
        "maxTextureDimension2D" => max_texture_dimension_2d,
        "maxTextureDimension3D" => max_texture_dimension_3d,
        "maxTextureArrayLayers" => max_texture_array_layers,
        "maxBindGroups" => max_bind_groups,
        "maxBindGroupsPlusVertexBuffers" => max_bind_groups_plus_vertex_buffers,
        "maxBindingsPerBindGroup" => max_bindings_per_bind_group,
        "maxDynamicUniformBuffersPerPipelineLayout" => max_dynamic_uniform_buffers_per_pipeline_layout,
        "maxDynamicStorageBuffersPerPipelineLayout" => max_dynamic_storage_buffers_per_pipeline_layout,
        "maxSampledTexturesPerShaderStage" => max_sampled_textures_per_shader_stage,
        "maxSamplersPerShaderStage" => max_samplers_per_shader_stage,
        "maxStorageBuffersPerShaderStage" => max_storage_buffers_per_shader_stage,
        "maxStorageTexturesPerShaderStage" => max_storage_textures_per_shader_stage,
        "maxUniformBuffersPerShaderStage" => max_uniform_buffers_per_shader_stage,
        "maxUniformBufferBindingSize" => max_uniform_buffer_binding_size,
        "maxStorageBufferBindingSize" => max_storage_buffer_binding_size,
        "minUniformBufferOffsetAlignment" => min_uniform_buffer_offset_alignment,
        "minStorageBufferOffsetAlignment" => min_storage_buffer_offset_alignment,
        "maxVertexBuffers" => max_vertex_buffers,
        "maxBufferSize" => max_buffer_size,
        "maxVertexAttributes" => max_vertex_attributes,
        "maxVertexBufferArrayStride" => max_vertex_buffer_array_stride,
        "maxInterStageShaderVariables" => max_inter_stage_shader_variables,
        "maxColorAttachments" => max_color_attachments,
        "maxColorAttachmentBytesPerSample" => max_color_attachment_bytes_per_sample,
        "maxComputeWorkgroupStorageSize" => max_compute_workgroup_storage_size,
        "maxComputeInvocationsPerWorkgroup" => max_compute_invocations_per_workgroup,
        "maxComputeWorkgroupSizeX" => max_compute_workgroup_size_x,
        "maxComputeWorkgroupSizeY" => max_compute_workgroup_size_y,
        "maxComputeWorkgroupSizeZ" => max_compute_workgroup_size_z,
        "maxComputeWorkgroupsPerDimension" => max_compute_workgroups_per_dimension,
        "maxImmediateSize" => max_immediate_size,
    );
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_taken_by_their_webgpu_names() {
        let page = HashMap::from([
            ("maxBufferSize".to_string(), 4294967296.0),
            ("maxTextureDimension2D".to_string(), 16384.0),
            ("maxComputeWorkgroupSizeX".to_string(), 1024.0),
            ("somethingNew".to_string(), 1.0),
        ]);
        let limits = limits(&page);
        assert_eq!(limits.max_buffer_size, 1 << 32);
        assert_eq!(limits.max_texture_dimension_2d, 16384);
        assert_eq!(limits.max_compute_workgroup_size_x, 1024);
        assert_eq!(limits.max_bind_groups, Limits::default().max_bind_groups);
    }

    #[test]
    fn features_have_webgpu_names_or_are_named_as_missing() {
        assert_eq!(
            webgpu_names(Features::SUBGROUP | Features::SHADER_F16),
            Ok(vec!["subgroups", "shader-f16"])
        );
        assert_eq!(
            webgpu_names(Features::SUBGROUP | Features::SHADER_INT64),
            Err("SHADER_INT64".to_string())
        );
        assert_eq!(wgpu_name("subgroups"), "SUBGROUP");
    }

    #[test]
    fn swiftshader_is_named_by_vendor_and_architecture_and_runs_on_the_cpu() {
        let opened = Opened {
            device: Some(1),
            missing: Vec::new(),
            info: PageInfo {
                vendor: "google".into(),
                architecture: "swiftshader".into(),
                device: String::new(),
                description: String::new(),
                subgroup_min_size: Some(4),
                subgroup_max_size: Some(4),
            },
            fallback: None,
            limits: HashMap::new(),
            user_agent: String::new(),
        };
        let info = info(&opened, "Chromium 148.0.7778.167");
        assert_eq!(info.name, "google swiftshader");
        assert_eq!(info.device_type, DeviceType::Cpu);
        assert_eq!(
            info.driver_info,
            "vendor google, architecture swiftshader, device (empty), description (empty)"
        );
        assert_eq!(
            browser(
                "Chromium",
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                 HeadlessChrome/148.0.7778.167 Safari/537.36"
            ),
            "Chromium 148.0.7778.167"
        );
        assert_eq!(
            browser_of_agent(
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, \
                 like Gecko) Version/17.2 Safari/605.1.15"
            ),
            "Safari 17.2"
        );
        assert_eq!(
            browser_of_agent(
                "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0"
            ),
            "Firefox 121.0"
        );
    }
}
