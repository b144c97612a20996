//! Make-atomic on global-barrier: the stencil with plain `array<u32>` cells, rewritten by the
//! pass, validates and computes what the bundled app (atomic cells) computes with FENCES on.

mod common;

use common::{one_llvmpipe_thread, outputs_without_stress};
use wgstress_apps::{find, Size, Variant};
use wgstress_instrument::atomic::make_atomic_wgsl;
use wgstress_tint::{assert_valid, NamedWgsl};

/// The bundled source with plain cells: each edit must apply exactly once.
fn plain_cells(source: &str) -> String {
    let edits = [
        (
            "var<storage, read_write> grid: array<atomic<u32>>;",
            "var<storage, read_write> grid: array<u32>;",
        ),
        (
            "atomicLoad(&grid[src + (i + n - 1u) % n])",
            "grid[src + (i + n - 1u) % n]",
        ),
        (
            "atomicLoad(&grid[src + (i + 1u) % n])",
            "grid[src + (i + 1u) % n]",
        ),
        (
            "atomicStore(&grid[dst + i], left + 2u * atomicLoad(&grid[src + i]) + right);",
            "grid[dst + i] = left + 2u * grid[src + i] + right;",
        ),
    ];
    let mut plain = source.to_string();
    for (from, to) in edits {
        assert_eq!(plain.matches(from).count(), 1, "{from}");
        plain = plain.replace(from, to);
    }
    assert!(!plain.contains("&grid"), "every cell access is plain");
    plain
}

#[test]
fn global_barrier_with_plain_cells_made_atomic_matches_the_bundled_app() {
    one_llvmpipe_thread();
    let bundled = find("global-barrier").unwrap();
    let app = bundled.build(Variant::Fixed, Size::Small);
    let plain = plain_cells(&app.source);
    let rewritten = make_atomic_wgsl(&plain, &app.shader_path, "grid").unwrap();
    assert!(
        rewritten.contains("grid: array<atomic<u32>>;"),
        "{rewritten}"
    );
    assert_valid(&[NamedWgsl::new(
        "global-barrier, grid made atomic",
        rewritten.clone(),
    )]);
    let mut made_atomic = app.clone();
    made_atomic.source = rewritten;
    let want = outputs_without_stress(app);
    assert!(
        want == outputs_without_stress(made_atomic),
        "outputs differ"
    );
}
