pub mod apps;
pub mod compare;
pub mod fences;
pub mod instrument;
pub mod litmus;
pub mod run;
pub mod select;
pub mod tune;
