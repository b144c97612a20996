//! The bundled applications.
//!
//! (Filled in by the application suite; see docs/apps.md.)

use wgstress_runtime::spec::App;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Buggy,
    Fixed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Small,
    Large,
}

macro_rules! from_str_enum {
    ($ty:ident { $($text:literal => $value:ident),* }) => {
        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(text: &str) -> Result<Self, String> {
                match text {
                    $($text => Ok($ty::$value),)*
                    other => Err(format!("`{other}` is not one of: {}", [$($text),*].join(", "))),
                }
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self { $($ty::$value => $text,)* })
            }
        }
    };
}
from_str_enum!(Variant { "buggy" => Buggy, "fixed" => Fixed });
from_str_enum!(Size { "small" => Small, "large" => Large });

pub struct Bundled {
    pub name: &'static str,
    pub summary: &'static str,
    build: fn(Variant, Size) -> App,
}

impl Bundled {
    pub fn build(&self, variant: Variant, size: Size) -> App {
        (self.build)(variant, size)
    }
}

pub fn all() -> Vec<Bundled> {
    Vec::new()
}

pub fn find(name: &str) -> Option<Bundled> {
    all().into_iter().find(|a| a.name == name)
}
