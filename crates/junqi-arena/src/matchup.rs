//! One matchup: paired games between two bots, played (or resumed) as a
//! self-play run without samples, then read back from its `games/` shards.

use crate::ArenaError;
use junqi_bots::IntoBotSpec;
use junqi_core::Rules;
use junqi_selfplay::{
    prepare_part, read_games_file, shard_files, Config, RunOptions, SamplesPerGame, Summary, Thinking, GAMES_DIR,
};
use std::path::Path;

/// One finished game of a matchup, from the stored record.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    pub game_id: u64,
    /// Which player (0 or 1, the order of the matchup's bots) sat in seat 1.
    pub seat1: usize,
    /// Seat 1's score: 1, ½ or 0.
    pub seat1_score: f64,
    pub plies: u32,
    /// How the game ended (`Termination::name`).
    pub termination: String,
    /// A hash of the whole game (start, moves, result, ending): two games
    /// with equal fingerprints were played alike move for move, which tells
    /// a rule option that never came into play.
    pub fingerprint: u64,
}

impl GameResult {
    /// The score of `player` (0 or 1) in this game.
    pub fn score_of(&self, player: usize) -> f64 {
        if player == self.seat1 {
            self.seat1_score
        } else {
            1.0 - self.seat1_score
        }
    }
}

/// The self-play config of a matchup: `games` paired games (each seed played
/// twice, seats swapped), no samples, shards of a size that depends only on
/// the game count (so a resumed matchup has the same config whatever the threads).
pub fn matchup_config(rules: Rules, bots: [impl IntoBotSpec; 2], games: u64, seed: u64) -> Result<Config, ArenaError> {
    if games == 0 || games % 2 == 1 {
        return Err(ArenaError::Config(format!(
            "games per matchup must be even and at least 2 (paired games), got {games}"
        )));
    }
    let shard_games = (games / 8).next_multiple_of(2).clamp(2, 200);
    Ok(Config::new(rules, games, bots, seed)?
        .with_samples(SamplesPerGame::Count(0))
        .with_shard_games(shard_games)
        .with_pairs(true))
}

/// A played (or resumed) matchup.
#[derive(Clone, Debug)]
pub struct Matchup {
    /// What this call played (`None` when every game was already on disk).
    pub summary: Option<Summary>,
    /// Every game's result, in game-id order.
    pub results: Vec<GameResult>,
    /// The thinking of every game on disk (footers, plus this call's games).
    pub thinking: Thinking,
    /// Things found while resuming (games from another code version,
    /// unreadable shards played again), each naming the directory.
    pub notes: Vec<String>,
}

/// Play (or resume) the matchup of `config` into `dir` and read back every
/// game: of the whole matchup, or with `options.part` of that part only.
pub fn play_matchup(config: Config, dir: &Path, options: &RunOptions) -> Result<Matchup, ArenaError> {
    let plan = prepare_part(config, Some(dir), options.part)?;
    let notes = plan.notes.iter().map(|n| format!("{}: {n}", dir.display())).collect();
    options.progress.resumed.fetch_add(plan.complete_games, std::sync::atomic::Ordering::Relaxed);
    let summary = if plan.pending.is_empty() { None } else { Some(plan.run(options)?) };
    if summary.as_ref().is_some_and(|s| s.interrupted) {
        return Err(ArenaError::Interrupted);
    }
    let results = match options.part {
        None => read_results(&plan.config, dir)?,
        Some(_) => read_games(&plan.config, dir)?,
    };
    let mut thinking = plan.complete_thinking;
    if let Some(s) = &summary {
        thinking.add(&Thinking::of(&s.tally));
    }
    Ok(Matchup { summary, results, thinking, notes })
}

/// Read a matchup's games back: every game exactly once, with the bots the
/// config puts in each seat.
pub fn read_results(config: &Config, dir: &Path) -> Result<Vec<GameResult>, ArenaError> {
    let results = read_games(config, dir)?;
    let ids_ok = results.len() as u64 == config.games && results.iter().enumerate().all(|(i, r)| r.game_id == i as u64);
    if !ids_ok {
        return Err(ArenaError::Data(format!(
            "{}: expected games 0..{} once each, found {} games",
            dir.display(),
            config.games,
            results.len()
        )));
    }
    Ok(results)
}

/// The games on disk in `dir`, in game-id order, each checked against the
/// matchup's bots (a part's games: not every id).
fn read_games(config: &Config, dir: &Path) -> Result<Vec<GameResult>, ArenaError> {
    let mut results = Vec::with_capacity(config.games as usize);
    for path in shard_files(&dir.join(GAMES_DIR))? {
        for g in read_games_file(&path)? {
            let seat1 = config.seat1_player(g.game_id);
            let expected = [config.bots[seat1].to_string(), config.bots[1 - seat1].to_string()];
            if g.bots != expected {
                return Err(ArenaError::Data(format!(
                    "{}: game {} has bots {:?}, the matchup says {:?}",
                    path.display(),
                    g.game_id,
                    g.bots,
                    expected
                )));
            }
            let seat1_score = match g.result.as_str() {
                "1-0" => 1.0,
                "0-1" => 0.0,
                "1/2-1/2" => 0.5,
                other => {
                    return Err(ArenaError::Data(format!("{}: game {}: result `{other}`", path.display(), g.game_id)))
                }
            };
            let fingerprint = fingerprint(&g);
            results.push(GameResult {
                game_id: g.game_id,
                seat1,
                seat1_score,
                plies: g.plies,
                termination: g.termination,
                fingerprint,
            });
        }
    }
    results.sort_by_key(|r| r.game_id);
    Ok(results)
}

/// [`GameResult::fingerprint`]: only compared within one process, so the
/// standard library's fixed-key hasher is enough.
fn fingerprint(g: &junqi_selfplay::StoredGame) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (&g.start_jfen, &g.moves, &g.result, &g.termination).hash(&mut h);
    h.finish()
}

/// Pair scores of `player` over the matchup: `(game 2k, game 2k+1)`, the two
/// games of one seed with the seats swapped.
pub fn pair_scores(results: &[GameResult], player: usize) -> Vec<(f64, f64)> {
    results.chunks_exact(2).map(|p| (p[0].score_of(player), p[1].score_of(player))).collect()
}
