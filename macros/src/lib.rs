//! Attribute macros that declare a Rust GPU application for wgstress.
//!
//! ```ignore
//! #[derive(Clone, Application)]
//! #[wgstress(name = "cbe-dot", shader = "wgsl/cbe_dot.wgsl")]
//! struct Dot {
//!     #[storage(binding = 0)] a: Vec<u32>,
//!     #[storage(binding = 2)] total: Vec<u32>,
//!     #[dispatch] groups: [u32; 3],
//!     #[constant(name = "FENCES")] fixed: bool,
//! }
//!
//! #[postconditions]
//! impl Dot {
//!     #[postcondition]
//!     fn total_is_exact(&self, total: &[u32]) -> Result<(), String> { ... }
//! }
//! ```

mod application;
mod postconditions;

use proc_macro::TokenStream;

/// Implements `wgstress_runtime::app::spec::Application` for a struct whose fields are its
/// buffers (`#[storage(binding = N)]`, `#[uniform(binding = N)]`, `Vec<u32>` initial
/// contents, `group = G` optional), its dispatch size (`#[dispatch]`, `[u32; 3]`) or its
/// pipeline (`#[pipeline]`, `Vec<wgstress_runtime::app::spec::Dispatch>`: the dispatches of one
/// run, in order), the
/// postcondition kernel's dispatch (`#[post_dispatch]`) and pipeline-override constants
/// (`#[constant(name = "NAME")]`). The struct attribute `#[wgstress(...)]` takes `name`,
/// `shader` (a path from the crate's root, an absolute path, or `$NAME/...` from the build-time
/// environment variable NAME, such as `$OUT_DIR/gen.wgsl` for a shader a build script
/// writes), and optionally `entry`, `postcondition`
/// (a GPU-side postcondition entry point) and `postcondition_shader` (the file it lives in,
/// when not `shader`). The struct must be `Clone + Send + Sync + 'static`
/// and have a `#[postconditions]` impl block.
#[proc_macro_derive(
    Application,
    attributes(
        wgstress,
        storage,
        uniform,
        dispatch,
        pipeline,
        post_dispatch,
        constant
    )
)]
pub fn derive_application(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    application::expand(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `wgstress_runtime::app::spec::Postconditions` from the `#[postcondition]` methods of
/// an impl block. Each takes `&self` and read-back buffers named after the struct's buffer
/// fields, as `&[u32]`, and returns `Result<(), String>`; a failure reaches the runtime as
/// `CheckFailure::Postcondition`, with the method's name and its message.
#[proc_macro_attribute]
pub fn postconditions(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new_spanned(attr, "#[postconditions] takes no arguments")
            .into_compile_error()
            .into();
    }
    let item = syn::parse_macro_input!(item as syn::ItemImpl);
    postconditions::expand(item)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
