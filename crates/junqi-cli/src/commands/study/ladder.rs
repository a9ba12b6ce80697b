//! `junqi study first-move --ladder BOT,BOT,...`: the first-move study
//! along a strength ladder (junqi_arena::ladder).

use super::{parse_variant, FirstMove};
use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use anyhow::{bail, Context, Result};
use junqi_arena::ladder::{
    arena_secs, parse_ladder, plan_hours, plan_text, read_ladder_file, run_ladder, time_rung, write_report, Budget,
    LadderConfig, RungPlan, Stage, Timing,
};
use junqi_arena::study::{Precision, Variant};
use junqi_arena::{slug, ArenaError};
use junqi_core::{Mode, Rules};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

pub fn run(args: &FirstMove, list: &str) -> Result<()> {
    let bots = parse_ladder(list)?;
    let mut presets = Vec::new();
    for path in &args.variants {
        presets.push(Variant::from_file(path)?);
    }
    for spec in &args.variant_specs {
        presets.push(parse_variant(spec)?);
    }
    if presets.is_empty() {
        presets = Mode::ALL.iter().map(|&m| Variant { name: m.name().to_string(), rules: Rules::preset(m) }).collect();
    }
    for (i, v) in presets.iter().enumerate() {
        if presets[..i].iter().any(|w| w.name == v.name || slug(&w.name) == slug(&v.name)) {
            bail!("--ladder: the variant `{}` is given twice", v.name);
        }
    }
    let budget = match (args.hours, args.precision) {
        (Some(hours), _) => {
            if !(hours.is_finite() && hours > 0.0) {
                bail!("--hours {hours}: must be a positive number of hours");
            }
            Budget::Hours { hours, timing_games: args.timing_games }
        }
        (None, Some(elo)) => Budget::Precision { elo, max_games: args.max_games, round: args.games },
        (None, None) => Budget::Games { games: args.games },
    };
    let out = args.out.clone().context("--out DIR is needed for a ladder study (it holds the plan and the games)")?;
    let threads = threads(args.threads)?;
    let started = Instant::now();
    // A directory holding this ladder resumes its plan (not timed again);
    // one holding another is refused by name.
    let config = match read_ladder_file(&out)? {
        Some(stored) => {
            let mut diffs = Vec::new();
            if stored.bots != bots {
                diffs.push(format!("ladder {} there", join(&stored.bots)));
            }
            if stored.presets != presets {
                let names: Vec<&str> = stored.presets.iter().map(|v| v.name.as_str()).collect();
                diffs.push(format!("presets {} there", names.join(", ")));
            }
            if stored.arena_games != args.arena_games {
                diffs.push(format!("--arena-games {} there", stored.arena_games));
            }
            if stored.seed != args.seed {
                diffs.push(format!("--seed {} there", stored.seed));
            }
            if stored.budget != budget {
                diffs.push(format!("{} there", stored.budget.describe()));
            }
            if !diffs.is_empty() {
                bail!(
                    "{} holds another ladder study ({}); re-run with its options to resume it, or choose another --out",
                    out.display(),
                    diffs.join("; ")
                );
            }
            eprintln!("resuming the ladder study in {} with its plan", out.display());
            stored
        }
        None => match &budget {
            Budget::Hours { hours, timing_games } => {
                plan_by_timing(bots, presets, args, *hours, *timing_games, threads, &out)?
            }
            _ => LadderConfig::fixed(bots, presets, args.arena_games, args.seed, budget)?,
        },
    };
    config.check()?;
    print!("{}", plan_text(&config));
    std::io::stdout().flush()?;
    if args.plan {
        junqi_arena::ladder::ensure_ladder_file(&out, &config)?;
        println!("plan saved in {}; run the same command without --plan to play it", out.display());
        return Ok(());
    }
    let live = Live::start(threads, config.max_games(), 0)?;
    let played = run_ladder(&config, &out, &live.options, |stage| match stage {
        Stage::Arena { preset } => live.set_label(&format!("{preset}: arena")),
        Stage::Rung { preset, bot, what } => live.set_label(&format!("{preset}: {bot} ({what})")),
    });
    live.finish();
    let result = played.map_err(|e| interrupted(e, &out))?;
    let markdown = write_report(&config, &result, &out, &junqi_selfplay::code_version())?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "\n{markdown}")?;
    writeln!(
        stdout,
        "written: ladder.md, .csv, .svg and ladder-results.json in {} (this process: {})",
        out.display(),
        junqi_arena::ladder::human_secs(started.elapsed().as_secs_f64())
    )?;
    Ok(())
}

fn join(bots: &[junqi_bots::BotSpec]) -> String {
    bots.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// Time each rung on each preset (`timing_games` games, kept in
/// `out/timing/`), then choose the common precision whose games fit `hours`.
fn plan_by_timing(
    bots: Vec<junqi_bots::BotSpec>,
    presets: Vec<Variant>,
    args: &FirstMove,
    hours: f64,
    timing_games: u64,
    threads: usize,
    out: &Path,
) -> Result<LadderConfig> {
    let total = timing_games * (bots.len() * presets.len()) as u64;
    let live = Live::start(threads, total, 0)?;
    let timed = (|| -> Result<Vec<Vec<Timing>>, ArenaError> {
        let mut timings = Vec::new();
        for (p, preset) in presets.iter().enumerate() {
            let mut row = Vec::new();
            for bot in &bots {
                live.set_label(&format!("timing {} on {}", bot, preset.name));
                let dir =
                    out.join("timing").join(format!("{p:02}-{}", slug(&preset.name))).join(slug(&bot.to_string()));
                row.push(time_rung(preset, bot, timing_games, args.seed, &dir, &live.options)?);
            }
            timings.push(row);
        }
        Ok(timings)
    })();
    live.finish();
    let timings = timed.map_err(|e| interrupted(e, out))?;
    let arena = arena_secs(&timings, args.arena_games);
    let (elo, games) = plan_hours(&timings, arena, hours * 3600.0, 2)?;
    let mut rungs = Vec::new();
    let mut secs = arena;
    for (row, g) in timings.iter().zip(&games) {
        let mut plans = Vec::new();
        for (t, &n) in row.iter().zip(g) {
            secs += n as f64 * t.secs_per_game;
            plans.push(RungPlan {
                round: n,
                precision: Precision { elo, max_games: n },
                secs_per_game: Some(t.secs_per_game),
                draw_rate: Some(t.draw_rate),
            });
        }
        rungs.push(plans);
    }
    Ok(LadderConfig {
        bots,
        presets,
        arena_games: args.arena_games,
        seed: args.seed,
        budget: Budget::Hours { hours, timing_games },
        rungs,
        estimated_secs: Some(secs),
    })
}
