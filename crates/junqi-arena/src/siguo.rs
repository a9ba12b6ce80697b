//! Four-player (四国军棋) arenas and sequential tests: two bots as two teams.
//!
//! Team A's bot plays armies 0 and 2, team B's armies 1 and 3; every deal
//! (one seeded four-player start) is played twice, the second time with the
//! teams' seats swapped (A on armies 1 and 3), so both teams sit in both
//! seat pairs of every deal. The two games of a deal are a pair, scored as
//! the two-player paired games: pentanomial counts, the score and Elo with
//! their 95% intervals ([`junqi_stats::pair_estimates`]), and fishtest's
//! normalized GSPRT ([`junqi_stats::Sprt`]).
//!
//! The games are a `junqi-selfplay` four-player run
//! ([`junqi_selfplay::run_siguo`]): `run.json` and `games/` of the four-seat
//! Parquet schema, which `junqi replay` re-plays. A finished run is read back
//! when the same command runs again; a killed one is not resumed (the
//! directory must be removed first).

use crate::{ensure_run_file, write_atomic, ArenaError};
use junqi_selfplay::{
    game_seed, read_siguo_games_file, run_siguo, shard_files, team_members, SiguoConfig, SiguoGame, GAMES_DIR, RUN_FILE,
};
use junqi_siguo::{
    build_agent, deploy_armies, setup::validate, Announcement, Army, Move, MoveList, Position, Rules, SiguoAgent,
    SiguoBot, SiguoInfoSet, OPTION_NAMES,
};
use junqi_stats::{pair_estimates, Decision, Estimate, Penta, Sprt, SprtSummary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The arena file's name inside the output directory.
pub const SIGUO_ARENA_FILE: &str = "arena.json";
/// The format of a four-player arena's `arena.json`.
pub const SIGUO_ARENA_FORMAT: &str = "junqi-siguo-arena/1";
/// The file holding a four-player test's config inside its output directory.
pub const SIGUO_SPRT_FILE: &str = "sprt.json";
/// The format of a four-player test's `sprt.json`.
pub const SIGUO_SPRT_FORMAT: &str = "junqi-siguo-sprt/1";

/// Four-player rules stored as their rules file (TOML text), so a config
/// file names every option (one module for every four-player config).
use junqi_selfplay::siguo_rules_text as rules_toml;

/// The mode and the options that differ from its preset, for report headers.
pub fn describe_rules(rules: &Rules) -> String {
    let preset = Rules::preset(rules.mode);
    let changes: Vec<String> = OPTION_NAMES
        .iter()
        .filter(|n| rules.value(n) != preset.value(n))
        .map(|n| format!("{n}={}", rules.value(n).unwrap_or_default()))
        .collect();
    if changes.is_empty() {
        format!("{} (preset rules)", rules.mode)
    } else {
        format!("{} ({})", rules.mode, changes.join(", "))
    }
}

/// Two known four-player bots, distinct unless `allow_same`, and an even
/// number of games (at least one pair): checked by building the self-play
/// config of the games.
fn check_games(
    rules: Rules,
    bots: &[String; 2],
    games: u64,
    seed: u64,
    flag: &str,
    allow_same: bool,
) -> Result<SiguoConfig, ArenaError> {
    for member in bots.iter().flat_map(|b| team_members(b)) {
        if member.is_empty() {
            return Err(ArenaError::Config("an empty bot spec".into()));
        }
        check_bot(member, &rules)?;
    }
    if !allow_same && bots[0] == bots[1] {
        return Err(ArenaError::Config(format!("both teams have the bot `{}`: give two different bots", bots[0])));
    }
    if games < 2 || !games.is_multiple_of(2) {
        return Err(ArenaError::Config(format!(
            "{flag} {games}: every deal is played twice (the teams' seats swapped), so it must be even and at least 2"
        )));
    }
    siguo_config(rules, games, bots.clone(), seed)
}

/// Is `spec` a built-in four-player bot (random, greedy, heuristic, mcts:N)?
fn built_in(spec: &str) -> bool {
    team_members(spec).iter().all(|member| junqi_siguo::bot_from_spec(member).is_ok())
}

/// A known four-player bot: a built-in one or a registered agent (built
/// once, so an engine that does not start is refused before any game).
fn check_bot(spec: &str, rules: &Rules) -> Result<(), ArenaError> {
    let builtin = junqi_siguo::bot_from_spec(spec);
    if builtin.is_ok() {
        return Ok(());
    }
    match build_agent(spec, rules) {
        Some(agent) => agent.map(drop).map_err(|e| ArenaError::Config(format!("bot `{spec}`: {e}"))),
        None => Err(ArenaError::Config(builtin.err().expect("not built in"))),
    }
}

/// The most games one run may hold (as `junqi-selfplay`'s four-player runs).
const MAX_GAMES: u64 = 10_000_000;

/// The self-play settings of `games` games: checked by `junqi-selfplay`
/// when both bots are built in; with an agent, the same settings (an even
/// number of games, the same shards), played by [`play_with_agents`].
fn siguo_config(rules: Rules, games: u64, bots: [String; 2], seed: u64) -> Result<SiguoConfig, ArenaError> {
    if bots.iter().all(|b| built_in(b)) {
        return Ok(SiguoConfig::new(rules, games, bots, seed)?);
    }
    for member in bots.iter().flat_map(|b| team_members(b)) {
        check_bot(member, &rules)?;
    }
    if games < 2 || !games.is_multiple_of(2) || games > MAX_GAMES {
        return Err(ArenaError::Config(format!(
            "{games} games: every deal is played twice (the teams' seats swapped), so it must be even, from 2 to {}",
            MAX_GAMES
        )));
    }
    let shard_games = (games / 32).clamp(256, 10_000);
    Ok(SiguoConfig {
        rules,
        games,
        bots,
        seed,
        shard_games,
        samples_per_game: junqi_selfplay::SamplesPerGame::Count(0),
    })
}

/// Everything that decides a four-player arena's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiguoArenaConfig {
    #[serde(with = "rules_toml")]
    pub rules: Rules,
    /// Team A's bot and team B's (four-player specs: random, greedy,
    /// heuristic, mcts:N).
    pub bots: [String; 2],
    /// Games (even: deal `d` is games `2d`, A on armies 0 and 2, and `2d + 1`, A on armies 1 and 3).
    pub games: u64,
    /// Deal `d` starts from `Position::new_game(rules, seed + d)`.
    pub seed: u64,
}

