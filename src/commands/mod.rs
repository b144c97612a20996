pub mod apps;
pub mod compare;
pub mod instrument;
pub mod litmus;
pub mod mutants;
pub mod run;
pub mod select;
pub mod tune;
