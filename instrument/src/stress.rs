//! The runtime library imported into every instrumented module. Its `switch`es over
//! `WgstressParams::strategy` and `WgstressParams::schedule` name the codes through constants
//! written from the strategies' and schedules' tables (`wgstress_model::stress`), so the WGSL
//! cannot drift from them.

use wgstress_model::stress::schedule::Schedule;
use wgstress_model::stress::strategy::Strategy;

/// The library's constant for `strategy`'s code.
fn strategy_constant(strategy: Strategy) -> String {
    format!("WGSTRESS_STRATEGY_{}", strategy.name().to_uppercase())
}

/// The library's constant for `schedule`'s code.
fn schedule_constant(schedule: Schedule) -> String {
    format!("WGSTRESS_SCHEDULE_{}", schedule.name().to_uppercase())
}

/// The runtime library imported into every instrumented module: a constant for each
/// strategy's and each schedule's code, then library.wgsl.
/// The library's text; `parking` keeps the code that holds a workgroup back inside a loop
/// (a progress model other than fair), which is otherwise left out (see `Options::parking`),
/// and `scripting` within it the code that makes workgroups take their steps in a script's
/// order (`Options::scripting`); `start_order` keeps the code that gives the application's
/// workgroup ids in the order they start (`Options::start_order`).
pub fn library_source(parking: bool, scripting: bool, start_order: bool) -> String {
    let mut source: String = Strategy::ALL
        .iter()
        .map(|s| format!("const {} = {};\n", strategy_constant(*s), s.code()))
        .collect();
    for schedule in Schedule::ALL {
        source.push_str(&format!(
            "const {} = {};\n",
            schedule_constant(schedule),
            schedule.code()
        ));
    }
    // The places of hold points after an access start here (loops' are their ids).
    source.push_str(&format!(
        "const WGSTRESS_ACCESS: u32 = {}u;\n",
        wgstress_model::run::holds::HOLD_PLACE
    ));
    let library = with_strategies(include_str!("library.wgsl"));
    let library = if start_order {
        library
    } else {
        replaced(
            &library,
            (START_ORDER_BEGIN, START_ORDER_END),
            "fn wgstress_in_start_order(group: vec3<u32>, local: vec3<u32>) -> vec3<u32> {\n\
             \x20   return group;\n}\n",
        )
    };
    let library = if !parking {
        replaced(
            &library,
            (PARKING_BEGIN, PARKING_END),
            "fn wgstress_park_at_step(place: u32) {}\nfn wgstress_hold_write(place: u32) {}\n\
             fn wgstress_publish_holds() {}\nfn wgstress_script_step() {}\n\
             fn wgstress_hold_at_start() {}\nfn wgstress_bound_occupancy(threads: u32) {}\n",
        )
    } else if !scripting {
        replaced(
            &library,
            (SCRIPTING_BEGIN, SCRIPTING_END),
            "fn wgstress_script_step() {}\n",
        )
    } else {
        library
    };
    source.push_str(&library);
    source
}

/// `library` with the code between the markers `begin` and `end` replaced by `stub`.
fn replaced(library: &str, (begin, end): (&str, &str), stub: &str) -> String {
    let (before, rest) = library
        .split_once(begin)
        .unwrap_or_else(|| panic!("the library has {begin:?}"));
    let (_, after) = rest
        .split_once(end)
        .unwrap_or_else(|| panic!("the library has {end:?}"));
    format!("{before}{stub}{after}")
}

/// library.wgsl with each strategy's function where it marks them, and a `case` calling it
/// in its `switch` over the strategy.
fn with_strategies(library: &str) -> String {
    let stressing: Vec<(Strategy, _)> = Strategy::ALL
        .iter()
        .filter_map(|&s| s.wgsl().map(|w| (s, w)))
        .collect();
    let functions: String = stressing.iter().map(|(_, w)| w.function).collect();
    let cases: String = stressing
        .iter()
        .map(|(s, w)| {
            format!(
                "        case {}: {{\n            {}\n        }}\n",
                strategy_constant(*s),
                w.call
            )
        })
        .collect();
    library
        .replacen(STRATEGIES, &functions, 1)
        .replacen(STRATEGY_CASES, &cases, 1)
}