impl SiguoArenaConfig {
    /// A checked arena: known, distinct bots and an even number of games.
    pub fn new(rules: Rules, bots: [&str; 2], games: u64, seed: u64) -> Result<SiguoArenaConfig, ArenaError> {
        let bots = bots.map(|b| b.trim().to_string());
        check_games(rules, &bots, games, seed, "--games-per-pair", false)?;
        Ok(SiguoArenaConfig { rules, bots, games, seed })
    }

    /// The self-play run that plays the games.
    pub fn selfplay(&self) -> Result<SiguoConfig, ArenaError> {
        siguo_config(self.rules, self.games, self.bots.clone(), self.seed)
    }
}

/// Play the games of `config` into `dir` (a `junqi-selfplay` four-player
/// run), or read them back when a finished run of the same games is there.
/// Returns every game in game-id order and whether they were played now.
pub fn play_or_read(config: &SiguoConfig, dir: &Path, threads: usize) -> Result<(Vec<SiguoGame>, bool), ArenaError> {
    let played = !(dir.join(RUN_FILE).exists() || dir.join(GAMES_DIR).exists());
    if played {
        if config.bots.iter().all(|b| built_in(b)) {
            run_siguo(config, dir, &junqi_selfplay::RunOptions { threads, ..Default::default() })?;
        } else {
            play_with_agents(config, dir, threads)?;
        }
    }
    Ok((read_games(config, dir)?, played))
}

/// One seat of a game with an agent: a built-in bot or an agent.
enum SeatPlayer {
    Bot(Box<dyn SiguoBot>),
    Agent(Box<dyn SiguoAgent>),
}

