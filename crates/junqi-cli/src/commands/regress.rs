//! `junqi regress`: the versioned strength suite, optionally against a stored
//! baseline, with the power analysis that says whether it has games enough.

use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use crate::CheckFailed;
use anyhow::{Context, Result};
use junqi_arena::regress::{
    compare, net_specs, power_analysis, run_suite, same_games, PowerAnalysis, Suite, SuiteResult, Timing,
};
use junqi_arena::write_atomic;
use junqi_net::{default_net_for, resolve_net_path};
use junqi_selfplay::ShardChecksum;
use junqi_stats::normal_quantile;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The suite file (bots, games, seeds, the drop to detect), e.g. configs/regress/v2.toml.
    #[arg(long, value_name = "FILE", default_value = "configs/regress/v2.toml")]
    suite: PathBuf,
    /// A stored result of the same suite to compare with; exit 1 when a bot
    /// got significantly weaker (see the suite file). With --power: any
    /// stored result whose scores and speed to size the suite from.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Play nothing: print how many games per pair each bot needs to catch a
    /// drop of ELO Elo with the suite's power and level (from the scores in
    /// --baseline, else assuming even opponents), and the games per pair to
    /// set for all of them.
    #[arg(long, value_name = "ELO")]
    power: Option<f64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output directory: the arenas' games and regress.json. Re-running the same command resumes.
    #[arg(long, value_name = "DIR", required_unless_present = "power")]
    out: Option<PathBuf>,
}

fn read_result(path: &Path) -> Result<SuiteResult> {
    let text = junqi_core::read_text(path).with_context(|| format!("{}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a regress result", path.display()))
}

/// Each net the suite's bots play and its file's checksum: `net:fanqi` →
/// `crc32c 1a2b3c4d, 123456 bytes` (`net:default` once per mode it plays).
fn suite_nets(suite: &Suite) -> Result<BTreeMap<String, String>> {
    let mut nets = BTreeMap::new();
    for config in suite.arena_configs()? {
        for net in config.bots.iter().flat_map(net_specs) {
            let name = net.get("path").unwrap_or_default();
            let (key, name) = match name {
                "default" => (format!("{net} in {}", config.rules.mode.name()), default_net_for(config.rules.mode)),
                _ => (net.to_string(), name),
            };
            let file = resolve_net_path(name);
            let sum = ShardChecksum::of_file(&file).with_context(|| format!("{key}: {}", file.display()))?;
            nets.insert(key, format!("crc32c {:08x}, {} bytes", sum.crc32c, sum.len));
        }
    }
    Ok(nets)
}

