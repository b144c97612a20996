pub mod apps;
pub mod compare;
pub mod instrument;
pub mod run;
pub mod select;