/// Play game `id` of `config`, whose bots may be agents, as
/// [`junqi_selfplay::play_siguo_game`] plays built-in bots (the same start,
/// the same seats, the built-in bots' random stream from the same seed).
/// An agent that fails forfeits the game for its army's team: the record
/// ends before the move it failed to make, the other team wins, the
/// termination is `forfeit`, and the reason is returned with the game.
pub fn play_agent_game(
    config: &SiguoConfig,
    id: u64,
    code_version: &str,
) -> Result<(SiguoGame, Option<String>), ArenaError> {
    let seed = config.deal_seed(id);
    let specs = config.seats(id);
    let mut rng = junqi_core::rng_from_seed(seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(1 + id % 2)));
    let mut seats = Vec::with_capacity(4);
    for spec in &specs {
        seats.push(match junqi_siguo::bot_from_spec(spec) {
            Ok(bot) => SeatPlayer::Bot(bot),
            Err(_) => {
                let agent = build_agent(spec, &config.rules)
                    .unwrap_or_else(|| Err("not a four-player bot".into()))
                    .map_err(|e| ArenaError::Config(format!("bot `{spec}`: {e}")))?;
                SeatPlayer::Agent(agent)
            }
        });
    }
    let mut forfeit: Option<(Army, String)> = None;
    for army in Army::ALL {
        if let SeatPlayer::Agent(agent) = &mut seats[army.index()] {
            // Each agent draws its seed from the bots' random stream (as the
            // two-player engine client does): reproducible from the run's
            // seed, but no function of the deal's an engine could invert.
            if let Err(why) = agent.start(&config.rules, army, &mut rng) {
                forfeit = Some((army, why));
                break;
            }
        }
    }
    // A bot or agent that deploys (a net's learned model, an engine that
    // said `deploys siguo`) replaces its armies' part of the deal. An
    // agent's failed or illegal deployment forfeits the game (its army keeps
    // the deal's in the record); a built-in bot's is a bug, an error.
    let start = deploy_armies(&Position::new_game(config.rules, seed), seed, |army, rules, rng| {
        match &mut seats[army.index()] {
            SeatPlayer::Bot(bot) => bot.deploy(army, rules, rng),
            SeatPlayer::Agent(_) if forfeit.is_some() => None,
            SeatPlayer::Agent(agent) => {
                let checked = agent.deploy().and_then(|d| match d {
                    Some(d) => {
                        validate(army, &d, rules).map(|()| Some(d)).map_err(|e| format!("illegal deployment: {e}"))
                    }
                    None => Ok(None),
                });
                checked.unwrap_or_else(|why| {
                    forfeit = Some((army, why));
                    None
                })
            }
        }
    })
    .map_err(|e| ArenaError::Config(format!("game {id}: {e}")))?;
    let mut pos = start.clone();
    let mut infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
    let mut moves: Vec<Move> = Vec::new();
    if forfeit.is_none() {
        for (army, seat) in Army::ALL.iter().zip(seats.iter_mut()) {
            if let SeatPlayer::Agent(agent) = seat {
                agent.begin(&infos[army.index()]);
            }
        }
    }
    let mut list = MoveList::new();
    while forfeit.is_none() && pos.outcome().is_none() {
        let army = pos.turn();
        let info = &infos[army.index()];
        let chosen = match &mut seats[army.index()] {
            SeatPlayer::Bot(bot) => bot.choose(info, &mut rng).ok_or_else(|| {
                ArenaError::Config(format!("bot {} found no move for {army} at ply {}", bot.name(), pos.ply()))
            })?,
            SeatPlayer::Agent(agent) => match agent.choose(info) {
                Ok(mv) => {
                    pos.legal_moves(&mut list);
                    if !list.contains(mv) {
                        forfeit = Some((army, format!("illegal move {mv} at ply {}", pos.ply())));
                        break;
                    }
                    mv
                }
                Err(why) => {
                    forfeit = Some((army, why));
                    break;
                }
            },
        };
        let before = pos.clone();
        let effect = pos.play(chosen).map_err(|e| {
            ArenaError::Config(format!("game {id}: {} played {chosen} for {army}: {e}", specs[army.index()]))
        })?;
        let a = Announcement::new(&before, chosen, &effect, &pos);
        for info in infos.iter_mut() {
            info.update(&a);
        }
        for seat in seats.iter_mut() {
            if let SeatPlayer::Agent(agent) = seat {
                agent.observe(&a);
            }
        }
        moves.push(chosen);
    }
    let (result, termination, reason) = match forfeit {
        Some((army, why)) => {
            eprintln!("warning: {} forfeits four-player game {id} (army {army}): {why}", specs[army.index()]);
            let result = if army.team() == junqi_siguo::Team::A { "0-1" } else { "1-0" };
            // Every other agent, the forfeiting army's ally included, is told
            // the game is over (one that was never started hears nothing).
            for (i, seat) in seats.iter_mut().enumerate() {
                if let SeatPlayer::Agent(agent) = seat {
                    if i != army.index() {
                        agent.finish(Some(army.team().other()), "forfeit");
                    }
                }
            }
            (result.to_string(), "forfeit".to_string(), Some(format!("army {army}: {why}")))
        }
        None => {
            let outcome = pos.outcome().expect("the loop ends with the game");
            for seat in seats.iter_mut() {
                if let SeatPlayer::Agent(agent) = seat {
                    agent.finish(outcome.winner, outcome.termination.name());
                }
            }
            (outcome.result_str().to_string(), outcome.termination.name().to_string(), None)
        }
    };
    let game = SiguoGame {
        game_id: id,
        rules: config.rules.to_toml_string(),
        seed,
        start: start.to_string(),
        moves: moves.iter().map(Move::to_string).collect(),
        result,
        termination,
        plies: moves.len() as u32,
        bots: specs,
        code_version: code_version.to_string(),
    };
    Ok((game, reason))
}

