use super::*;

fn init(toml_text: &str) -> std::result::Result<Init, String> {
    crate::document::init_from_str(toml_text)
}

fn words(toml_text: &str, n: u32) -> Vec<u32> {
    init(toml_text).unwrap().words(n).unwrap()
}

fn floats(words: &[u32]) -> Vec<f32> {
    words.iter().map(|w| f32::from_bits(*w)).collect()
}

#[test]
fn typed_values_and_fills() {
    let f = words(
        r#"{ kind = "values", type = "f32", values = [0.5, -2, 1e3] }"#,
        4,
    );
    assert_eq!(floats(&f), [0.5, -2.0, 1000.0, 0.0]);
    let i = words(r#"{ kind = "values", type = "i32", values = [-1, 7] }"#, 2);
    assert_eq!(i, [u32::MAX, 7]);
    let u = words(r#"{ kind = "values", values = [4294967295] }"#, 1);
    assert_eq!(u, [u32::MAX]);
    let fill = words(r#"{ kind = "fill", type = "f32", value = 1.5 }"#, 3);
    assert_eq!(floats(&fill), [1.5; 3]);
    let fill = words(r#"{ kind = "fill", type = "i32", value = -3 }"#, 2);
    assert_eq!(fill, [-3i32 as u32; 2]);
}

#[test]
fn repeat_fills_the_binding_with_the_pattern() {
    let r = words(
        r#"{ kind = "repeat", type = "i32", values = [1, -1, 0] }"#,
        7,
    );
    let r: Vec<i32> = r.iter().map(|w| *w as i32).collect();
    assert_eq!(r, [1, -1, 0, 1, -1, 0, 1]);
}

#[test]
fn ranges_of_each_type() {
    assert_eq!(
        words(r#"{ kind = "range", start = 10, step = 3 }"#, 4),
        [10, 13, 16, 19]
    );
    assert_eq!(
        words(r#"{ kind = "range", start = 3, step = -1 }"#, 4),
        [3, 2, 1, 0]
    );
    let i = words(
        r#"{ kind = "range", type = "i32", start = 2, step = -2 }"#,
        4,
    );
    let i: Vec<i32> = i.iter().map(|w| *w as i32).collect();
    assert_eq!(i, [2, 0, -2, -4]);
    let f = words(
        r#"{ kind = "range", type = "f32", start = 0.5, step = 0.1 }"#,
        1001,
    );
    // Computed once per element, not accumulated: the 1000th is as close as f32 gets.
    assert_eq!(f32::from_bits(f[1000]), 100.5);
    assert_eq!(f32::from_bits(f[1]), 0.6);
}

#[test]
fn values_that_are_not_of_their_type_are_refused() {
    let bad = [
        (r#"{ kind = "values", values = [-1] }"#, "-1 is not a u32"),
        (
            r#"{ kind = "values", type = "i32", values = [2147483648] }"#,
            "2147483648 is not a i32",
        ),
        (r#"{ kind = "fill", value = 0.5 }"#, "0.5 is not a u32"),
        (
            r#"{ kind = "fill", type = "f32", value = 1e39 }"#,
            "beyond the range of f32",
        ),
        (
            r#"{ kind = "range", type = "i32", step = 0.5 }"#,
            "step 0.5 is not a whole number",
        ),
        (r#"{ kind = "values", type = "f64", values = [1] }"#, "f64"),
        (r#"{ kind = "fill", type = "f32", valu = 1 }"#, "valu"),
    ];
    for (text, expected) in bad {
        let message = init(text).unwrap_err();
        assert!(message.contains(expected), "{text}: {message}");
    }
}

#[test]
fn sizes_are_checked_against_the_binding() {
    let check = |text: &str, n: u32| init(text).unwrap().check(n);
    assert_eq!(
        check(
            r#"{ kind = "values", type = "f32", values = [1, 2, 3] }"#,
            2
        )
        .unwrap_err(),
        "3 initial values do not fit a binding of 2 words"
    );
    assert!(check(r#"{ kind = "repeat", values = [1, 2, 3] }"#, 2).is_err());
    assert!(check(r#"{ kind = "repeat", values = [] }"#, 2).is_err());
    assert_eq!(
        check(r#"{ kind = "range", start = 3, step = -1 }"#, 5).unwrap_err(),
        "the range reaches -1 at element 4, beyond u32"
    );
    assert!(check(
        r#"{ kind = "range", type = "i32", start = 2147483000, step = 1000 }"#,
        2
    )
    .is_err());
    assert!(check(
        r#"{ kind = "range", type = "f32", start = 3e38, step = 1e38 }"#,
        2
    )
    .is_err());
    assert!(check(
        r#"{ kind = "range", type = "f32", start = 3e38, step = 1e38 }"#,
        1
    )
    .is_ok());
    assert!(Init::Words { words: vec![1; 3] }.words(2).is_err());
}
