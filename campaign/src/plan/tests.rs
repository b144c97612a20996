use super::{CampaignPlan, Command};
use std::path::Path;

fn accept(_: &[String]) -> Result<(), String> {
    Ok(())
}

fn parse(text: &str) -> crate::error::Result<CampaignPlan> {
    CampaignPlan::parse(Path::new("dir/plan.toml"), text, &accept)
}

fn error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn items_are_described_canonically_whatever_the_order_of_their_keys() {
    let a =
        parse("[[item]]\ncommand = \"run\"\napp = \"cub-scan\"\ntime = 20\nvariant = \"buggy\"\n")
            .unwrap();
    let b =
        parse("[[item]]\nvariant = \"buggy\"\ntime = 20\napp = \"cub-scan\"\ncommand = \"run\"\n")
            .unwrap();
    let (a, b) = (&a.items[0], &b.items[0]);
    assert_eq!(a.description, "run cub-scan --time 20 --variant buggy");
    assert_eq!((a.hash, &a.key), (b.hash, &b.key));
    assert_eq!(a.name, a.description);
    assert_eq!(a.app_args, ["cub-scan", "--variant", "buggy"]);
    assert!(
        a.key.starts_with("run-cub-scan-time-20-variant-buggy-"),
        "{}",
        a.key
    );
}

#[test]
fn defaults_apply_per_command_and_items_override_them() {
    let plan = parse(
        "master_seed = \"0xffffffffffffffff\"\n[defaults.run]\ntime = 5\nstrategy = \"cache\"\n\n\
         [[item]]\ncommand = \"run\"\napp = [\"a\", \"b\"]\ntime = 1\nno_shuffle = true\nbuffer-shuffle = false\n\n\
         [[item]]\ncommand = \"litmus\"\ntest = \"mp\"\niterations = 10\n",
    )
    .unwrap();
    assert_eq!(plan.master_seed, u64::MAX);
    let d: Vec<_> = plan.items.iter().map(|i| i.description.as_str()).collect();
    assert_eq!(
        d,
        [
            "run a --no-shuffle --strategy cache --time 1",
            "run b --no-shuffle --strategy cache --time 1",
            "litmus mp --iterations 10",
        ]
    );
    assert_eq!(plan.items[2].command, Command::Litmus);
}

#[test]
fn spec_paths_are_resolved_against_the_plan_but_described_as_written() {
    let plan = parse("[[item]]\ncommand = \"run\"\napp = \"specs/x.toml\"\nprofile = \"p.json\"\n")
        .unwrap();
    let item = &plan.items[0];
    assert_eq!(item.description, "run specs/x.toml --profile p.json");
    assert!(
        item.args[1].ends_with("dir/specs/x.toml"),
        "{:?}",
        item.args
    );
    assert!(Path::new(&item.args[1]).is_absolute());
    assert!(
        item.args[2].starts_with("--profile=") && item.args[2].ends_with("dir/p.json"),
        "{:?}",
        item.args
    );
}

#[test]
fn a_value_that_starts_with_dashes_stays_a_value() {
    // `strategy = "--list"` once reached the item's command line as a flag of its own.
    let plan =
        parse("[[item]]\ncommand = \"run\"\napp = \"cub-scan\"\nstrategy = \"--list\"\n").unwrap();
    assert_eq!(plan.items[0].args, ["run", "cub-scan", "--strategy=--list"]);
    assert_eq!(plan.items[0].description, "run cub-scan --strategy --list");
    let refused = error("[[item]]\ncommand = \"litmus\"\ntest = \"--list\"\n");
    assert!(
        refused.starts_with("dir/plan.toml:3:8: `test` = `--list`: a name that starts with `-`"),
        "{refused}"
    );
}