/// [`run_siguo`] for a run whose bots include an agent: the same `run.json`
/// and `games/` (four-seat schema), the games played on `threads` threads,
/// each forfeit's reason kept in its shard's footer (`junqi.forfeits`, game
/// id to reason). A directory that already holds a run is refused.
pub fn play_with_agents(config: &SiguoConfig, out: &Path, threads: usize) -> Result<(), ArenaError> {
    let (run_file, games_dir) = (out.join(RUN_FILE), out.join(GAMES_DIR));
    if run_file.exists() || games_dir.exists() {
        return Err(ArenaError::Config(format!(
            "{} already holds a run (four-player runs do not resume): choose another --out",
            out.display()
        )));
    }
    std::fs::create_dir_all(&games_dir).map_err(ArenaError::io(&games_dir))?;
    let code_version = junqi_selfplay::code_version();
    let config_json = serde_json::to_value(config).expect("configs serialize");
    let run = serde_json::json!({
        "format": junqi_selfplay::SIGUO_RUN_FORMAT,
        "config": config_json,
        "seed": config.seed,
        "code_version": code_version,
        "checksums": "crc32c",
    });
    write_atomic(&run_file, &(serde_json::to_string_pretty(&run).expect("json") + "\n"))?;
    let shards = config.games.div_ceil(config.shard_games);
    for s in 0..shards {
        let first = s * config.shard_games;
        let last = (first + config.shard_games).min(config.games);
        let next = std::sync::atomic::AtomicU64::new(first);
        let played = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, (last - first) as usize) {
                scope.spawn(|| loop {
                    let id = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if id >= last {
                        break;
                    }
                    let game = play_agent_game(config, id, &code_version);
                    let failed = game.is_err();
                    played.lock().unwrap_or_else(|e| e.into_inner()).push(game);
                    if failed {
                        next.store(last, std::sync::atomic::Ordering::Relaxed);
                    }
                });
            }
        });
        let mut games = Vec::new();
        let mut forfeits = BTreeMap::new();
        for g in played.into_inner().unwrap_or_else(|e| e.into_inner()) {
            let (game, reason) = g?;
            if let Some(r) = reason {
                forfeits.insert(game.game_id, r);
            }
            games.push(game);
        }
        games.sort_by_key(|g| g.game_id);
        let mut metadata = vec![
            ("junqi.config".to_string(), config_json.to_string()),
            ("junqi.seed".to_string(), config.seed.to_string()),
            ("junqi.code_version".to_string(), code_version.clone()),
            ("junqi.shard".to_string(), s.to_string()),
            ("junqi.first_game".to_string(), first.to_string()),
            ("junqi.games".to_string(), (last - first).to_string()),
        ];
        if !forfeits.is_empty() {
            metadata.push(("junqi.forfeits".to_string(), serde_json::to_string(&forfeits).expect("json")));
        }
        junqi_selfplay::write_siguo_games_shard(&games_dir, s, &games, &metadata)?;
    }
    Ok(())
}

/// Every game of `config` stored in `dir`, checked: ids `0..games` once
/// each, every game from its deal with the bots the pairing seats there.
pub fn read_games(config: &SiguoConfig, dir: &Path) -> Result<Vec<SiguoGame>, ArenaError> {
    let other = |why: String| {
        ArenaError::Config(format!(
            "{} holds other or unfinished games ({why}); four-player runs do not resume: remove it or choose another --out",
            dir.display()
        ))
    };
    let games_dir = dir.join(GAMES_DIR);
    if !games_dir.is_dir() {
        return Err(other("no games/".into()));
    }
    let mut games = Vec::new();
    for path in shard_files(&games_dir)? {
        games.extend(read_siguo_games_file(&path)?);
    }
    games.sort_by_key(|g| g.game_id);
    if games.len() as u64 != config.games || games.iter().enumerate().any(|(i, g)| g.game_id != i as u64) {
        return Err(other(format!("{} games stored, {} expected", games.len(), config.games)));
    }
    let rules = config.rules.to_toml_string();
    for g in &games {
        if g.seed != config.deal_seed(g.game_id) || g.bots != config.seats(g.game_id) || g.rules != rules {
            return Err(other(format!(
                "game {} has deal seed {} and bots {:?}, this run wants {} and {:?}",
                g.game_id,
                g.seed,
                g.bots,
                config.deal_seed(g.game_id),
                config.seats(g.game_id)
            )));
        }
    }
    Ok(games)
}

