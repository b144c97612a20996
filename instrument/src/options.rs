//! What the caller asks of the instrumenter.

#[derive(Clone, Debug, Default)]
pub struct InstrumentOptions {
    /// The application entry point; may be left out when the shader has one compute entry
    /// point besides the postcondition.
    pub entry: Option<String>,
    /// The postcondition entry point; when left out, a `// wgstress: postcondition NAME`
    /// comment in the source names it, if there is one.
    pub postcondition: Option<String>,
    /// Name of the source file, for diagnostics and the manifest.
    pub file_name: Option<String>,
    /// Values for the shader's `override` declarations, by name or `@id`; values for
    /// overrides the shader does not declare are ignored. Every override is resolved before
    /// instrumenting, so the instrumented module has none.
    pub constants: Vec<(String, f64)>,
    /// The bind group for wgstress's own bindings; by default the lowest the shader leaves
    /// free. A pipeline of several shaders gives all of them the same.
    pub bind_group: Option<u32>,
    /// Instrument only the postcondition (`postcondition` names it): a postcondition in a
    /// file of its own, without the application's entry point. The manifest's `entry_point`
    /// is then the postcondition too.
    pub postcondition_only: bool,
    /// Whether the shader can hold a workgroup back, as runs under a progress model other
    /// than fair (`--schedule`) or an occupancy bound (`--occupancy`) do. Without it the hooks
    /// at loops and at a workgroup's start carry no holding code, which costs some
    /// applications most of their speed though it never runs (on llvmpipe, code under a
    /// condition that differs between invocations runs for every invocation, masked).
    pub parking: bool,
    /// Whether, with parking, the workgroups can take their steps in a script's order
    /// (`RunParams::script`, the emulator test). Without it the loops' hooks carry no waiting
    /// loop, which on llvmpipe doubled what each iteration of a loop spends of its 65,535
    /// though it never ran.
    pub scripting: bool,
    /// Whether, with parking, a run can hold a workgroup after each of its writes to storage
    /// (passes/holds.rs): what `progress APP` and `run --schedule` draw among. A shader's
    /// runs that hold at loop steps only (the emulator test) are built without: a hook per
    /// write costs each iteration of a loop that writes, even in runs that never hold there.
    pub hold_writes: bool,
    /// Whether the application's workgroup ids can be given in the order its workgroups
    /// start, as runs on a device that starts them out of id order do
    /// (`WgstressParams::in_order`): the first invocation of each takes the next id and the
    /// workgroup reads it with `workgroupUniformLoad`, a barrier that the shader otherwise
    /// does without (llvmpipe runs a shader with barriers as coroutines, slower).
    pub start_order: bool,
}