/// `12 s`, `3.4 min`, `1.2 h`.
fn duration(secs: f64) -> String {
    if secs < 120.0 {
        format!("{secs:.0} s")
    } else if secs < 7200.0 {
        format!("{:.1} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}

/// The analysis, with the run time its sizes would take when the stored
/// result says how fast these matchups played.
fn print_power(out: &mut impl Write, analysis: &PowerAnalysis, source: &str, threads: usize) -> Result<()> {
    writeln!(out, "{}", analysis.to_markdown().trim_end())?;
    writeln!(out, "(scores and variances: {source})")?;
    let need = analysis.games_per_pair_needed();
    if let (Some(now), Some(then)) =
        (analysis.predicted_seconds(analysis.games_per_pair, threads), analysis.predicted_seconds(need, threads))
    {
        writeln!(
            out,
            "On {threads} thread(s), at the stored run's speed: about {} as configured, about {} at {need} games per pair.",
            duration(now),
            duration(then)
        )?;
    }
    Ok(())
}

pub fn run(args: Args) -> Result<()> {
    let suite = Suite::from_file(&args.suite)?;
    let baseline = args.baseline.as_deref().map(read_result).transpose()?;
    let threads = threads(args.threads)?;
    let source = |b: &Option<SuiteResult>| match (&args.baseline, b) {
        (Some(path), Some(b)) => format!("{} ({})", path.display(), b.code_version),
        _ => "none stored: even opponents, variance 1/4".to_string(),
    };
    if let Some(drop) = args.power {
        let analysis = power_analysis(&suite, baseline.as_ref(), drop)?;
        print_power(&mut std::io::stdout().lock(), &analysis, &source(&baseline), threads)?;
        return Ok(());
    }
    let out_dir = args.out.expect("clap requires --out without --power");
    // Checked before playing: a baseline of other games or nets is refused now, not after the suite.
    let nets = suite_nets(&suite)?;
    if let Some(b) = &baseline {
        same_games(&suite, suite.arena.len(), &nets, b)?;
    }
    let total: u64 = suite.arena_configs()?.iter().map(|c| c.total_games()).fold(0, u64::saturating_add);
    // The suite directory's lock, held to the end (each arena in it has its own).
    let _run_dir = junqi_selfplay::RunDir::open(&out_dir)?;
    let path = out_dir.join("regress.json");
    let live = Live::start(threads, total, 0)?;
    let start = Instant::now();
    let result = run_suite(&suite, &out_dir, &live.options, |a, b| live.set_label(&format!("{a} vs {b}")));
    let (seconds, played) = (start.elapsed().as_secs_f64(), live.options.progress.games.load(Ordering::Relaxed));
    live.finish();
    let mut result = result.map_err(|e| interrupted(e, &out_dir))?;
    result.nets = nets;
    result.timing = if played > 0 {
        Some(Timing { threads, games: played, seconds })
    } else {
        // All resumed: keep the timing of the call that played them.
        read_result(&path).ok().and_then(|r| r.timing)
    };
    write_atomic(&path, &serde_json::to_string_pretty(&result)?)?;
    let mut out = std::io::stdout().lock();
    for a in &result.arenas {
        writeln!(out, "{}", a.to_markdown())?;
    }
    writeln!(out, "written: {}", path.display())?;
    if played > 0 {
        writeln!(out, "played {played} games in {} on {threads} thread(s)", duration(seconds))?;
    }
    // The power: from the baseline's scores when there is one, else from this run's.
    let (observed, from) = match &baseline {
        Some(b) => (b, source(&baseline)),
        None => (&result, format!("this run ({})", path.display())),
    };
    writeln!(out)?;
    print_power(&mut out, &power_analysis(&suite, Some(observed), suite.detect_elo)?, &from, threads)?;
    let Some(baseline) = baseline else { return Ok(()) };
    let comparisons = compare(&result, &baseline)?;
    let z = normal_quantile(1.0 - suite.alpha_per_bot())?;
    write!(
        out,
        "\nAgainst the baseline ({}): a bot fails when its score against the other bots of its arena fell \
         significantly (one-sided, α = {:.4} per bot, z < −{z:.2})",
        baseline.code_version,
        suite.alpha_per_bot()
    )?;
    match suite.margin_elo {
        Some(m) => writeln!(out, " or its Elo fell by more than {m} Elo.\n")?,
        None => writeln!(out, ".\n")?,
    }
    writeln!(
        out,
        "| mode | bot | baseline Elo | now | Elo change [95% CI] | change vs its opponents [95% CI] | z | verdict |"
    )?;
    writeln!(out, "|---|---|---:|---:|---|---|---:|---|")?;
    for c in &comparisons {
        let verdict = match (c.dropped, c.beyond_margin) {
            (true, true) => "FAIL: dropped, beyond the margin",
            (true, false) => "FAIL: dropped",
            (false, true) => "FAIL: dropped beyond the margin",
            (false, false) => "ok",
        };
        writeln!(
            out,
            "| {} | {} | {:+.0} | {:+.0} | {} | {} | {:+.2} | {verdict} |",
            c.mode,
            c.bot,
            c.baseline,
            c.now,
            c.change.show(),
            c.score_change.show(),
            c.z
        )?;
    }
    let failed: Vec<_> = comparisons.iter().filter(|c| c.failed).collect();
    for c in &failed {
        let scores: Vec<String> =
            c.scores.iter().map(|(o, then, now)| format!("{o} {:.1}% → {:.1}%", 100.0 * then, 100.0 * now)).collect();
        writeln!(out, "{} ({}) scored: {}", c.bot, c.mode, scores.join(", "))?;
    }
    if !failed.is_empty() {
        writeln!(out, "(The opponents are the yardsticks: a bot that got stronger makes those it beat look weaker.)")?;
        return Err(CheckFailed.into());
    }
    Ok(())
}