/// Team A's score in game `g` (1, ½ or 0): A holds armies 0 and 2 in even
/// games, armies 1 and 3 in odd ones; `1-0` is a win of armies 0 and 2.
pub fn team_a_score(g: &SiguoGame) -> Result<f64, ArenaError> {
    let first_team = match g.result.as_str() {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        other => return Err(ArenaError::Data(format!("game {}: result `{other}`", g.game_id))),
    };
    Ok(if g.game_id.is_multiple_of(2) { first_team } else { 1.0 - first_team })
}

/// Team A's pair scores: (A on armies 0 and 2, A on armies 1 and 3) of each deal.
pub fn team_a_pairs(games: &[SiguoGame]) -> Result<Vec<(f64, f64)>, ArenaError> {
    games.chunks_exact(2).map(|p| Ok((team_a_score(&p[0])?, team_a_score(&p[1])?))).collect()
}

/// Wins, draws and losses of team A, and how the games ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SiguoTally {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Team A's points on armies 0 and 2 (the first mover's team) and on armies 1 and 3.
    pub points_by_seats: [f64; 2],
    /// Every game's termination (`flag`, `no_armies`, `no_progress`, `max_plies`, …).
    pub terminations: BTreeMap<String, u64>,
    /// The drawn games' terminations.
    pub draws_by_termination: BTreeMap<String, u64>,
    pub plies: u64,
}

impl SiguoTally {
    pub fn add(&mut self, g: &SiguoGame) -> Result<(), ArenaError> {
        let s = team_a_score(g)?;
        self.games += 1;
        if s == 1.0 {
            self.wins += 1;
        } else if s == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
            *self.draws_by_termination.entry(g.termination.clone()).or_default() += 1;
        }
        self.points_by_seats[(g.game_id % 2) as usize] += s;
        *self.terminations.entry(g.termination.clone()).or_default() += 1;
        self.plies += g.plies as u64;
        Ok(())
    }

    /// Team A's points per game.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }

    /// The drawn games by termination (`quiet_plies 3, …`, or `none`).
    pub fn draws_text(&self) -> String {
        SiguoTally::counts(&self.draws_by_termination)
    }

    fn counts(map: &BTreeMap<String, u64>) -> String {
        if map.is_empty() {
            return "none".into();
        }
        map.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    }
}

/// Everything a four-player arena found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiguoArenaReport {
    pub config: SiguoArenaConfig,
    pub code_version: String,
    pub tally: SiguoTally,
    /// Team A's pair counts scoring 0, ½, 1, 1½, 2.
    pub penta: [u64; 5],
    /// Team A's score per game with its 95% interval, from the pairs.
    pub score: Estimate,
    /// Team A's Elo advantage from the pairs.
    pub elo: Estimate,
    /// Normalized Elo from the pairs (as the SPRT uses).
    pub nelo: Estimate,
}

impl SiguoArenaReport {
    /// The statistics of `games` (every game of `config`, in id order).
    pub fn new(config: &SiguoArenaConfig, games: &[SiguoGame]) -> Result<SiguoArenaReport, ArenaError> {
        let mut tally = SiguoTally::default();
        for g in games {
            tally.add(g)?;
        }
        let penta = Penta::from_pairs(team_a_pairs(games)?)?;
        let e = pair_estimates(&penta);
        Ok(SiguoArenaReport {
            config: config.clone(),
            code_version: junqi_selfplay::code_version(),
            tally,
            penta: penta.counts,
            score: e.score,
            elo: e.elo,
            nelo: e.nelo,
        })
    }

    /// The report as Markdown.
    pub fn to_markdown(&self) -> String {
        let (c, t) = (&self.config, &self.tally);
        let [a, b] = &c.bots;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "Four-player arena (四国): {}, team A `{a}` against team B `{b}`, {} games ({} deals, each played with \
             A on armies 0 and 2, then on armies 1 and 3), seed {}, code {}\n",
            describe_rules(&c.rules),
            t.games,
            t.games / 2,
            c.seed,
            self.code_version
        );
        let _ = writeln!(
            s,
            "| team A | team B | games | W-D-L (A) | score (A) [95% CI] | Elo [95% CI] | nElo [95% CI] | pentanomial (0, ½, 1, 1½, 2) |"
        );
        let _ = writeln!(s, "|---|---|---:|---|---|---|---|---|");
        let p = self.penta;
        // A mixed team's `X|Y` would split the table's cell.
        let (a, b) = (a.replace('|', "\\|"), b.replace('|', "\\|"));
        let _ = writeln!(
            s,
            "| {a} | {b} | {} | {}-{}-{} | {:.1}% [{:.1}, {:.1}] | {} | {:+.1} [{:+.1}, {:+.1}] | {} {} {} {} {} |",
            t.games,
            t.wins,
            t.draws,
            t.losses,
            100.0 * self.score.value,
            100.0 * self.score.low,
            100.0 * self.score.high,
            self.elo.show(),
            self.nelo.value,
            self.nelo.low,
            self.nelo.high,
            p[0],
            p[1],
            p[2],
            p[3],
            p[4]
        );
        let half = (t.games / 2).max(1) as f64;
        let _ = writeln!(
            s,
            "\nIntervals from the {} pairs (the two games of a deal). Team A scored {:.1}% on armies 0 and 2 (moving \
             first) and {:.1}% on armies 1 and 3. Endings: {}. Draws: {}. Mean length {:.0} plies.",
            t.games / 2,
            100.0 * t.points_by_seats[0] / half,
            100.0 * t.points_by_seats[1] / half,
            SiguoTally::counts(&t.terminations),
            t.draws_text(),
            t.plies as f64 / t.games.max(1) as f64
        );
        s
    }
}

