//! `junqi sprt`: a sequential test of a candidate bot against a baseline
//! (pentanomial normalized GSPRT, as fishtest), or of given pair counts.

use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use crate::rules_arg::RulesArgs;
use crate::{CheckFailed, Undecided};
use anyhow::{bail, Context, Result};
use junqi_arena::sprt::{describe, run_sprt, run_sprt_part, SprtConfig, SprtOutcome};
use junqi_bots::BotSpec;
use junqi_core::Mode;
use junqi_stats::{Decision, Penta, Sprt};
use std::io::Write;
use std::path::PathBuf;

/// What the exit code says (docs/regress.md), for `--help`.
const EXIT_CODES: &str = "Exit codes: 0 H1 accepted, 1 H0 accepted, 3 no decision (the game limit was reached, or \
--penta counts inside the bounds), 2 an error, 130 interrupted (run it again to resume). With non-regression \
bounds (--elo0 -5 --elo1 0) 0 means no regression found; with gain bounds (--elo0 0 --elo1 5) 0 means a gain. \
A part (--part) exits 0 when its batches are played.";

#[derive(clap::Args)]
#[command(after_help = EXIT_CODES)]
pub struct Args {
    /// The bot under test, e.g. `mcts:sims=400`, or a build behind the engine
    /// protocol: `engine:cmd=./target/release/junqi engine --bot mcts:800`.
    #[arg(long, visible_alias = "test", required_unless_present = "penta")]
    candidate: Option<BotSpec>,
    /// The bot it must beat.
    #[arg(long, visible_alias = "base", required_unless_present = "penta")]
    baseline: Option<BotSpec>,
    /// Allow the candidate and the baseline to be the same spec: an A/A
    /// test, which should accept H0 of gain bounds (or H1 of non-regression
    /// bounds) and checks the harness, or a build's determinism.
    #[arg(long, conflicts_with = "penta")]
    allow_same: bool,
    /// H0: the candidate's normalized Elo is elo0.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// H1: the candidate's normalized Elo is elo1.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    elo1: f64,
    /// False-positive rate (accepting H1 when H0 holds).
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// False-negative rate (accepting H0 when H1 holds).
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Do not play: test these pair counts, the numbers of game pairs scoring
    /// 0, ½, 1, 1½ and 2 points (LL, LD+DL, DD+WL+LW, DW+WD, WW).
    #[arg(long, value_name = "A,B,C,D,E", conflicts_with_all = ["candidate", "baseline", "out"])]
    penta: Option<String>,
    /// Games per batch; the LLR is checked after each batch (even: paired games).
    #[arg(long, default_value_t = 64)]
    batch_games: u64,
    /// Stop without a decision after this many games.
    #[arg(long, default_value_t = 20_000)]
    max_games: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output directory: sprt.json, batches/*/games/*.parquet, result.json. Re-running the same command resumes.
    #[arg(long, value_name = "DIR", required_unless_present = "penta")]
    out: Option<PathBuf>,
    /// Start the games from these openings in turn (one JFEN position or one
    /// deal seed per line; `#` comments), so two builds meet the same openings.
    #[arg(long, value_name = "FILE", conflicts_with = "penta")]
    openings: Option<PathBuf>,
    /// Play only part I of N (0 ≤ I < N): the batches b with b % N == I, up
    /// to --max-games, each whole and without stopping at a decision. N
    /// processes with parts 0/N … N-1/N play the batches one run would;
    /// `junqi merge` joins them, and this command without --part on the
    /// merged directory gives the decision a single run reaches.
    #[arg(long, value_name = "I/N", conflicts_with = "penta")]
    part: Option<junqi_selfplay::Part>,
    /// Four-player games (四国军棋, docs/rules.md §10): the candidate and the
    /// baseline are two teams' bots (random, greedy, heuristic, mcts:N), the
    /// candidate on armies 0 and 2, then on armies 1 and 3 of the same deal
    /// (one pair). --rules is the mode or a four-player rules file. A
    /// finished batch is read back, a killed one not resumed.
    #[arg(long, conflicts_with_all = ["penta", "openings", "part"])]
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

/// `A,B,C,D,E` → pentanomial counts.
fn parse_penta(text: &str) -> Result<Penta> {
    let counts: Vec<u64> = text
        .split(',')
        .map(|p| p.trim().parse::<u64>().with_context(|| format!("--penta: `{}` is not a count", p.trim())))
        .collect::<Result<_>>()?;
    let Ok(counts) = <[u64; 5]>::try_from(counts) else {
        bail!("--penta needs five counts A,B,C,D,E (pairs scoring 0, ½, 1, 1½, 2), got `{text}`")
    };
    Ok(Penta::new(counts))
}

pub fn run(args: Args) -> Result<()> {
    if let Some(dir) = &args.out {
        junqi_engine::log_to(dir); // engines' stderr and traffic logs
    }
    let mut out = std::io::stdout().lock();
    if let Some(text) = &args.penta {
        let summary = Sprt::new(args.elo0, args.elo1, args.alpha, args.beta)?.evaluate(&parse_penta(text)?)?;
        writeln!(out, "{}", describe(&summary, args.elo0, args.elo1, false))?;
        return exit_for(summary.decision);
    }
    let (Some(candidate), Some(baseline), Some(dir)) = (&args.candidate, &args.baseline, &args.out) else {
        bail!("--candidate, --baseline and --out are needed to play (or give --penta)")
    };
    if args.siguo {
        return run_siguo(&args, candidate, baseline, dir);
    }
    let mode = if args.rules.rules.is_none() { Some(Mode::Fanqi) } else { None };
    let rules = args.rules.resolve(mode)?;
    let config = SprtConfig {
        rules,
        candidate: candidate.canonical().context("--candidate")?,
        baseline: baseline.canonical().context("--baseline")?,
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        batch_games: args.batch_games,
        max_games: args.max_games,
        seed: args.seed,
        openings: crate::commands::arena::read_openings(args.openings.as_deref(), &rules)?,
        timeouts: crate::commands::arena::timeout_rule(args.move_limit, args.timeouts_lose)?,
    };
    if config.candidate == config.baseline && !args.allow_same {
        bail!(
            "the candidate and the baseline are the same bot `{}`; for an A/A test add --allow-same",
            config.candidate
        )
    }
    config.check()?;
    let threads = threads(args.threads)?;
    if let Some(part) = args.part {
        let batches = config.batches();
        let live = Live::start(threads, part.shards(batches).count() as u64 * config.batch_games, 0)?;
        let played = run_sprt_part(&config, dir, &live.options, part, |b| live.set_label(&format!("batch {b}")));
        live.finish();
        let (games, notes) = played.map_err(|e| interrupted(e, dir))?;
        return crate::commands::arena::part_done(&format!("part {part} of the test"), games, &notes, dir);
    }
    // The run directory's lock, held to the end: the results below are
    // written under the same lock as the games.
    let _run_dir = junqi_selfplay::RunDir::open(dir)?;
    let live = Live::start(threads, config.max_games, 0)?;
    let outcome = run_sprt(&config, dir, &live.options, |s, games| {
        live.set_label(&format!("LLR {:.3} [{:.3}, {:.3}]", s.llr, s.bounds.lower, s.bounds.upper));
        live.println(&format!(
            "{games} games: LLR {:.3} [{:.3}, {:.3}], Elo {:+.1} [{:+.1}, {:+.1}]",
            s.llr, s.bounds.lower, s.bounds.upper, s.elo.value, s.elo.low, s.elo.high
        ));
    });
    live.finish();
    let outcome = outcome.map_err(|e| interrupted(e, dir))?;
    write_outcome(&config, &outcome, dir)?;
    exit_for(outcome.summary.decision)
}

/// `junqi sprt --siguo`: the four-player test of two team bots.
fn run_siguo(args: &Args, candidate: &BotSpec, baseline: &BotSpec, dir: &std::path::Path) -> Result<()> {
    use junqi_arena::siguo::{describe_rules, run_siguo_sprt, SiguoSprtConfig};
    let config = SiguoSprtConfig {
        rules: super::perft::siguo_rules(&args.rules, None)?,
        candidate: candidate.to_string(),
        baseline: baseline.to_string(),
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        batch_games: args.batch_games,
        max_games: args.max_games,
        seed: args.seed,
    };
    if config.candidate == config.baseline && !args.allow_same {
        bail!(
            "the candidate and the baseline are the same bot `{}`; for an A/A test add --allow-same",
            config.candidate
        )
    }
    config.check(args.allow_same)?;
    let threads = threads(args.threads)?;
    let outcome = run_siguo_sprt(&config, dir, threads, args.allow_same, |s, games| {
        eprintln!(
            "{games} games: LLR {:.3} [{:.3}, {:.3}], Elo {:+.1} [{:+.1}, {:+.1}]",
            s.llr, s.bounds.lower, s.bounds.upper, s.elo.value, s.elo.low, s.elo.high
        );
    })?;
    let t = &outcome.tally;
    let text = format!(
        "four-player (四国) {}: team {} vs team {}, {} games (W-D-L {}-{}-{}; draws: {})\n{}",
        describe_rules(&config.rules),
        config.candidate,
        config.baseline,
        outcome.games,
        t.wins,
        t.draws,
        t.losses,
        if t.draws_by_termination.is_empty() {
            "none".to_string()
        } else {
            t.draws_by_termination.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
        },
        describe(&outcome.summary, config.elo0, config.elo1, outcome.limit_reached)
    );
    junqi_arena::write_atomic(&dir.join("result.json"), &serde_json::to_string_pretty(&outcome)?)?;
    writeln!(std::io::stdout(), "{text}")?;
    exit_for(outcome.summary.decision)
}

/// The verdict as the exit code (see [`EXIT_CODES`]): H0 accepted fails like
/// a check (1), no decision is [`Undecided`] (3).
fn exit_for(decision: Decision) -> Result<()> {
    match decision {
        Decision::AcceptH1 => Ok(()),
        Decision::AcceptH0 => Err(CheckFailed.into()),
        Decision::Continue => Err(Undecided.into()),
    }
}

/// Write a test's result.json into `dir` and print its statistics.
pub fn write_outcome(config: &SprtConfig, outcome: &SprtOutcome, dir: &std::path::Path) -> Result<()> {
    let mark = |bot: &BotSpec| {
        if bot.cheats() {
            " (cheats: sees hidden pieces)"
        } else {
            ""
        }
    };
    let text = format!(
        "{}{} vs {}{} ({}), {} games\n{}",
        config.candidate,
        mark(&config.candidate),
        config.baseline,
        mark(&config.baseline),
        config.rules.mode.name(),
        outcome.games,
        describe(&outcome.summary, config.elo0, config.elo1, outcome.limit_reached)
    );
    junqi_arena::write_atomic(&dir.join("result.json"), &serde_json::to_string_pretty(outcome)?)?;
    for note in &outcome.notes {
        eprintln!("note: {note}");
    }
    writeln!(std::io::stdout(), "{text}")?;
    Ok(())
}
