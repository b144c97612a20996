//! The stress strategies, each described once: its name (on the command line, in logs and
//! JSON), what it does (the CLI's help), its code (the value of `WgstressParams::strategy`)
//! and the WGSL its stressing threads run (wgsl/NAME.wgsl, with the call that runs it). The
//! instrumenter's library takes the functions and its `switch` over the code from this table
//! (`wgstress_instrument::library_source`), so the WGSL cannot drift from it. Adding a
//! strategy is a change to this folder: mod.rs says which files.

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

    /// The strategy as the stress it applies, in running text: "systematic stress", and "no
    /// stress" for none.
    pub fn stress(self) -> String {
        match self {
            Strategy::None => "no stress".into(),
            s => format!("{} stress", s.name()),
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

    /// The WGSL its stressing threads run: the function (wgsl/NAME.wgsl), and the statement
    /// that calls it inside the library's `wgstress_stress(stress_group, local_index,
    /// group_size)`, where `thread` is the thread's index among every stressing thread.
    /// `None` for no stress.
    pub fn wgsl(self) -> Option<StressWgsl> {
        let (function, call) = match self {
            Strategy::None => return None,
            Strategy::Systematic => (
                include_str!("wgsl/systematic.wgsl"),
                "wgstress_stress_patches(thread);",
            ),
            Strategy::Cache => (
                include_str!("wgsl/cache.wgsl"),
                "wgstress_stress_cache(thread, wgstress_params.stress_groups * group_size);",
            ),
            Strategy::Random => (
                include_str!("wgsl/random.wgsl"),
                "wgstress_stress_random(thread);",
            ),
        };
        Some(StressWgsl { function, call })
    }

    /// The strategy called `name`.
    pub fn named(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A strategy's WGSL: its function's text, and the statement that runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StressWgsl {
    pub function: &'static str,
    pub call: &'static str,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_codes_are_distinct() {
        for strategy in Strategy::ALL {
            assert_eq!(strategy.name().parse::<Strategy>(), Ok(strategy));
        }
        let mut codes: Vec<u32> = Strategy::ALL.iter().map(|s| s.code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), Strategy::ALL.len());
        assert_eq!(Strategy::None.stress(), "no stress");
        assert_eq!(Strategy::Cache.stress(), "cache stress");
        let refused = "nosuch".parse::<Strategy>().unwrap_err();
        assert!(
            refused.contains("none, systematic, cache, random"),
            "{refused}"
        );
    }
}
