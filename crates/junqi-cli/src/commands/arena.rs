//! `junqi arena`: paired games among bots, crosstable and Bradley–Terry Elo.

use crate::live::Live;
use crate::rules_arg::RulesArgs;
use crate::Interrupted;
use anyhow::{Context, Result};
use junqi_arena::arena::{run_arena, run_arena_part, ArenaConfig, Schedule};
use junqi_arena::{write_atomic, ArenaError};
use junqi_bots::BotSpec;
use junqi_core::Mode;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Bots, comma-separated, e.g. `random,greedy,mcts:sims=200` (a bot's
    /// parameters stay with it). `random`, when present, is anchored at 0 Elo.
    /// Bots: random, greedy, heuristic, mcts, cheat-mcts, net:NAME|FILE,
    /// engine:cmd=PROGRAM.
    #[arg(long, value_name = "A,B,...", required_unless_present = "bot", conflicts_with = "bot")]
    bots: Option<String>,
    /// One bot spec, whole (commas inside it stay part of it); repeatable.
    /// Instead of --bots.
    #[arg(long = "bot", value_name = "SPEC")]
    bot: Vec<BotSpec>,
    /// Games per pair of bots: each seed is played twice with the seats swapped, so it must be even.
    #[arg(long, value_name = "N", default_value_t = 100)]
    games_per_pair: u64,
    /// `round-robin` (every bot against every other) or `gauntlet` (the first bot against the rest).
    #[arg(long, default_value = "round-robin")]
    schedule: Schedule,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the deals and deployments; every matchup plays the same seeds.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output directory: arena.json, matchups/*/games/*.parquet, results.json, results.md.
    /// Re-running the same command resumes.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Also write every game as a text record (JGN, docs/records.md) to
    /// FILE, in matchup then game order; rewritten (atomically) as each
    /// matchup finishes.
    #[arg(long, value_name = "FILE")]
    pgnout: Option<PathBuf>,
    /// Play only part I of N (0 ≤ I < N): the shards s with s % N == I of every matchup. N processes with parts
    /// 0/N … N-1/N play the same games as one run; `junqi merge` joins them
    /// and writes the report.
    #[arg(long, value_name = "I/N", conflicts_with = "pgnout")]
    part: Option<junqi_selfplay::Part>,
    /// Start the games from these openings in turn, every matchup the same
    /// (one JFEN position or one deal seed per line; `#` comments).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Four-player games (四国军棋, docs/rules.md §10): --bots A,B names two
    /// teams' bots (random, greedy, heuristic, mcts:N; `X|Y` a mixed team, X
    /// on its lower army, 0 or 1, Y on its ally); A plays armies 0 and
    /// 2, B armies 1 and 3, and every deal is played again with the teams'
    /// seats swapped (--games-per-pair counts both). --rules is the mode
    /// (anqi, shuangming, quanming) or a four-player rules file. Writes
    /// arena.json, run.json, games/ (the four-seat schema), results.json and
    /// results.md; a finished run is read back, a killed one not resumed.
    /// --pgnout writes the games as four-player records once all are played.
    #[arg(long, conflicts_with_all = ["bot", "schedule", "part", "openings"])]
    siguo: bool,
    /// A time limit per move in milliseconds, a match setting
    /// (docs/evaluation.md): a decision that takes longer is a timeout of
    /// its side, and the side's --timeouts-lose-th timeout loses the game
    /// (termination `timeouts`). Give the bots a time budget below it
    /// (`mcts:movetime=…`).
    #[arg(long, value_name = "MS", conflicts_with = "siguo")]
    move_limit: Option<u64>,
    /// With --move-limit: the timeout that loses the game.
    #[arg(long, value_name = "N", default_value_t = 3, requires = "move_limit")]
    timeouts_lose: u32,
    #[command(flatten)]
    rules: RulesArgs,
}

/// `--siguo`: two team bots from `--bots A,B` (a spec's own `key=value`
/// parameters after a comma stay with it, as for two players).
pub fn siguo_team_bots(list: &str) -> Result<[String; 2]> {
    let specs = junqi_bots::split_bot_list(list);
    match <[String; 2]>::try_from(specs) {
        Ok(bots) => Ok(bots),
        Err(specs) => anyhow::bail!(
            "--siguo --bots takes two bots, team A's and team B's (e.g. heuristic,greedy), got {}: `{list}`",
            specs.len()
        ),
    }
}

/// `junqi arena --siguo`: the four-player arena of two team bots.
fn run_siguo(args: &Args) -> Result<()> {
    use junqi_arena::siguo::{run_siguo_arena, SiguoArenaConfig};
    let rules = super::perft::siguo_rules(&args.rules, None)?;
    let Some(list) = args.bots.as_deref() else { anyhow::bail!("--siguo needs --bots A,B (team A, team B)") };
    let [a, b] = siguo_team_bots(list)?;
    let config = SiguoArenaConfig::new(rules, [&a, &b], args.games_per_pair, args.seed)?;
    let threads = threads(args.threads)?;
    let pgn = args.pgnout.as_deref().map(PgnOut::new).transpose()?;
    let report = run_siguo_arena(&config, &args.out, threads)?;
    if let Some(p) = pgn {
        // The records of all the games, read back from games/ (four-player records).
        super::export::write_atomically(&p.file, |w| {
            super::export::write_records(&args.out, Some("arena siguo"), None, w)
        })
        .with_context(|| format!("--pgnout {}", p.file.display()))?;
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", report.to_markdown())?;
    writeln!(stdout, "written: {} and results.md", args.out.join("results.json").display())?;
    Ok(())
}

/// Worker threads: the flag, or one per core.
pub fn threads(flag: Option<usize>) -> Result<usize> {
    let n = flag.unwrap_or_else(|| junqi_selfplay::workers(0));
    junqi_selfplay::limits::in_range("--threads", n, 1, junqi_selfplay::limits::MAX_THREADS).map_err(anyhow::Error::msg)
}

/// `--pgnout FILE`: the records of the finished matchups, in matchup then
/// game order, written again (atomically) whenever more matchups are finished.
struct PgnOut {
    file: PathBuf,
    /// The records of matchups `0..matchups`.
    text: Vec<u8>,
    matchups: usize,
    /// The first error; the arena is then stopped and the command fails with it.
    failed: Option<anyhow::Error>,
}

impl PgnOut {
    fn new(file: &Path) -> Result<PgnOut> {
        let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.is_dir() || file.file_name().is_none() {
            anyhow::bail!("--pgnout {}: no such directory to write it in", file.display());
        }
        Ok(PgnOut { file: file.to_path_buf(), text: Vec::new(), matchups: 0, failed: None })
    }

    /// Add the records of matchups `self.matchups..finished` (each game's
    /// `Event` tag names its matchup directory) and write the file. False
    /// after an error (kept in `failed`).
    fn catch_up(&mut self, config: &ArenaConfig, out: &Path, finished: usize) -> bool {
        if self.failed.is_some() || finished <= self.matchups {
            return self.failed.is_none();
        }
        let written = (|| {
            for k in self.matchups..finished {
                let dir = config.matchup_dir(out, k);
                let event = format!("arena {}", dir.file_name().unwrap_or_default().to_string_lossy());
                super::export::write_records(&dir, Some(&event), None, &mut self.text)?;
                self.matchups = k + 1;
            }
            super::export::write_atomically(&self.file, |w| {
                w.write_all(&self.text)?;
                Ok(0)
            })
        })();
        match written {
            Ok(_) => true,
            Err(e) => {
                self.failed = Some(e.context(format!("--pgnout {}", self.file.display())));
                false
            }
        }
    }
}

/// Turn an interrupted run into exit 130 with how to resume.
pub fn interrupted(e: ArenaError, out: &Path) -> anyhow::Error {
    match e {
        ArenaError::Interrupted => Interrupted(format!(
            "interrupted: finished shards are kept in {}; run the same command again to resume",
            out.display()
        ))
        .into(),
        e => e.into(),
    }
}

/// The bots of a comma list (`--bots A,B`, where a spec's own parameters
/// keep their commas), or else of the repeated `--bot SPEC`, parsed.
pub fn bot_list(list: Option<&str>, whole: &[BotSpec]) -> Result<Vec<BotSpec>> {
    match list {
        Some(list) => junqi_bots::split_bot_list(list)
            .iter()
            .map(|spec| BotSpec::parse(spec).with_context(|| format!("--bots {list}")))
            .collect(),
        None => Ok(whole.to_vec()),
    }
}

pub fn run(args: Args) -> Result<()> {
    if args.siguo {
        return run_siguo(&args);
    }
    junqi_engine::log_to(&args.out); // engines' stderr and traffic logs
    let mode = if args.rules.rules.is_none() { Some(Mode::Fanqi) } else { None };
    let rules = args.rules.resolve(mode)?;
    let bots = bot_list(args.bots.as_deref(), &args.bot)?;
    let config = ArenaConfig::new(rules, bots, args.schedule, args.games_per_pair, args.seed)?
        .with_openings(read_openings(args.openings.as_deref(), &rules)?)
        .with_timeouts(timeout_rule(args.move_limit, args.timeouts_lose)?);
    let threads = threads(args.threads)?;
    if let Some(part) = args.part {
        let live = Live::start(threads, config.total_games().div_ceil(part.count), 0)?;
        let played =
            run_arena_part(&config, &args.out, &live.options, part, |a, b| live.set_label(&format!("{a} vs {b}")));
        live.finish();
        let (games, notes) = played.map_err(|e| interrupted(e, &args.out))?;
        return part_done(&format!("part {part} of the arena"), games, &notes, &args.out);
    }
    // The run directory's lock, held to the end: the results below are
    // written under the same lock as the games.
    let _run_dir = junqi_selfplay::RunDir::open(&args.out)?;
    let mut pgn = args.pgnout.as_deref().map(PgnOut::new).transpose()?;
    let live = Live::start(threads, config.total_games(), 0)?;
    let mut started = 0;
    let report = run_arena(&config, &args.out, &live.options, |a, b| {
        live.set_label(&format!("{a} vs {b}"));
        // Matchups `0..started` are finished.
        if let Some(p) = pgn.as_mut() {
            if !p.catch_up(&config, &args.out, started) {
                live.options.stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        started += 1;
    });
    live.finish();
    if let Some(p) = pgn.as_mut() {
        if report.is_ok() {
            p.catch_up(&config, &args.out, config.matchups().len());
        }
        if let Some(e) = p.failed.take() {
            return Err(e);
        }
    }
    let report = report.map_err(|e| interrupted(e, &args.out))?;
    write_results(&report, &args.out)
}

/// Write an arena's report (results.json, results.md) into `out` and print it.
pub fn write_results(report: &junqi_arena::report::ArenaReport, out: &Path) -> Result<()> {
    let markdown = report.to_markdown();
    write_atomic(&out.join("results.json"), &serde_json::to_string_pretty(report)?)?;
    write_atomic(&out.join("results.md"), &markdown)?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{markdown}")?;
    writeln!(stdout, "written: {} and results.md", out.join("results.json").display())?;
    Ok(())
}

/// What a part run (`--part I/N`) prints when it is done.
pub fn part_done(what: &str, games: u64, notes: &[String], out: &Path) -> Result<()> {
    for note in notes {
        eprintln!("note: {note}");
    }
    writeln!(
        std::io::stdout(),
        "{what}: {games} games in {}; join the parts with `junqi merge --out DIR PART_DIR...`",
        out.display()
    )?;
    Ok(())
}

/// `--move-limit MS --timeouts-lose N`: the match's time rule, if given.
pub fn timeout_rule(move_limit: Option<u64>, timeouts_lose: u32) -> Result<Option<junqi_selfplay::TimeoutRule>> {
    let Some(ms) = move_limit else { return Ok(None) };
    Ok(Some(junqi_selfplay::TimeoutRule::new(ms, timeouts_lose).map_err(|e| anyhow::anyhow!("--move-limit: {e}"))?))
}

/// `--openings FILE`: the openings, each position checked against `rules`.
pub fn read_openings(
    path: Option<&std::path::Path>,
    rules: &junqi_core::Rules,
) -> Result<Option<junqi_selfplay::Openings>> {
    let Some(path) = path else { return Ok(None) };
    let text = junqi_core::read_text(path).with_context(|| format!("--openings {}", path.display()))?;
    let openings =
        junqi_selfplay::Openings::parse(&text, rules).with_context(|| format!("--openings {}", path.display()))?;
    Ok(Some(openings))
}
