// Systematic stress: threads spread evenly over the K chosen patches, each running the
// access sequence on its patch's stressed word.
fn wgstress_stress_patches(thread: u32) {
    let k = clamp(wgstress_params.spread, 1u, 64u);
    let slot = thread % k;
    let chosen = wgstress_params.patches[slot / 4u][slot % 4u];
    let word = wgstress_word(chosen * wgstress_params.patch_words + wgstress_params.patch_offset);
    let len = min(wgstress_params.sequence_len, 5u);
    var acc = 0u;
    for (var i = 0u; i < wgstress_params.iterations; i++) {
        for (var s = 0u; s < len; s++) {
            if ((wgstress_params.sequence >> s) & 1u) == 1u {
                atomicStore(&wgstress_scratch[word], i);
            } else {
                acc += atomicLoad(&wgstress_scratch[word]);
            }
        }
    }
    wgstress_sink(acc);
}

