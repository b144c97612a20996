//! The stress strategies, each described once: its name (on the command line, in logs and
//! JSON), what it does (the CLI's help), and its code, the value of
//! `WgstressParams::strategy`. The library's `switch` over that field names the codes through
//! constants written from this table (`library_source`), so the WGSL cannot drift from it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// No stress: the application alone.
    None,
    /// Patch-based stress: a few random patches of a scratchpad, with a tuned access sequence.
    Systematic,
    /// Stream over an L2-sized scratchpad, one load and one store per word.
    Cache,
    /// Loads and stores at pseudo-random scratchpad words.
    Random,
}

impl Strategy {
    pub const ALL: [Strategy; 4] = [
        Strategy::None,
        Strategy::Systematic,
        Strategy::Cache,
        Strategy::Random,
    ];

    /// What the fence search tries, in order, when systematic stress shows no failure.
    pub const FALLBACKS: [Strategy; 3] = [Strategy::Cache, Strategy::Random, Strategy::None];

    /// The value of `WgstressParams::strategy`.
    pub fn code(self) -> u32 {
        match self {
            Strategy::None => 0,
            Strategy::Systematic => 1,
            Strategy::Cache => 2,
            Strategy::Random => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::Systematic => "systematic",
            Strategy::Cache => "cache",
            Strategy::Random => "random",
        }
    }

    /// What it does, in a line.
    pub fn help(self) -> &'static str {
        match self {
            Strategy::None => "No stress: the application alone",
            Strategy::Systematic => "A few patches of a scratchpad, with a tuned access sequence",
            Strategy::Cache => "A stream over an L2-sized scratchpad",
            Strategy::Random => "Loads and stores at pseudo-random scratchpad words",
        }
    }

    /// The strategy called `name`.
    pub fn named(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The library's constant for this strategy's code.
    fn constant(self) -> String {
        format!("WGSTRESS_STRATEGY_{}", self.name().to_uppercase())
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;

    fn from_str(name: &str) -> Result<Strategy, String> {
        Strategy::named(name).ok_or_else(|| {
            let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
            format!("no strategy `{name}` (choose from {})", names.join(", "))
        })
    }
}

/// The runtime library imported into every instrumented module: a constant for each
/// strategy's and each schedule's code, then library.wgsl.
/// The library's text; `parking` keeps the code that holds a workgroup back inside a loop
/// (a progress model other than fair), which is otherwise left out (see `Options::parking`).
pub fn library_source(parking: bool) -> String {
    let mut source: String = Strategy::ALL
        .iter()
        .map(|s| format!("const {} = {};\n", s.constant(), s.code()))
        .collect();
    for schedule in crate::schedule::Schedule::ALL {
        source.push_str(&format!(
            "const {} = {};\n",
            schedule.constant(),
            schedule.code()
        ));
    }
    let library = include_str!("library.wgsl");
    if parking {
        source.push_str(library);
    } else {
        let (before, rest) = library
            .split_once(PARKING_BEGIN)
            .expect("the library marks its parking code");
        let (_, after) = rest
            .split_once(PARKING_END)
            .expect("the library marks the end of its parking code");
        source.push_str(before);
        source.push_str("fn wgstress_park_at_step(loop_id: u32) {}\n");
        source.push_str(after);
    }
    source
}

const PARKING_BEGIN: &str = "// wgstress: parking begin\n";
const PARKING_END: &str = "// wgstress: parking end\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_without_parking_parses_and_holds_nobody_inside_a_loop() {
        for parking in [false, true] {
            let module = naga::front::wgsl::parse_str(&library_source(parking)).unwrap();
            let at_step = module
                .functions
                .iter()
                .find(|(_, f)| f.name.as_deref() == Some("wgstress_park_at_step"))
                .map(|(_, f)| f)
                .unwrap();
            let parks = at_step
                .body
                .iter()
                .any(|s| matches!(s, naga::Statement::If { .. }));
            assert_eq!(parks, parking);
        }
    }

    #[test]
    fn the_library_switches_on_every_stressing_strategy_by_its_constant() {
        let library = include_str!("library.wgsl");
        let start = library.find("switch wgstress_params.strategy {").unwrap();
        let switch = &library[start..start + library[start..].find("default:").unwrap()];
        for strategy in Strategy::ALL {
            let case = format!("case {}:", strategy.constant());
            assert_eq!(
                switch.contains(&case),
                strategy != Strategy::None,
                "{strategy}: {case}"
            );
        }
        assert_eq!(switch.matches("case ").count(), 3, "{switch}");
        // The constants are abstract: they name the codes and leave no trace in the output.
        assert!(library_source(false).starts_with("const WGSTRESS_STRATEGY_NONE = 0;"));
    }

    #[test]
    fn names_parse_back_and_codes_are_distinct() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>(), Ok(strategy));
        }
        let mut codes: Vec<u32> = Strategy::ALL.iter().map(|s| s.code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), Strategy::ALL.len());
        let refused = "nosuch".parse::<Strategy>().unwrap_err();
        assert!(
            refused.contains("none, systematic, cache, random"),
            "{refused}"
        );
    }
}
