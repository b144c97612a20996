//! Shards: the I-th of N takes the items whose description hashes to I modulo N, so every
//! machine deals the plan alike, and an item's seed (from the plan and the item alone) does
//! not depend on N.

use crate::error::{CampaignError, Result};
use crate::plan::Item;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole plan.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// `I/N`, with I counted from 0.
    pub fn parse(text: &str) -> Result<Shard> {
        let bad =
            || CampaignError::Input(format!("`{text}` is not a shard: give I/N with 0 <= I < N"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count > u64::from(u32::MAX) {
            return Err(CampaignError::Input(format!(
                "`{text}`: {count} shards are more than a plan is split into (at most {})",
                u32::MAX
            )));
        }
        Shard::new(index as u32, count as u32)
            .filter(|_| index < count)
            .ok_or_else(bad)
    }

    pub(crate) fn new(index: u32, count: u32) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    /// The shard a Slurm array task or a Kubernetes Indexed Job's pod is, from `var` (the
    /// environment): `SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN` of
    /// `SLURM_ARRAY_TASK_COUNT`, or `JOB_COMPLETION_INDEX` of `JOB_COMPLETIONS` (which the
    /// Job's manifest sets to its `completions`). None when neither is set.
    pub fn from_env(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<Shard>> {
        let number = |name: &str| -> Result<Option<u32>> {
            var(name)
                .map(|v| {
                    v.trim().parse().map_err(|_| {
                        CampaignError::Input(format!("{name}=`{v}` is not a non-negative number"))
                    })
                })
                .transpose()
        };
        let (index, count, source) = if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                CampaignError::Input(
                    "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not".into(),
                )
            })?;
            (id.checked_sub(min), count, "SLURM_ARRAY_TASK_ID")
        } else if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = number("JOB_COMPLETIONS")?.ok_or_else(|| {
                CampaignError::Input(
                    "JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS is not: set it to the \
                     Job's completions (deploy/kubernetes/job.yaml does)"
                        .into(),
                )
            })?;
            (Some(index), count, "JOB_COMPLETION_INDEX")
        } else {
            return Ok(None);
        };
        index
            .and_then(|i| Shard::new(i, count))
            .map(Some)
            .ok_or_else(|| {
                CampaignError::Input(format!(
                    "{source} gives no shard of {count}: an array of consecutive indices is needed"
                ))
            })
    }

    /// Whether `item` is this shard's.
    pub fn owns(&self, item: &Item) -> bool {
        item.hash % u64::from(self.count) == u64::from(self.index)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn shards_parse_as_index_of_count() {
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
        for bad in ["4/4", "1", "-1/4", "0/0", "a/b", "4294967296/4294967295"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn too_many_shards_are_refused_for_what_they_are() {
        // 1 < 99999999999: "give I/N with 0 <= I < N" would be a message the input satisfies.
        let error = Shard::parse("1/99999999999").unwrap_err().to_string();
        assert!(
            error.contains(
                "99999999999 shards are more than a plan is split into (at most 4294967295)"
            ),
            "{error}"
        );
        assert!(Shard::parse("1/4294967295").is_ok());
    }

    #[test]
    fn slurm_and_kubernetes_give_the_shard() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(Shard::from_env(&slurm).unwrap(), Shard::new(1, 4));
        let k8s = env(&[("JOB_COMPLETION_INDEX", "3"), ("JOB_COMPLETIONS", "4")]);
        assert_eq!(Shard::from_env(&k8s).unwrap(), Shard::new(3, 4));
        assert_eq!(Shard::from_env(&env(&[])).unwrap(), None);
        let no_count = env(&[("JOB_COMPLETION_INDEX", "3")]);
        let message = Shard::from_env(&no_count).unwrap_err().to_string();
        assert!(message.contains("JOB_COMPLETIONS"), "{message}");
        let stepped = env(&[
            ("SLURM_ARRAY_TASK_ID", "8"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Shard::from_env(&stepped).is_err());
    }
}
