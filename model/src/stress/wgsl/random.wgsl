// Random stress: each iteration loads or stores a pseudo-random scratchpad word.
fn wgstress_stress_random(thread: u32) {
    var state = wgstress_hash(wgstress_params.seed ^ wgstress_hash(thread + 1u));
    var acc = 0u;
    for (var i = 0u; i < wgstress_params.iterations; i++) {
        state ^= state << 13u;
        state ^= state >> 17u;
        state ^= state << 5u;
        let word = wgstress_word(state >> 1u);
        if (state & 1u) == 1u {
            atomicStore(&wgstress_scratch[word], i);
        } else {
            acc += atomicLoad(&wgstress_scratch[word]);
        }
    }
    wgstress_sink(acc);
}