/// Play (or read back) the arena in `out` on `threads` threads: `arena.json`
/// (config, code version), the games (`run.json`, `games/`), and the report.
pub fn run_siguo_arena(config: &SiguoArenaConfig, out: &Path, threads: usize) -> Result<SiguoArenaReport, ArenaError> {
    let selfplay = config.selfplay()?;
    let _lock = ensure_run_file(out, SIGUO_ARENA_FILE, SIGUO_ARENA_FORMAT, config, None)?;
    let (games, _) = play_or_read(&selfplay, out, threads)?;
    let report = SiguoArenaReport::new(config, &games)?;
    write_atomic(
        &out.join("results.json"),
        &(serde_json::to_string_pretty(&report).expect("reports serialise") + "\n"),
    )?;
    write_atomic(&out.join("results.md"), &report.to_markdown())?;
    Ok(report)
}

/// Everything that decides a four-player test's games and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiguoSprtConfig {
    #[serde(with = "rules_toml")]
    pub rules: Rules,
    /// The candidate's team bot and the baseline's.
    pub candidate: String,
    pub baseline: String,
    /// Hypotheses in normalized Elo: H0 nElo = elo0, H1 nElo = elo1.
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Games per batch (even); the LLR is checked after each batch.
    pub batch_games: u64,
    /// Stop without a decision after this many games.
    pub max_games: u64,
    pub seed: u64,
}

impl SiguoSprtConfig {
    /// The test statistic's parameters.
    pub fn sprt(&self) -> Result<Sprt, ArenaError> {
        Ok(Sprt::new(self.elo0, self.elo1, self.alpha, self.beta)?)
    }

    /// Everything [`run_siguo_sprt`] checks before it writes anything;
    /// `allow_same`: the candidate may be the baseline (an A/A test).
    pub fn check(&self, allow_same: bool) -> Result<(), ArenaError> {
        self.sprt()?;
        if self.max_games < self.batch_games {
            return Err(ArenaError::Config(format!(
                "--max-games ({}) must be at least one batch ({} games)",
                self.max_games, self.batch_games
            )));
        }
        let bots = [self.candidate.clone(), self.baseline.clone()];
        check_games(self.rules, &bots, self.batch_games, self.seed, "--batch-games", allow_same).map(|_| ())
    }

    /// Batch `b`: `batch_games` games from deals of their own seed, the
    /// candidate as team A.
    pub fn batch(&self, b: u64) -> Result<SiguoConfig, ArenaError> {
        let bots = [self.candidate.clone(), self.baseline.clone()];
        siguo_config(self.rules, self.batch_games, bots, game_seed(self.seed, b))
    }

    /// The directory of batch `b`'s games inside `out`.
    pub fn batch_dir(&self, out: &Path, b: u64) -> PathBuf {
        out.join("batches").join(format!("{b:05}"))
    }
}

/// Where a four-player test stopped.
#[derive(Clone, Debug, Serialize)]
pub struct SiguoSprtOutcome {
    pub config: SiguoSprtConfig,
    pub code_version: String,
    pub summary: SprtSummary,
    pub games: u64,
    /// Stopped by `max_games` with the LLR still inside the bounds.
    pub limit_reached: bool,
    /// The candidate's wins, draws, losses and the games' endings.
    pub tally: SiguoTally,
}

/// Play (or read back) the test in `out`, batch after batch, until the LLR
/// leaves its bounds or the game limit; `on_batch` hears the statistics
/// after each batch. Batch `b` is a four-player run in `out/batches/<b>`.
pub fn run_siguo_sprt(
    config: &SiguoSprtConfig,
    out: &Path,
    threads: usize,
    allow_same: bool,
    on_batch: impl FnMut(&SprtSummary, u64),
) -> Result<SiguoSprtOutcome, ArenaError> {
    let play = |batch: &SiguoConfig, dir: &Path| play_or_read(batch, dir, threads).map(|(games, _)| games);
    run_siguo_sprt_with(config, out, allow_same, play, on_batch)
}

