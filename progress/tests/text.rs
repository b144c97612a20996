//! The text format: read as the seed's tests are written, printed back the same, and bad
//! input named at its line and column.

use wgstress_progress::suite::seed_examples;
use wgstress_progress::{AxbTest, BranchTarget, Instr};

#[test]
fn tests_read_back_what_they_print() {
    for (_, test) in seed_examples() {
        assert_eq!(AxbTest::parse(&test.to_string()).unwrap(), test);
    }
}

#[test]
fn blank_lines_and_spacing_do_not_matter() {
    let test = AxbTest::parse("\n  THREAD0\n\natomic_exch_branch( 0,1 , 1,END )\n\nTHREAD1\n atomic_chk_branch(1, 0, 0)  \n")
        .unwrap();
    assert_eq!(
        test.threads()[0][0],
        Instr::Exch {
            loc: 0,
            check: 1,
            exch: 1,
            target: BranchTarget::End
        }
    );
    assert_eq!(
        test.threads()[1][0],
        Instr::Chk {
            loc: 1,
            check: 0,
            target: BranchTarget::Inst(0)
        }
    );
}

#[test]
fn bad_input_is_named_at_its_line_and_column() {
    let cases = [
        ("atomic_store(0, 1)\n", "1:1: expected `THREAD0` before the first instruction"),
        ("THREAD1\n", "1:1: expected `THREAD0` (threads are numbered from 0, in order), found `THREAD1`"),
        ("THREAD0\n  atomic_store(2, 1)\n", "2:16: a location must be 0 or 1, found `2`"),
        ("THREAD0\natomic_chk_branch(0, 1)\n", "2:18: `atomic_chk_branch` takes 3 arguments, not 2"),
        ("THREAD0\natomic_swap(0, 1)\n", "2:1: unknown instruction `atomic_swap` (atomic_exch_branch, atomic_chk_branch or atomic_store)"),
        ("THREAD0\natomic_chk_branch(0, 1, 5)\n", "2:25: target 5 is past THREAD0's last instruction (0); give an instruction index or END"),
        ("THREAD0\natomic_chk_branch(0, 1, x)\n", "2:25: a target is an instruction index or END, found `x`"),
        ("THREAD0\nTHREAD1\natomic_store(0, 1)\n", "1:1: THREAD0 has no instructions"),
        ("", "1:1: no threads: a test starts with a line `THREAD0`"),
        ("THREAD0\natomic_store(0, 1) x\n", "2:19: unexpected text after `)`"),
    ];
    for (text, message) in cases {
        assert_eq!(
            AxbTest::parse(text).unwrap_err().to_string(),
            message,
            "{text:?}"
        );
    }
}
