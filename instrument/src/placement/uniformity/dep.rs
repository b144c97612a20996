//! What a value or a point of control flow depends on, as WGSL's uniformity analysis tracks
//! it: on something that may differ between the invocations of a workgroup, or only on some
//! of what the function is called with (uniform wherever the function's call is in uniform
//! control flow and those arguments are uniform).

use std::collections::BTreeSet;

/// Something a call gives the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum CallInput {
    /// The argument at this index.
    Value(u32),
    /// What the `ptr<function, T>` argument at this index points to, as the call finds it.
    Contents(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dep {
    /// May differ between the invocations of a workgroup.
    NonUniform,
    /// The same in every invocation of a call made in uniform control flow where these are
    /// uniform (none: whenever the call is).
    On(BTreeSet<CallInput>),
}

impl Dep {
    /// Uniform in every uniform call.
    pub(crate) fn uniform() -> Dep {
        Dep::On(BTreeSet::new())
    }

    /// Uniform when parameter `index` is.
    pub(crate) fn parameter(index: u32) -> Dep {
        Dep::On(BTreeSet::from([CallInput::Value(index)]))
    }

    /// Uniform when what pointer parameter `index` points to is, at the call.
    pub(crate) fn contents(index: u32) -> Dep {
        Dep::On(BTreeSet::from([CallInput::Contents(index)]))
    }

    /// The same, in the caller: each key replaced by what the call gives for it.
    pub(crate) fn at_call(&self, given: impl Fn(CallInput) -> Dep) -> Dep {
        match self {
            Dep::NonUniform => Dep::NonUniform,
            Dep::On(keys) => keys
                .iter()
                .fold(Dep::uniform(), |dep, key| dep.join(&given(*key))),
        }
    }

    /// What depends on both.
    pub(crate) fn join(&self, other: &Dep) -> Dep {
        match (self, other) {
            (Dep::On(a), Dep::On(b)) => Dep::On(a.union(b).copied().collect()),
            _ => Dep::NonUniform,
        }
    }

    /// Uniform, given that the call is in uniform control flow and that the parameters
    /// `uniform` says of are uniform.
    pub(crate) fn holds(&self, uniform: &Parameters) -> bool {
        match self {
            Dep::NonUniform => false,
            Dep::On(keys) => keys.iter().all(|key| uniform.contains(*key)),
        }
    }
}

/// Joins `b` into `a`; true if `a` grew.
pub(crate) fn join_into(a: &mut Dep, b: &Dep) -> bool {
    let joined = a.join(b);
    let grew = joined != *a;
    *a = joined;
    grew
}

/// What is uniform at every call of a function: which arguments, which pointees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Parameters {
    /// All of them: an entry point (whose arguments are builtins, judged on their own), or a
    /// function nothing calls.
    All,
    Some(BTreeSet<CallInput>),
}

impl Parameters {
    pub(crate) fn contains(&self, key: CallInput) -> bool {
        match self {
            Parameters::All => true,
            Parameters::Some(set) => set.contains(&key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_uniform_absorbs_and_parameters_add_up() {
        let (a, b) = (Dep::parameter(0), Dep::contents(2));
        assert_eq!(
            a.join(&b),
            Dep::On(BTreeSet::from([
                CallInput::Value(0),
                CallInput::Contents(2)
            ]))
        );
        assert_eq!(a.join(&Dep::NonUniform), Dep::NonUniform);
        assert_eq!(Dep::uniform().join(&a), a);
        let first = Parameters::Some(BTreeSet::from([CallInput::Value(0)]));
        assert!(a.holds(&first) && !b.holds(&first) && b.holds(&Parameters::All));
        assert!(!Dep::NonUniform.holds(&Parameters::All));
        // At a call: the argument is uniform, the pointee is not.
        let given = |key| match key {
            CallInput::Value(_) => Dep::uniform(),
            CallInput::Contents(_) => Dep::NonUniform,
        };
        assert_eq!(a.at_call(given), Dep::uniform());
        assert_eq!(b.at_call(given), Dep::NonUniform);
    }
}
