//! A progress litmus test as data for one shader that runs any test of its thread count: each
//! thread's instructions are words of a storage buffer (`program`), read by a loop of the same
//! shape as `wgsl::shader`'s (one instruction an iteration, the same atomics), so that a GPU
//! driver compiles one shader for thousands of tests. llvmpipe spends about a second compiling
//! each test's own instrumented shader, which made that most of the time of a run of the
//! generated suite; the emulator test (runtime/tests/emulator.rs) runs the suite this way.
//!
//! The program holds, for each thread, its instruction count and then five words per
//! instruction: the operation (0 store, 1 exchange and branch, 2 check and branch), the
//! location, the value compared, the value written and the branch target (END as the count).
//! The other bindings, the parameters, the mapping of threads to workgroups and the status
//! words are `wgsl::shader`'s.

use crate::axb::AxbTest;
use crate::instr::{Instr, MAX_INSTRUCTIONS};
use crate::wgsl::{declarations, entry_point};

/// The binding of the program (read-only storage).
pub const PROGRAM_BINDING: u32 = 3;

/// Words an instruction takes in the program.
const INSTRUCTION_WORDS: usize = 5;

/// Words a thread takes in the program: its count, then its instructions.
const THREAD_WORDS: usize = 1 + MAX_INSTRUCTIONS * INSTRUCTION_WORDS;

/// Words of the program of a test of `threads` threads.
pub fn program_words(threads: usize) -> usize {
    threads * THREAD_WORDS
}

/// `test` as the program the interpreter reads.
pub fn program(test: &AxbTest) -> Vec<u32> {
    let mut words = vec![0; program_words(test.threads().len())];
    for (t, thread) in test.threads().iter().enumerate() {
        let at = t * THREAD_WORDS;
        let len = thread.len();
        words[at] = len as u32;
        for (pc, instr) in thread.iter().enumerate() {
            let encoded = match *instr {
                Instr::Store { loc, value } => [0, loc, 0, value, 0].map(u32::from),
                Instr::Exch {
                    loc,
                    check,
                    exch,
                    target,
                } => [
                    1,
                    u32::from(loc),
                    u32::from(check),
                    u32::from(exch),
                    target.pc(len) as u32,
                ],
                Instr::Chk { loc, check, target } => [
                    2,
                    u32::from(loc),
                    u32::from(check),
                    0,
                    target.pc(len) as u32,
                ],
            };
            let i = at + 1 + pc * INSTRUCTION_WORDS;
            words[i..i + INSTRUCTION_WORDS].copy_from_slice(&encoded);
        }
    }
    words
}

/// The interpreter for tests of `threads` threads.
pub fn shader(threads: usize) -> String {
    let mut s =
        format!("// Progress litmus tests of {threads} threads, interpreted, by wgstress.\n");
    s.push_str(&declarations(threads));
    s.push_str(&format!(
        "@group(0) @binding({PROGRAM_BINDING}) var<storage, read> program: array<u32>;

fn run_thread(at: u32, base: u32) -> u32 {{
    let len = program[at];
    var pc = 0u;
    var steps = 0u;
    loop {{
        if pc >= len || steps >= params.bound {{
            break;
        }}
        steps += 1u;
        let i = at + 1u + pc * {INSTRUCTION_WORDS}u;
        let op = program[i];
        let loc = base + program[i + 1u];
        let check = program[i + 2u];
        let value = program[i + 3u];
        let jump = program[i + 4u];
        switch op {{
            case 0u: {{
                atomicExchange(&mem[loc], value);
                pc += 1u;
            }}
            case 1u: {{
                if atomicExchange(&mem[loc], value) == check {{ pc = jump; }} else {{ pc += 1u; }}
            }}
            default: {{
                if atomicAdd(&mem[loc], 0u) == check {{ pc = jump; }} else {{ pc += 1u; }}
            }}
        }}
    }}
    return select(GAVE_UP, TERMINATED, pc >= len);
}}
"
    ));
    s.push_str(&entry_point(&format!(
        "let result = run_thread(thread * {THREAD_WORDS}u, base);"
    )));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_holds_each_threads_instructions_at_its_stride() {
        let test = AxbTest::parse(
            "THREAD0\natomic_exch_branch(0, 1, 1, 0)\natomic_store(0, 0)\n\
             THREAD1\natomic_chk_branch(1, 0, END)\n",
        )
        .unwrap();
        let words = program(&test);
        assert_eq!(words.len(), 2 * THREAD_WORDS);
        assert_eq!(&words[..11], &[2, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&words[THREAD_WORDS..THREAD_WORDS + 6], &[1, 2, 1, 0, 0, 1]);
    }
}
