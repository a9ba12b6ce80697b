//! Adding a bot from outside `junqi-bots` (CONTRIBUTING.md, "A bot"): an
//! `Agent`, a factory, one `register_bot` call, and the new name works as a
//! bot spec everywhere specs are read — here in a self-play run, with its
//! parameter parsed and its unknown parameters refused.

use junqi_bots::{register_bot, Agent, BotSpec, BotSpecError, Decision, Player};
use junqi_core::{GameRng, InfoSet, Mode, MoveList, Rules};
use junqi_selfplay::{prepare, read_games_file, shard_files, Config, RunOptions};

/// Always plays the first legal action it is given (`nth` picks another).
struct FirstMove {
    nth: usize,
    moves: MoveList,
}

impl Agent for FirstMove {
    fn name(&self) -> String {
        format!("first:nth={}", self.nth)
    }

    fn act(&mut self, info: &InfoSet, _rng: &mut GameRng) -> Decision {
        info.legal_moves(&mut self.moves);
        let action = self.moves[self.nth.min(self.moves.len() - 1)];
        Decision { action, policy: vec![(action, 1.0)], value: None }
    }
}

fn build_first(spec: &BotSpec) -> Result<Player, BotSpecError> {
    let mut nth = 0;
    for (key, value) in &spec.params {
        match key.as_str() {
            "nth" => {
                nth = value.parse().map_err(|_| BotSpecError::BadValue {
                    bot: spec.name.clone(),
                    key: key.clone(),
                    value: value.clone(),
                    message: "expected a count".into(),
                })?
            }
            _ => {
                return Err(BotSpecError::UnknownParam {
                    bot: spec.name.clone(),
                    key: key.clone(),
                    known: "nth".into(),
                })
            }
        }
    }
    Ok(Player::Fair(Box::new(FirstMove { nth, moves: MoveList::new() })))
}

#[test]
fn a_registered_bot_plays_by_its_spec() {
    register_bot("first", build_first);
    assert!(junqi_bots::from_spec("first:depth=3").is_err(), "unknown parameters are refused");
    let out = std::env::temp_dir().join(format!("junqi-selfplay-custom-bot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let config = Config::new(Rules::preset(Mode::Mingqi), 4, ["first:nth=1", "random"], 3).unwrap();
    let summary =
        prepare(config, Some(&out)).unwrap().run(&RunOptions { threads: 1, ..RunOptions::default() }).unwrap();
    assert_eq!(summary.games_played, 4);
    let games: Vec<_> =
        shard_files(&out.join("games")).unwrap().iter().flat_map(|f| read_games_file(f).unwrap()).collect();
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g.bots[0] == "first:nth=1"), "{:?}", games[0].bots);
    let _ = std::fs::remove_dir_all(&out);
}

/// Bots built by [`build_counted`] so far (its own name: no other test builds it).
static COUNTED_BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// [`FirstMove`] under its own name (a bot's name is its canonical spec).
struct Counted(FirstMove);

impl Agent for Counted {
    fn name(&self) -> String {
        "counted".into()
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        self.0.act(info, rng)
    }
}

fn build_counted(spec: &BotSpec) -> Result<Player, BotSpecError> {
    COUNTED_BUILDS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    spec.check_keys(&[])?;
    Ok(Player::Fair(Box::new(Counted(FirstMove { nth: 0, moves: MoveList::new() }))))
}

#[test]
fn a_run_builds_each_bot_twice_before_its_games_and_once_per_game() {
    use std::sync::atomic::Ordering::SeqCst;
    register_bot("counted", build_counted);
    let games = 6;
    // Parsed once into the config; built once to make it canonical...
    let config = Config::new(Rules::preset(Mode::Fanqi), games, ["counted", "random"], 5).unwrap();
    assert_eq!(COUNTED_BUILDS.load(SeqCst), 1);
    // ...and once when the run checks its config (a run.json may have been
    // edited), which also tells whether it batches: nothing is built to ask.
    let plan = prepare(config, None).unwrap();
    assert_eq!(COUNTED_BUILDS.load(SeqCst), 2);
    let summary = plan.run(&RunOptions { threads: 1, ..RunOptions::default() }).unwrap();
    assert_eq!(summary.games_played, games);
    // Then one fresh bot per game, from the parsed spec.
    assert_eq!(COUNTED_BUILDS.load(SeqCst), 2 + games as usize);
}
