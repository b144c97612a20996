// Cache stress: all stressing threads together stream over the whole scratchpad,
// one load and one store per word.
fn wgstress_stress_cache(thread: u32, threads: u32) {
    var word = wgstress_word(thread);
    var acc = 0u;
    for (var i = 0u; i < wgstress_params.iterations; i++) {
        acc += atomicLoad(&wgstress_scratch[word]);
        atomicStore(&wgstress_scratch[word], acc);
        word = wgstress_word(word + threads);
    }
    wgstress_sink(acc);
}

