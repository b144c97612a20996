//! Counts with their noun, as people read them: "1 site", "2 sites", "0 sites".

use std::fmt::Display;

/// `n` and the noun that agrees with it.
pub fn count<N: Display + PartialEq + From<u8>>(n: N, singular: &str, plural: &str) -> String {
    let noun = if n == N::from(1) { singular } else { plural };
    format!("{n} {noun}")
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn only_one_takes_the_singular() {
        assert_eq!(count(1u32, "site", "sites"), "1 site");
        assert_eq!(count(0usize, "site", "sites"), "0 sites");
        assert_eq!(count(7u64, "wait", "waits"), "7 waits");
    }
}
