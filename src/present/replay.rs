//! A run's replay as the `wgstress run` options that, with `--seed`, replay it.

use wgstress_model::stress::params::{Drawn, Replay, StressPlacement};
use wgstress_model::stress::strategy::Strategy;

/// The options of `replay`.
pub fn options(replay: &Replay) -> String {
    match replay {
        Replay::Raw => "--raw".into(),
        Replay::Stressed(drawn) => stressed(drawn),
    }
}

fn stressed(d: &Drawn) -> String {
    let mut options = vec![format!("--strategy {}", d.strategy)];
    if d.strategy != Strategy::None {
        let (lo, hi) = d.stress_fraction;
        options.push(format!("--iterations {}", d.iterations));
        options.push(format!("--stress-fraction {lo}-{hi}"));
        if d.placement != StressPlacement::default() {
            options.push(format!("--stress-placement {}", d.placement));
        }
    }
    match d.strategy {
        Strategy::Systematic => {
            options.push(format!("--sequence '{}'", d.sequence));
            options.push(format!("--spread {}", d.spread));
            options.push(format!("--patch-words {}", d.patch_words));
        }
        Strategy::Cache => options.push(format!("--cache-mib {}", d.cache_words >> 18)),
        Strategy::None | Strategy::Random => {}
    }
    if !d.shuffle {
        options.push("--no-shuffle".into());
    }
    if !d.buffer_shuffle {
        options.push("--buffer-shuffle off".into());
    }
    options.push(format!("--watchdog-limit {}", d.watchdog_limit));
    if d.scheduling.schedule.parks() {
        options.push(format!("--schedule {}", d.scheduling.schedule));
    }
    if let Some(n) = d.scheduling.occupancy {
        options.push(format!("--occupancy {n}"));
    }
    options.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(strategy: Strategy) -> Drawn {
        Drawn {
            strategy,
            iterations: 512,
            stress_fraction: (0.15, 0.5),
            placement: StressPlacement::default(),
            sequence: "st;ld".parse().unwrap(),
            spread: 4,
            patch_words: 32,
            cache_words: 4 << 18,
            shuffle: true,
            buffer_shuffle: false,
            watchdog_limit: 65536,
            scheduling: Default::default(),
        }
    }

    #[test]
    fn a_schedule_and_an_occupancy_are_part_of_the_replay() {
        let mut d = drawn(Strategy::None);
        d.scheduling.schedule = wgstress_model::stress::schedule::Schedule::Hsa;
        d.scheduling.occupancy = Some(4);
        let replay = options(&Replay::Stressed(d));
        assert!(replay.ends_with("--schedule hsa --occupancy 4"), "{replay}");
        assert!(!options(&Replay::Stressed(drawn(Strategy::None))).contains("--schedule"));
    }

    #[test]
    fn each_strategy_names_the_options_its_runs_are_drawn_from() {
        assert_eq!(
            options(&Replay::Stressed(drawn(Strategy::Systematic))),
            "--strategy systematic --iterations 512 --stress-fraction 0.15-0.5 \
             --sequence 'st;ld' --spread 4 --patch-words 32 --buffer-shuffle off \
             --watchdog-limit 65536"
        );
        let cache = options(&Replay::Stressed(drawn(Strategy::Cache)));
        assert!(cache.contains("--cache-mib 4") && !cache.contains("--sequence"));
        let none = options(&Replay::Stressed(Drawn {
            shuffle: false,
            ..drawn(Strategy::None)
        }));
        assert_eq!(
            none,
            "--strategy none --no-shuffle --buffer-shuffle off --watchdog-limit 65536"
        );
        assert_eq!(options(&Replay::Raw), "--raw");
    }
}
