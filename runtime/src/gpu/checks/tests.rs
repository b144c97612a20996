use super::*;
use crate::app::init::Init;
use crate::app::spec::Binding;

fn check(text: &str) -> std::result::Result<Check, String> {
    wgstress_spec::document::check_from_str(text)
}

fn app(bindings: Vec<(u32, u32, Init)>, checks: Vec<Check>) -> App {
    let bindings = bindings
        .into_iter()
        .map(|(binding, words, init)| Binding::storage(binding, words, init))
        .collect();
    App {
        checks,
        ..App::bare("t", "", [1; 3], bindings)
    }
}

/// The check `text` on binding 1 of `words` words, with binding 0 holding `input`, verified
/// against `got`: the message a failure shows.
fn verify(text: &str, input: Init, got: &[u32]) -> Result<(), String> {
    failure(text, input, got).map_err(|failure| failure.to_string())
}

/// The same, the failure as it is.
fn failure(text: &str, input: Init, got: &[u32]) -> Result<(), CheckFailure> {
    prepared(text, input, got.len() as u32).verify(&Outputs::new(vec![((0, 1), got)]))
}

/// The check `text` on binding 1 of `n` words, with binding 0 holding `input`, prepared.
fn prepared(text: &str, input: Init, n: u32) -> Prepared {
    let c = check(text).unwrap();
    let app = app(vec![(0, n, input), (1, n, Init::Zeros)], vec![c.clone()]);
    app.validate().unwrap();
    let slice = c.slice(n).unwrap();
    Prepared {
        expected: expected(&c, &app, &slice).unwrap(),
        slice,
        check: c,
    }
}

