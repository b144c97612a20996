//! Where a campaign's item finds its device: a native adapter by its place among those wgpu
//! lists (`--adapter #N`), or a browser's WebGPU adapter. Shard logs and events carry it; in
//! a shard log it is the start line's `index`, a number for a listed adapter (as logs of
//! before the browser had it) and `"browser"` for a browser's.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AdapterPlace {
    /// The N-th adapter `wgstress adapters` lists, counted from 0.
    Listed(usize),
    /// The adapter of a browser's page (`--browser`, or a page `wgstress serve` served).
    Browser,
}

/// The word a shard log writes for `AdapterPlace::Browser`.
const BROWSER: &str = "browser";

/// `#N`, or `browser`.
impl std::fmt::Display for AdapterPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            AdapterPlace::Listed(index) => write!(f, "#{index}"),
            AdapterPlace::Browser => f.write_str(BROWSER),
        }
    }
}

impl Serialize for AdapterPlace {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AdapterPlace::Listed(index) => serializer.serialize_u64(*index as u64),
            AdapterPlace::Browser => serializer.serialize_str(BROWSER),
        }
    }
}

impl<'de> Deserialize<'de> for AdapterPlace {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AdapterPlace, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Listed(usize),
            Word(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Listed(index) => Ok(AdapterPlace::Listed(index)),
            Written::Word(word) if word == BROWSER => Ok(AdapterPlace::Browser),
            Written::Word(word) => Err(serde::de::Error::custom(format!(
                "`{word}` is no adapter's place: a number, or \"{BROWSER}\""
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AdapterPlace;

    #[test]
    fn places_are_numbers_or_the_browser_and_nothing_else() {
        for place in [AdapterPlace::Listed(3), AdapterPlace::Browser] {
            let text = serde_json::to_string(&place).unwrap();
            assert_eq!(serde_json::from_str::<AdapterPlace>(&text).unwrap(), place);
        }
        assert_eq!(
            serde_json::to_string(&AdapterPlace::Listed(3)).unwrap(),
            "3"
        );
        assert_eq!(AdapterPlace::Browser.to_string(), "browser");
        assert_eq!(AdapterPlace::Listed(0).to_string(), "#0");
        assert!(serde_json::from_str::<AdapterPlace>("\"gpu\"").is_err());
        assert!(serde_json::from_str::<AdapterPlace>("-1").is_err());
    }
}