#[test]
fn bad_plans_are_refused_at_file_line_column() {
    let cases = [
        ("seed = 1\n", "dir/plan.toml:1:1: unknown field `seed`"),
        (
            "[[item]]\ncommand = \"tune\"\n",
            "dir/plan.toml:2:11: unknown command `tune`",
        ),
        ("[[item]]\napp = \"a\"\n", "the item has no `command`"),
        ("[[item]]\ncommand = \"run\"\n", "a `run` item needs `app`"),
        (
            "[[item]]\ncommand = \"run\"\napp = \"a\"\nlog = \"x\"\n",
            "dir/plan.toml:4:7: `log` is set by the campaign",
        ),
        (
            "[[item]]\ncommand = \"litmus\"\napp = \"a\"\n",
            "`litmus` takes no `app`",
        ),
        (
            "[[item]]\ncommand = \"run\"\napp = \"a\"\ntime = { x = 1 }\n",
            "dir/plan.toml:4:8: `time`: give a string",
        ),
        (
            "[[item]]\ncommand = \"run\"\napp = [\"a\", \"a\"]\n",
            "appears twice",
        ),
        (
            "[defaults.tune]\ntime = 1\n",
            "[defaults.tune]: no such command",
        ),
        ("name = \"x\"\n", "the plan has no [[item]]"),
        (
            "master_seed = -1\n[[item]]\n",
            "dir/plan.toml:1:15: master_seed",
        ),
    ];
    for (text, expected) in cases {
        let message = error(text);
        assert!(
            message.contains(expected),
            "{text:?}: `{message}` lacks `{expected}`"
        );
    }
}

#[test]
fn the_check_sees_each_item_and_its_refusal_names_the_item() {
    let refuse = |args: &[String]| -> Result<(), String> {
        match args.iter().any(|a| a.starts_with("--bogus")) {
            true => Err("unexpected argument '--bogus' found".into()),
            false => Ok(()),
        }
    };
    let text = "[[item]]\ncommand = \"run\"\napp = \"a\"\n\n[[item]]\ncommand = \"run\"\napp = \"b\"\nbogus = 1\n";
    let message = CampaignPlan::parse(Path::new("p.toml"), text, &refuse)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "p.toml:5:1: `run b --bogus 1`: unexpected argument '--bogus' found"
    );
}

#[test]
fn the_digest_changes_with_the_seed_and_the_items() {
    let one = parse("[[item]]\ncommand = \"run\"\napp = \"a\"\n").unwrap();
    let seeded = parse("master_seed = 2\n[[item]]\ncommand = \"run\"\napp = \"a\"\n").unwrap();
    let other = parse("[[item]]\ncommand = \"run\"\napp = \"b\"\n").unwrap();
    assert_ne!(one.digest, seeded.digest);
    assert_ne!(one.digest, other.digest);
    assert_eq!(one.name, "plan");
}

#[test]
fn a_plan_of_20000_items_parses_in_time_linear_in_its_length() {
    // Each item's place was found by counting lines from the start, and each item compared
    // with every one before it: listing 20,000 items took 20 s.
    let text: String = (0..20_000)
        .map(|i| {
            format!(
                "[[item]]\ncommand = \"litmus\"\ntest = \"mp\"\niterations = {}\n\n",
                i + 1
            )
        })
        .collect();
    let start = std::time::Instant::now();
    let plan = parse(&text).unwrap();
    let took = start.elapsed();
    assert_eq!(plan.items.len(), 20_000);
    assert_eq!(plan.items[19_999].at.line, 5 * 19_999 + 1);
    // 2.3 s in a debug build on a busy machine; 164 s before.
    assert!(took.as_secs_f64() < 10.0, "{took:?}");
}

#[test]
fn progress_items_and_raw_runs_may_hang_the_machine_and_nothing_else() {
    let plan = parse(
        "[[item]]\ncommand = \"run\"\napp = [\"a\"]\nvariant = \"buggy\"\n\n\
         [[item]]\ncommand = \"run\"\napp = [\"b\"]\nraw = true\n\n\
         [[item]]\ncommand = \"run\"\napp = [\"c\"]\nraw = false\n\n\
         [[item]]\ncommand = \"progress\"\nsuite = true\n\n\
         [[item]]\ncommand = \"litmus\"\ntest = \"mp\"\n",
    )
    .unwrap();
    let hangs: Vec<bool> = plan.items.iter().map(|i| i.may_hang()).collect();
    assert_eq!(hangs, [false, true, false, true, false]);
}
