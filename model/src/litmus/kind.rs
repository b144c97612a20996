//! What a litmus test is for: a textbook test, a conformance test or a mutant, and the
//! mutator that made it (the MC Mutants paper's).

use serde::Serialize;

/// The mutators of the MC Mutants paper (its Fig. 3 and Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutator {
    ReversingPoLoc,
    WeakeningPoLoc,
    WeakeningSw,
}

impl Mutator {
    pub const ALL: [Mutator; 3] = [
        Mutator::ReversingPoLoc,
        Mutator::WeakeningPoLoc,
        Mutator::WeakeningSw,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Mutator::ReversingPoLoc => "reversing po-loc",
            Mutator::WeakeningPoLoc => "weakening po-loc",
            Mutator::WeakeningSw => "weakening sw",
        }
    }
}

/// What a test is for, which decides what seeing its target behaviour means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "mutator")]
pub enum Kind {
    /// A textbook weak-memory test: its weak behaviour is allowed and wanted.
    Classic,
    /// Its target behaviour is disallowed: seeing it is a conformance violation.
    Conformance(Mutator),
    /// Its target behaviour is allowed: seeing it kills the mutant.
    Mutant(Mutator),
}

impl Kind {
    pub fn label(self) -> String {
        match self {
            Kind::Classic => "classic".into(),
            Kind::Conformance(m) => format!("conformance ({})", m.name()),
            Kind::Mutant(m) => format!("mutant ({})", m.name()),
        }
    }
}