fn f(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn i(values: &[i32]) -> Vec<u32> {
    values.iter().map(|v| *v as u32).collect()
}

#[test]
fn every_kind_parses_and_bad_checks_are_refused() {
    let ok = [
        r#"binding = 1
kind = "sorted-permutation"
of = 0
type = "f32""#,
        "binding = 1\nkind = \"inclusive-scan\"\nof = 0\nop = \"max\"\ntype = \"i32\"",
        "binding = 1\nkind = \"prefix-sum\"\nof = 0",
        "binding = 1\nkind = \"exclusive-scan\"\nof = 0",
        "binding = 1\nkind = \"equals\"\ntype = \"f32\"\nfill = 0.5\ntolerance = { relative = 1e-6 }",
        "binding = 1\nkind = \"equals\"\nof = 0\nof_group = 0",
        "binding = 1\nname = \"ref\"\nkind = \"reference\"\nentry = \"simple\"\nworkgroups = [1]",
        "binding = 1\nkind = \"sorted\"",
    ];
    for text in ok {
        check(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    assert_eq!(
        check("binding = 1\nkind = \"prefix-sum\"\nof = 0")
            .unwrap()
            .rule,
        check("binding = 1\nkind = \"inclusive-scan\"\nof = 0")
            .unwrap()
            .rule
    );
    let bad = [
        (
            "binding = 1\nkind = \"sorted\"\ntyp = \"f32\"",
            "unexpected keys in table: typ",
        ),
        (
            "binding = 1\nkind = \"sorted-permutation\"\nof = 0\norder = 1",
            "unknown field `order`",
        ),
        (
            "binding = 1\nkind = \"equals\"\nfill = 1\ntolerance = { absolute = 1 }",
            "a tolerance needs type = \"f32\"",
        ),
        (
            "binding = 1\nkind = \"equals\"\nfill = 1\nvalues = [1]",
            "exactly one of `values`, `fill` and `of`",
        ),
        (
            "binding = 1\nkind = \"equals\"\nfill = -1",
            "-1 is not a u32",
        ),
        (
            "binding = 1\nkind = \"equals\"\ntype = \"f32\"\nfill = 1\ntolerance = {}",
            "tolerance.absolute and/or tolerance.relative",
        ),
        (
            "binding = 1\nkind = \"inclusive-scan\"\nof = 0\nop = \"mul\"",
            "unknown variant `mul`",
        ),
        (
            "binding = 1\nkind = \"reference\"\nentry = \"r\"\nworkgroups = [0]",
            "workgroups: every size must be at least 1",
        ),
    ];
    for (text, expected) in bad {
        let message = check(text).unwrap_err();
        assert!(message.contains(expected), "{text}: {message}");
    }
}

#[test]
fn sizes_are_checked_against_the_bindings() {
    let c = check("binding = 1\nkind = \"equals\"\nvalues = [1, 2, 3]").unwrap();
    let a = app(vec![(0, 4, Init::Zeros), (1, 4, Init::Zeros)], vec![c]);
    assert_eq!(
        a.validate().unwrap_err().to_string(),
        "[[check]] 1: `values` has 3 values for the 4 checked elements (set `count` to check fewer)"
    );
    let c = check("binding = 1\nkind = \"equals\"\nwords = 3\nvalues = [1, 2, 3]").unwrap();
    assert!(app(vec![(0, 4, Init::Zeros), (1, 4, Init::Zeros)], vec![c])
        .validate()
        .is_ok());
    let c = check("binding = 1\nkind = \"sorted-permutation\"\nof = 0").unwrap();
    let a = app(vec![(0, 2, Init::Zeros), (1, 4, Init::Zeros)], vec![c]);
    assert_eq!(
        a.validate().unwrap_err().to_string(),
        "[[check]] 1: binding 0:0 has 2 words, fewer than the 4 the checked elements reach"
    );
    let c = check("binding = 1\nkind = \"all-equal\"\nvalue = 0\nstart = 2\ncount = 2\nstride = 2")
        .unwrap();
    let a = app(vec![(1, 4, Init::Zeros)], vec![c]);
    assert_eq!(
        a.validate().unwrap_err().to_string(),
        "[[check]] 1: 2 elements from 2 every 2 pass the binding's 4 words (at most 1)"
    );
    let c = check("binding = 1\nkind = \"all-equal\"\nvalue = 0\nwords = 2\ncount = 2").unwrap();
    let a = app(vec![(1, 4, Init::Zeros)], vec![c]);
    assert!(a.validate().unwrap_err().to_string().contains("not both"));
}

#[test]
fn a_slice_compares_its_elements_with_the_whole_bindings_expected_values() {
    let input = Init::Words {
        words: vec![1, 2, 3, 4, 5, 6, 7, 8],
    };
    // Every other element of an inclusive scan: 3, 10, 21, 36 at indices 1, 3, 5, 7.
    let scan = "binding = 1\nkind = \"inclusive-scan\"\nof = 0\nstart = 1\nstride = 2";
    let mut got = vec![0, 3, 0, 10, 0, 21, 0, 36];
    verify(scan, input.clone(), &got).unwrap();
    got[5] = 20;
    let wrong = verify(scan, input.clone(), &got).unwrap_err();
    assert!(
        wrong.contains("binding 0:1 [1..=7 step 2]: 1 of 4 elements wrong: [5] = 20 (expected 21)"),
        "{wrong}"
    );
    // The last element holds the total.
    let total = "binding = 1\nkind = \"sum\"\nof = 0\nlast = true";
    verify(total, input.clone(), &[9, 9, 9, 9, 9, 9, 9, 36]).unwrap();
    let wrong = verify(total, input.clone(), &[36, 0, 0, 0, 0, 0, 0, 35]).unwrap_err();
    assert!(
        wrong.contains("[7]: 1 of 1 element wrong: [7] = 35 (expected 36)"),
        "{wrong}"
    );
    // A sum without a slice checks the first element, as it always did.
    verify(
        "binding = 1\nkind = \"sum\"\nof = 0",
        input.clone(),
        &[36, 1, 2, 3, 4, 5, 6, 7],
    )
    .unwrap();
    // A sorted middle: the pairs out of order are named by their index in the binding.
    let sorted = "binding = 1\nkind = \"sorted\"\nstart = 2\ncount = 4";
    verify(sorted, input.clone(), &[9, 9, 1, 2, 3, 4, 0, 0]).unwrap();
    let wrong = verify(sorted, input, &[9, 9, 1, 3, 2, 4, 0, 0]).unwrap_err();
    assert!(wrong.contains("[3] = 3 > [4] = 2"), "{wrong}");
}

#[test]
fn sorted_permutation_by_type() {
    let text = "binding = 1\nkind = \"sorted-permutation\"\nof = 0\ntype = \"i32\"";
    let input = Init::Words {
        words: i(&[3, -1, 2, -7]),
    };
    assert_eq!(verify(text, input.clone(), &i(&[-7, -1, 2, 3])), Ok(()));
    // As u32 words, -7 and -1 sort last.
    assert!(verify(
        "binding = 1\nkind = \"sorted-permutation\"\nof = 0",
        input.clone(),
        &i(&[-7, -1, 2, 3])
    )
    .is_err());
    let swapped = verify(text, input.clone(), &i(&[-7, 2, -1, 3])).unwrap_err();
    assert_eq!(
        swapped,
        "sorted-permutation (i32) of 0:0: binding 0:1: not sorted (1 of 3 pairs out of order: \
         [1] = 2 > [2] = -1); 2 of 4 elements wrong: [1] = 2 (expected -1), [2] = -1 (expected 2)"
    );
    let lost = verify(text, input, &i(&[-7, -1, 2, 2])).unwrap_err();
    assert_eq!(
        lost,
        "sorted-permutation (i32) of 0:0: binding 0:1: not a permutation of 0:0: 1 value \
         missing (3), 1 extra (2); 1 of 4 elements wrong: [3] = 2 (expected 3)"
    );
}

#[test]
fn a_failure_names_its_check_binding_elements_and_findings() {
    let text = "binding = 1\nname = \"ordered\"\nkind = \"sorted-permutation\"\nof = 0\nstart = 1";
    let input = Init::Words {
        words: vec![9, 1, 2, 3],
    };
    let Err(CheckFailure::Check(wrong)) = failure(text, input, &[0, 3, 1, 5]) else {
        panic!("a failed check of the spec");
    };
    assert_eq!(wrong.check, "check `ordered`");
    assert_eq!(wrong.binding, (0, 1));
    assert_eq!((wrong.slice.start, wrong.slice.count), (1, 3));
    let Found::NotSortedPermutation {
        order: Some(order),
        values: Some(values),
        mismatches,
        ty: ElementType::U32,
    } = wrong.found
    else {
        panic!("out of order and other values: {:?}", wrong.found);
    };
    assert_eq!(
        order.first,
        [[(1, 3), (2, 1)]],
        "by their index in the binding"
    );
    assert_eq!(
        (values.of, values.first_missing, values.first_extra),
        ((0, 0), vec![2], vec![5])
    );
    assert_eq!(mismatches.first, [(1, 3, 1), (2, 1, 2), (3, 5, 3)]);
    let unread = prepared("binding = 1\nkind = \"sorted\"", Init::Zeros, 4);
    assert_eq!(
        unread.verify(&Outputs::new(Vec::new())),
        Err(CheckFailure::NotReadBack {
            binding: (0, 1),
            buffer: None
        })
    );
}

#[test]
fn sorted_as_its_type() {
    let sorted = |ty: &str| format!("binding = 1\nkind = \"sorted\"\ntype = \"{ty}\"");
    let got = i(&[-3, -1, 0, 2]);
    assert_eq!(verify(&sorted("i32"), Init::Zeros, &got), Ok(()));
    assert_eq!(
        verify(&sorted("u32"), Init::Zeros, &got).unwrap_err(),
        "sorted (u32): binding 0:1: 1 of 3 pairs out of order: [1] = 4294967295 > [2] = 0"
    );
    assert_eq!(
        verify(
            &sorted("f32"),
            Init::Zeros,
            &f(&[-1.5, 0.0, -0.0, f32::NAN])
        ),
        Ok(())
    );
}

#[test]
fn sorted_permutation_of_f32_lets_zeros_come_in_either_order() {
    let text = "binding = 1\nkind = \"sorted-permutation\"\nof = 0\ntype = \"f32\"";
    let input = Init::Words {
        words: f(&[0.5, -0.0, 0.0, -2.5]),
    };
    assert_eq!(
        verify(text, input.clone(), &f(&[-2.5, -0.0, 0.0, 0.5])),
        Ok(())
    );
    assert_eq!(
        verify(text, input.clone(), &f(&[-2.5, 0.0, -0.0, 0.5])),
        Ok(())
    );
    let wrong = verify(text, input, &f(&[-2.5, 0.0, 0.5, -0.0])).unwrap_err();
    assert!(wrong.contains("[2] = 0.5 > [3] = -0.0"), "{wrong}");
}

#[test]
fn scans_inclusive_and_exclusive() {
    let input = Init::Words {
        words: vec![1, 2, 3, u32::MAX],
    };
    let inclusive = "binding = 1\nkind = \"inclusive-scan\"\nof = 0";
    let exclusive = "binding = 1\nkind = \"exclusive-scan\"\nof = 0";
    // u32 addition wraps.
    assert_eq!(verify(inclusive, input.clone(), &[1, 3, 6, 5]), Ok(()));
    assert_eq!(verify(exclusive, input.clone(), &[0, 1, 3, 6]), Ok(()));
    assert_eq!(
        verify(exclusive, input.clone(), &[1, 3, 6, 5]).unwrap_err(),
        "exclusive-scan (add, u32) of 0:0: binding 0:1: 4 of 4 elements wrong: [0] = 1 \
         (expected 0), [1] = 3 (expected 1), [2] = 6 (expected 3), [3] = 5 (expected 6)"
    );
    let max = "binding = 1\nkind = \"exclusive-scan\"\nof = 0\nop = \"max\"\ntype = \"i32\"";
    let signed = Init::Words {
        words: i(&[-5, -9, 4, 1]),
    };
    assert_eq!(
        verify(max, signed.clone(), &i(&[i32::MIN, -5, -5, 4])),
        Ok(())
    );
    let min = "binding = 1\nkind = \"inclusive-scan\"\nof = 0\nop = \"min\"\ntype = \"i32\"";
    assert_eq!(verify(min, signed, &i(&[-5, -9, -9, -9])), Ok(()));
    let fadd = "binding = 1\nkind = \"inclusive-scan\"\nof = 0\ntype = \"f32\"\n\
                tolerance = { relative = 1e-6 }";
    let floats = Init::Words {
        words: f(&[0.1, 0.2, 0.3, 0.4]),
    };
    assert_eq!(
        verify(fadd, floats.clone(), &f(&[0.1, 0.3, 0.6, 1.0])),
        Ok(())
    );
    assert!(verify(fadd, floats, &f(&[0.1, 0.3, 0.6, 1.001])).is_err());
}

#[test]
fn equality_within_a_tolerance() {
    let values = |tol: &str| {
        format!("binding = 1\nkind = \"equals\"\ntype = \"f32\"\nvalues = [1, 100, -2]\n{tol}")
    };
    let got = f(&[1.000_01, 100.001, -2.0]);
    assert!(verify(&values(""), Init::Zeros, &got).is_err());
    assert_eq!(
        verify(
            &values("tolerance = { absolute = 1e-2 }"),
            Init::Zeros,
            &got
        ),
        Ok(())
    );
    // Relative to the expected value: 1e-5 of 100 is 1e-3, of 1 only 1e-5.
    assert_eq!(
        verify(
            &values("tolerance = { relative = 1.1e-5 }"),
            Init::Zeros,
            &got
        ),
        Ok(())
    );
    assert_eq!(
        verify(
            &values("tolerance = { relative = 1e-6 }"),
            Init::Zeros,
            &got
        )
        .unwrap_err(),
        "equals (f32) values: binding 0:1: 2 of 3 elements wrong: [0] = 1.00001 (expected \
         1.0), [1] = 100.001 (expected 100.0)"
    );
    // Either bound suffices.
    assert_eq!(
        verify(
            &values("tolerance = { absolute = 2e-5, relative = 1.1e-5 }"),
            Init::Zeros,
            &got
        ),
        Ok(())
    );
    let fill = "binding = 1\nname = \"halves\"\nkind = \"equals\"\ntype = \"f32\"\nfill = 0.5";
    assert_eq!(
        verify(fill, Init::Zeros, &f(&[0.5, 0.5, 0.25])).unwrap_err(),
        "check `halves`: binding 0:1: 1 of 3 elements wrong: [2] = 0.25 (expected 0.5)"
    );
    let of = "binding = 1\nkind = \"equals\"\nof = 0\ntype = \"i32\"";
    let input = Init::Words { words: i(&[-1, 2]) };
    assert_eq!(verify(of, input.clone(), &i(&[-1, 2])), Ok(()));
    assert!(verify(of, input, &i(&[-1, 3])).is_err());
}

#[test]
fn a_report_lists_the_first_few_and_counts_the_rest() {
    let got: Vec<u32> = (0..100).collect();
    let m = Mismatches::find(&got, &[7; 100], |g, e| g == e);
    assert_eq!(m.wrong, 99);
    assert_eq!(
        m.describe(ElementType::U32),
        "99 of 100 elements wrong: [0] = 0 (expected 7), [1] = 1 (expected 7), [2] = 2 \
         (expected 7), [3] = 3 (expected 7), ..."
    );
    let all_equal = "binding = 1\nkind = \"all-equal\"\nvalue = 4";
    assert_eq!(
        verify(all_equal, Init::Zeros, &[4, 5, 4]).unwrap_err(),
        "all-equal 4: binding 0:1: 1 of 3 elements wrong: [1] = 5 (expected 4)"
    );
}

/// Every `[[binding]]` and `[[check]]` table in docs/specs.md's TOML blocks parses, and every
/// binding's `init` fits its `words`; the blocks' other keys (the top level, `[[dispatch]]`,
/// `[constants]`) are tests/specs.rs's business.
#[test]
fn the_documented_examples_parse() {
    let doc = include_str!("../../../../docs/specs.md");
    let blocks: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert!(blocks.len() >= 8, "{} blocks", blocks.len());
    let (mut bindings, mut checks) = (0, 0);
    for block in blocks {
        let tables = wgstress_spec::document::tables_from_str(block)
            .unwrap_or_else(|e| panic!("{block}: {e}"));
        for b in &tables.binding {
            b.init.check(b.words).unwrap();
        }
        bindings += tables.binding.len();
        checks += tables.check.len();
    }
    // The init kinds' example declares two bindings, the check kinds' three checks and the
    // reference kernel's one, beside the single kernel's and the pipeline's own tables.
    assert!(bindings >= 5, "{bindings} bindings");
    assert!(checks >= 5, "{checks} checks");
}
