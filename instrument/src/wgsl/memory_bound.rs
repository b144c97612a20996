//! WGSL's bounds on a shader's memory, checked on the parsed module before anything else
//! works on it: 8,192 bytes of `private` variables a shader and 8,192 bytes of `function`
//! variables a function (the WGSL specification's limits, which browsers enforce), and a
//! mebibyte of `workgroup` variables a shader. WebGPU's default limit on workgroup memory is
//! 16,384 bytes, but adapters offer more (lavapipe 32 KiB, NVIDIA's Vulkan drivers 48 KiB) and
//! the device asks for the adapter's limits, so the bound here is one past what any adapter
//! offers, and the adapter's own limit is checked once the device is open. Far past them (`var<private> big:
//! array<u32, 268435456>`, a gigabyte an invocation), the passes, naga and the driver took
//! gigabytes and minutes to start, with no output.
//!
//! Every variable of a space counts, not only those one entry point uses: the bound is
//! checked before anything knows which entry point runs. An array sized by an `override`
//! counts as many elements as the override's default gives (none without one), since the
//! values a command sets come later; the adapter's own limit on workgroup memory is checked
//! once the device is open, on the instrumented module with its overrides resolved.

use crate::error::{InstrumentError, Result};
use crate::wgsl::lines::LineIndex;
use naga::{AddressSpace, Module, Span};

/// WGSL's bound on the `private` variables of a shader, and on the `function` variables of
/// one function, in bytes.
pub(crate) const PRIVATE_BYTES: u64 = 8192;
/// The bound on the `workgroup` variables of a shader before the device opens, in bytes: past
/// the `maxComputeWorkgroupStorageSize` of any adapter (a few hundred KiB at most).
pub(crate) const WORKGROUP_BYTES: u64 = 1 << 20;
pub(crate) const FUNCTION_BYTES: u64 = 8192;

/// Refuses `module` (parsed from `source`, read from `path`) when its private variables, or
/// one function's variables, hold more than WGSL allows, at the variable that crosses it.
pub(crate) fn check(module: &Module, source: &str, path: &str) -> Result<()> {
    let mut layouter = naga::proc::Layouter::default();
    let laid_out = layouter.update(module.to_ctx()).is_ok();
    // A type too large to lay out is past every bound; naga's validator names it.
    let size = |ty: naga::Handle<naga::Type>| match laid_out {
        true => u64::from(layouter[ty].size),
        false => u64::MAX,
    };
    let refuse = |span: Span, what: &str, total: u64, bound: &str| {
        let (line, column) = LineIndex::new(source).position(span);
        let held = match total {
            u64::MAX => "more bytes than a type may hold".to_string(),
            n => format!("{n} bytes"),
        };
        // Built here rather than by shader.rs, which calls this: no cycle between them.
        Err(InstrumentError::Shader {
            summary: format!("{path}:{line}:{column}: {what} hold {held} here, past {bound}"),
            line: Some(line),
            column: Some(column),
        })
    };
    let wgsl_limit = format!("WGSL's limit of {PRIVATE_BYTES} bytes");
    let function_limit = format!("WGSL's limit of {FUNCTION_BYTES} bytes");
    let any_adapter = format!("what any adapter offers ({WORKGROUP_BYTES} bytes)");
    for (space, name, limit, bound) in [
        (AddressSpace::Private, "private", PRIVATE_BYTES, &wgsl_limit),
        (
            AddressSpace::WorkGroup,
            "workgroup",
            WORKGROUP_BYTES,
            &any_adapter,
        ),
    ] {
        let mut held = 0u64;
        for (handle, global) in module.global_variables.iter() {
            if global.space == space {
                held = held.saturating_add(size(global.ty));
                if held > limit {
                    let span = module.global_variables.get_span(handle);
                    let what = format!("the shader's `{name}` variables");
                    return refuse(span, &what, held, bound);
                }
            }
        }
    }
    let functions = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|e| &e.function));
    for function in functions {
        let mut held = 0u64;
        for (handle, local) in function.local_variables.iter() {
            held = held.saturating_add(size(local.ty));
            if held > FUNCTION_BYTES {
                let span = function.local_variables.get_span(handle);
                return refuse(span, "a function's variables", held, &function_limit);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(source: &str) -> std::result::Result<(), String> {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        check(&module, source, "big.wgsl").map_err(|e| e.to_string())
    }

    #[test]
    fn private_workgroup_and_function_memory_past_wgsls_limits_is_refused_at_the_variable() {
        let fits = "var<private> a: array<u32, 2048>;\nfn f() { var b: array<u32, 2048>; }";
        assert_eq!(checked(fits), Ok(()));
        let error =
            checked("var<private> a: array<u32, 16>;\nvar<private> big: array<u32, 268435456>;")
                .unwrap_err();
        assert!(error.starts_with("big.wgsl:2:"), "{error}");
        assert!(
            error.contains(
                "`private` variables hold 1073741888 bytes here, past WGSL's limit of 8192"
            ),
            "{error}"
        );
        // Past WebGPU's default 16,384 bytes, within what adapters offer: the adapter judges.
        let fits = "var<workgroup> a: array<u32, 8192>;\nvar<workgroup> b: array<u32, 8192>;";
        assert_eq!(checked(fits), Ok(()));
        let error = checked(
            "var<workgroup> a: array<u32, 262144>;\n\nvar<workgroup>  tile: array<u32, 1>;",
        )
        .unwrap_err();
        assert!(error.starts_with("big.wgsl:3:1:"), "{error}");
        assert!(
            error.contains(
                "`workgroup` variables hold 1048580 bytes here, past what any adapter offers \
                 (1048576 bytes)"
            ),
            "{error}"
        );
        let error = checked("fn f() {\n  var a: array<u32, 2049>;\n}").unwrap_err();
        assert!(error.starts_with("big.wgsl:2:"), "{error}");
        assert!(
            error.contains("a function's variables hold 8196 bytes"),
            "{error}"
        );
    }
}