/// [`run_siguo_sprt`] with the batches played by `play` (batch `b`'s
/// games in its directory, every one of them in game-id order; e.g. a
/// resumable run that a caller's stop flag may interrupt with
/// [`ArenaError::Interrupted`], as `junqi loop`'s gate does).
pub fn run_siguo_sprt_with(
    config: &SiguoSprtConfig,
    out: &Path,
    allow_same: bool,
    mut play: impl FnMut(&SiguoConfig, &Path) -> Result<Vec<SiguoGame>, ArenaError>,
    mut on_batch: impl FnMut(&SprtSummary, u64),
) -> Result<SiguoSprtOutcome, ArenaError> {
    config.check(allow_same)?;
    let _lock = ensure_run_file(out, SIGUO_SPRT_FILE, SIGUO_SPRT_FORMAT, config, None)?;
    let sprt = config.sprt()?;
    let mut penta = Penta::default();
    let mut tally = SiguoTally::default();
    for b in 0.. {
        let games = play(&config.batch(b)?, &config.batch_dir(out, b))?;
        for (x, y) in team_a_pairs(&games)? {
            penta.add_pair(x, y)?;
        }
        for g in &games {
            tally.add(g)?;
        }
        let summary = sprt.evaluate(&penta)?;
        on_batch(&summary, tally.games);
        let limit_reached = tally.games + config.batch_games > config.max_games;
        if summary.decision != Decision::Continue || limit_reached {
            return Ok(SiguoSprtOutcome {
                config: config.clone(),
                code_version: junqi_selfplay::code_version(),
                summary,
                games: tally.games,
                limit_reached: limit_reached && summary.decision == Decision::Continue,
                tally,
            });
        }
    }
    unreachable!("the loop returns")
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_siguo::Mode;

    fn fresh_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("junqi-siguo-arena-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn anqi() -> Rules {
        Rules::preset(Mode::Anqi)
    }

    /// Each deal is played twice, the teams' seats swapped; the stored games
    /// say so, and team A's pair scores read the results from its seats.
    #[test]
    fn pairs_swap_the_teams_on_the_same_deal() {
        let dir = fresh_dir("pairs");
        let config = SiguoArenaConfig::new(anqi(), ["heuristic", "random"], 4, 7).unwrap();
        let report = run_siguo_arena(&config, &dir, 2).unwrap();
        let games = read_games(&config.selfplay().unwrap(), &dir).unwrap();
        assert_eq!(games.len(), 4);
        for pair in games.chunks(2) {
            assert_eq!((pair[0].seed, &pair[0].start), (pair[1].seed, &pair[1].start), "one deal");
            assert_eq!(pair[0].bots, ["heuristic", "random", "heuristic", "random"]);
            assert_eq!(pair[1].bots, ["random", "heuristic", "random", "heuristic"]);
            assert_ne!(pair[0].moves, pair[1].moves);
        }
        assert_ne!(games[0].seed, games[2].seed, "deals differ");
        let mut t = SiguoTally::default();
        for g in &games {
            let s = team_a_score(g).unwrap();
            let seats_of_a: Vec<usize> = (0..4).filter(|&i| g.bots[i] == "heuristic").collect();
            let a_first = seats_of_a == [0, 2];
            let expected = match (g.result.as_str(), a_first) {
                ("1/2-1/2", _) => 0.5,
                ("1-0", true) | ("0-1", false) => 1.0,
                _ => 0.0,
            };
            assert_eq!(s, expected, "game {}", g.game_id);
            t.add(g).unwrap();
        }
        assert_eq!(report.tally, t);
        assert_eq!(report.penta.iter().sum::<u64>(), 2);
        // Read back, not played again: the same report.
        assert_eq!(run_siguo_arena(&config, &dir, 1).unwrap().tally, report.tally);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A mixed team (`X|Y`): X on the team's first army to move, Y on its
    /// ally, on both seat pairs; and a member that is no bot is refused.
    #[test]
    fn a_mixed_team_seats_each_bot_on_its_army() {
        let dir = fresh_dir("mixed");
        let config = SiguoArenaConfig::new(anqi(), ["heuristic|random", "greedy"], 4, 11).unwrap();
        let report = run_siguo_arena(&config, &dir, 2).unwrap();
        let games = read_games(&config.selfplay().unwrap(), &dir).unwrap();
        for pair in games.chunks(2) {
            assert_eq!(pair[0].bots, ["heuristic", "greedy", "random", "greedy"]);
            assert_eq!(pair[1].bots, ["greedy", "heuristic", "greedy", "random"]);
        }
        assert_eq!(report.tally.games, 4);
        let md = report.to_markdown();
        assert!(md.contains("team A `heuristic|random`") && md.contains("| heuristic\\|random | greedy |"), "{md}");
        for bad in ["heuristic|nonsense", "heuristic|"] {
            let err = SiguoArenaConfig::new(anqi(), [bad, "greedy"], 4, 11).unwrap_err().to_string();
            assert!(err.contains("nonsense") || err.contains("empty bot spec"), "{bad}: {err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The same seed gives the same games and report whatever the threads.
    #[test]
    fn arenas_are_determined_by_the_seed() {
        let (a, b) = (fresh_dir("seed-a"), fresh_dir("seed-b"));
        let config = SiguoArenaConfig::new(anqi(), ["greedy", "random"], 4, 3).unwrap();
        let ra = run_siguo_arena(&config, &a, 1).unwrap();
        let rb = run_siguo_arena(&config, &b, 2).unwrap();
        assert_eq!(ra, rb);
        let sp = config.selfplay().unwrap();
        assert_eq!(read_games(&sp, &a).unwrap(), read_games(&sp, &b).unwrap());
        // Another config in the same directory is refused.
        let other = SiguoArenaConfig::new(anqi(), ["greedy", "random"], 4, 4).unwrap();
        let err = run_siguo_arena(&other, &a, 1).unwrap_err().to_string();
        assert!(err.contains("other work"), "{err}");
        for d in [a, b] {
            let _ = std::fs::remove_dir_all(&d);
        }
    }

    #[test]
    fn bad_configs_are_refused() {
        let err = |bots: [&str; 2], games| SiguoArenaConfig::new(anqi(), bots, games, 0).unwrap_err().to_string();
        assert!(err(["nope", "random"], 2).contains("nope"));
        assert!(err(["mcts:sims=100,c=4", "random"], 2).contains("unknown key"));
        assert!(err(["net:fanqi", "random"], 2).contains("net:fanqi"));
        assert!(err(["random", "random"], 2).contains("both teams"));
        assert!(err(["greedy", "random"], 3).contains("even"));
        assert!(err(["greedy", "random"], 0).contains("even"));
        let sprt = SiguoSprtConfig {
            rules: anqi(),
            candidate: "heuristic".into(),
            baseline: "random".into(),
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            batch_games: 4,
            max_games: 2,
            seed: 0,
        };
        assert!(sprt.check(false).unwrap_err().to_string().contains("--max-games"));
        let same = SiguoSprtConfig { baseline: "heuristic".into(), max_games: 8, ..sprt.clone() };
        assert!(same.check(false).is_err());
        assert!(same.check(true).is_ok());
        let bounds = SiguoSprtConfig { elo1: -1.0, max_games: 8, ..sprt };
        assert!(bounds.check(false).is_err());
    }

    /// The config file names every rule option and reads back.
    #[test]
    fn configs_round_trip_through_json() {
        let mut rules = anqi();
        rules.apply_override("turn_order=clockwise").unwrap();
        let config = SiguoArenaConfig::new(rules, ["greedy", "mcts:10"], 2, 5).unwrap();
        let json = serde_json::to_string(&config).unwrap();
        assert!(json.contains("turn_order"), "{json}");
        assert_eq!(serde_json::from_str::<SiguoArenaConfig>(&json).unwrap(), config);
        assert_eq!(describe_rules(&rules), "anqi (turn_order=clockwise)");
        assert_eq!(describe_rules(&anqi()), "anqi (preset rules)");
    }

    /// An obvious difference (heuristic against random) ends the test with H1
    /// after a few batches.
    #[test]
    fn sprt_stops_on_an_obvious_difference() {
        let dir = fresh_dir("sprt");
        let config = SiguoSprtConfig {
            rules: anqi(),
            candidate: "heuristic".into(),
            baseline: "random".into(),
            elo0: 0.0,
            elo1: 200.0,
            alpha: 0.1,
            beta: 0.1,
            batch_games: 4,
            max_games: 40,
            seed: 1,
        };
        let mut batches = 0;
        let outcome = run_siguo_sprt(&config, &dir, 2, false, |_, _| batches += 1).unwrap();
        assert_eq!(outcome.summary.decision, Decision::AcceptH1, "{:?}", outcome.summary);
        assert!(!outcome.limit_reached);
        assert_eq!(outcome.games, 4 * batches);
        assert!(outcome.tally.score() > 0.7, "{:?}", outcome.tally);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
