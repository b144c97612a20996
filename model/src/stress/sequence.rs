//! Systematic stress's access sequences: loads and stores, at most five, as `ld;st`.

use serde::{Deserialize, Serialize};

/// An access sequence in (ld|st)+, at most 5 long.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Sequence(Vec<Access>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Load,
    Store,
}

impl Sequence {
    pub(crate) const MAX_LEN: usize = 5;

    pub fn new(accesses: Vec<Access>) -> Result<Self, String> {
        if accesses.is_empty() || accesses.len() > Self::MAX_LEN {
            return Err(format!(
                "an access sequence has 1 to {} accesses",
                Self::MAX_LEN
            ));
        }
        Ok(Sequence(accesses))
    }

    /// Bit i set: access i is a store.
    pub fn bits(&self) -> u32 {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, a)| **a == Access::Store)
            .map(|(i, _)| 1u32 << i)
            .sum()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The sequence whose `bits()` are `bits`, `len` accesses long.
    pub fn from_bits(bits: u32, len: u32) -> Result<Sequence, String> {
        Sequence::new(
            (0..len)
                .map(|i| {
                    if bits >> i & 1 == 1 {
                        Access::Store
                    } else {
                        Access::Load
                    }
                })
                .collect(),
        )
    }

    /// Every sequence of length 1 to `max`.
    pub fn all(max: usize) -> Vec<Sequence> {
        (1..=max.min(Self::MAX_LEN))
            .flat_map(|len| {
                (0..1u32 << len).map(move |bits| {
                    Sequence::from_bits(bits, len as u32).expect("1 to 5 accesses")
                })
            })
            .collect()
    }
}

impl Default for Sequence {
    /// The seed study's default: ld;st.
    fn default() -> Self {
        Sequence(vec![Access::Load, Access::Store])
    }
}

impl TryFrom<String> for Sequence {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<Sequence> for String {
    fn from(s: Sequence) -> String {
        s.to_string()
    }
}

impl std::str::FromStr for Sequence {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let accesses = text
            .split(';')
            .map(|a| match a.trim() {
                "ld" => Ok(Access::Load),
                "st" => Ok(Access::Store),
                other => Err(format!(
                    "`{other}` is not an access: use ld or st, as in ld;st"
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Sequence::new(accesses)
    }
}

impl std::fmt::Display for Sequence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<&str> = self
            .0
            .iter()
            .map(|a| if *a == Access::Load { "ld" } else { "st" })
            .collect();
        f.write_str(&parts.join(";"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_parse_and_print() {
        let s: Sequence = "ld;st;st".parse().unwrap();
        assert_eq!(s.to_string(), "ld;st;st");
        assert_eq!(s.bits(), 0b110);
        assert!("ld;xx".parse::<Sequence>().is_err());
        assert_eq!(Sequence::all(5).len(), 2 + 4 + 8 + 16 + 32);
        for sequence in Sequence::all(5) {
            let back = Sequence::from_bits(sequence.bits(), sequence.len() as u32).unwrap();
            assert_eq!(back, sequence);
        }
    }
}
