//! What a value or a point of control flow depends on, as WGSL's uniformity analysis tracks
//! it: on something that may differ between the invocations of a workgroup, or only on some
//! of the function's parameters (uniform wherever the function's call is in uniform control
//! flow and those arguments are uniform).

use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dep {
    /// May differ between the invocations of a workgroup.
    NonUniform,
    /// The same in every invocation of a call made in uniform control flow whose arguments
    /// at these indices are uniform (none: whenever the call is).
    On(BTreeSet<u32>),
}

impl Dep {
    /// Uniform in every uniform call.
    pub fn uniform() -> Dep {
        Dep::On(BTreeSet::new())
    }

    /// Uniform when parameter `index` is.
    pub fn parameter(index: u32) -> Dep {
        Dep::On(BTreeSet::from([index]))
    }

    /// What depends on both.
    pub fn join(&self, other: &Dep) -> Dep {
        match (self, other) {
            (Dep::On(a), Dep::On(b)) => Dep::On(a.union(b).copied().collect()),
            _ => Dep::NonUniform,
        }
    }

    /// Uniform, given that the call is in uniform control flow and that the parameters
    /// `uniform` says of are uniform.
    pub fn holds(&self, uniform: &Parameters) -> bool {
        match self {
            Dep::NonUniform => false,
            Dep::On(parameters) => parameters.iter().all(|p| uniform.contains(*p)),
        }
    }
}

/// Joins `b` into `a`; true if `a` grew.
pub fn join_into(a: &mut Dep, b: &Dep) -> bool {
    let joined = a.join(b);
    let grew = joined != *a;
    *a = joined;
    grew
}

/// Which parameters of a function are uniform at every call of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parameters {
    /// All of them: an entry point (whose arguments are builtins, judged on their own), or a
    /// function nothing calls.
    All,
    Some(BTreeSet<u32>),
}

impl Parameters {
    pub fn contains(&self, index: u32) -> bool {
        match self {
            Parameters::All => true,
            Parameters::Some(set) => set.contains(&index),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_uniform_absorbs_and_parameters_add_up() {
        let (a, b) = (Dep::parameter(0), Dep::parameter(2));
        assert_eq!(a.join(&b), Dep::On(BTreeSet::from([0, 2])));
        assert_eq!(a.join(&Dep::NonUniform), Dep::NonUniform);
        assert_eq!(Dep::uniform().join(&a), a);
        let first = Parameters::Some(BTreeSet::from([0]));
        assert!(a.holds(&first) && !b.holds(&first) && b.holds(&Parameters::All));
        assert!(!Dep::NonUniform.holds(&Parameters::All));
    }
}