const STRATEGIES: &str = "// wgstress: strategies\n";
const STRATEGY_CASES: &str = "        // wgstress: strategy cases\n";
const PARKING_BEGIN: &str = "// wgstress: parking begin\n";
const PARKING_END: &str = "// wgstress: parking end\n";
const START_ORDER_BEGIN: &str = "// wgstress: start order begin\n";
const START_ORDER_END: &str = "// wgstress: start order end\n";
const SCRIPTING_BEGIN: &str = "// wgstress: scripting begin\n";
const SCRIPTING_END: &str = "// wgstress: scripting end\n";

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `name`'s body in the library built so does anything (an `if` at its top).
    fn acts(parking: bool, scripting: bool, name: &str) -> bool {
        acts_in(&library_source(parking, scripting, false), name)
    }

    fn acts_in(library: &str, name: &str) -> bool {
        let module = naga::front::wgsl::parse_str(library).unwrap();
        let function = module
            .functions
            .iter()
            .find(|(_, f)| f.name.as_deref() == Some(name))
            .map(|(_, f)| f)
            .unwrap();
        function
            .body
            .iter()
            .any(|s| matches!(s, naga::Statement::If { .. }))
    }

    #[test]
    fn the_library_without_parking_parses_and_holds_nobody() {
        for (parking, scripting) in [(false, false), (false, true), (true, false), (true, true)] {
            assert_eq!(acts(parking, scripting, "wgstress_park_at_step"), parking);
            assert_eq!(acts(parking, scripting, "wgstress_hold_at_start"), parking);
            assert_eq!(
                acts(parking, scripting, "wgstress_bound_occupancy"),
                parking
            );
            assert_eq!(
                acts(parking, scripting, "wgstress_script_step"),
                parking && scripting
            );
        }
    }

    #[test]
    fn ids_are_given_in_start_order_only_in_a_library_built_for_it() {
        for parking in [false, true] {
            for start_order in [false, true] {
                let library = library_source(parking, true, start_order);
                assert_eq!(acts_in(&library, "wgstress_in_start_order"), start_order);
                assert_eq!(
                    library.contains("workgroupUniformLoad(&wgstress_ticket)"),
                    start_order
                );
            }
        }
    }

    #[test]
    fn the_library_switches_on_every_stressing_strategy_by_its_constant() {
        let library = library_source(true, true, true);
        let start = library.find("switch wgstress_params.strategy {").unwrap();
        let switch = &library[start..start + library[start..].find("default:").unwrap()];
        for strategy in Strategy::ALL {
            let case = format!("case {}:", strategy_constant(strategy));
            assert_eq!(
                switch.contains(&case),
                strategy != Strategy::None,
                "{strategy}: {case}"
            );
        }
        assert_eq!(switch.matches("case ").count(), 3, "{switch}");
        // Each stressing strategy's function is in the library once, and called in its case.
        for strategy in Strategy::ALL {
            if let Some(wgsl) = strategy.wgsl() {
                assert_eq!(library.matches(wgsl.function).count(), 1, "{strategy}");
                assert!(switch.contains(wgsl.call), "{strategy}");
            }
        }
        assert!(
            !library.contains("// wgstress: strateg"),
            "every marker is filled"
        );
        // The constants are abstract: they name the codes and leave no trace in the output.
        assert!(
            library_source(false, false, false).starts_with("const WGSTRESS_STRATEGY_NONE = 0;")
        );
    }

    #[test]
    fn the_library_switches_on_every_parking_schedule_by_its_constant() {
        let library = include_str!("library.wgsl");
        let start = library.find("switch wgstress_params.schedule {").unwrap();
        let switch = &library[start..start + library[start..].find("default:").unwrap()];
        for schedule in Schedule::ALL {
            let case = format!("case {}:", schedule_constant(schedule));
            assert_eq!(
                switch.contains(&case),
                schedule.parks(),
                "{schedule}: {case}"
            );
        }
    }
}
