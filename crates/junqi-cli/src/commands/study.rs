//! `junqi study first-move`: how much moving first is worth under each rule variant.

use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use anyhow::{bail, Context, Result};
use junqi_arena::study::{run_study, to_csv, to_markdown, StudyConfig, Variant};
use junqi_arena::svg::{error_bar_chart, Row};
use junqi_arena::write_atomic;
use junqi_core::{Mode, Rules};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Study {
    /// Per rule variant: paired games between equal bots; the first mover's
    /// wins/draws/losses, its advantage in Elo, game lengths and endings.
    FirstMove(FirstMove),
}

#[derive(clap::Args)]
pub struct FirstMove {
    /// Variant files (rules TOML: a `mode` and the options that differ), e.g. `configs/variants/*.toml`.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    variants: Vec<PathBuf>,
    /// A variant as a preset and `--set`-style overrides, `MODE` or `MODE:opt=val,opt=val`,
    /// e.g. `anqi:mine_rule=trade,hq_locked=false`; repeatable.
    #[arg(long = "variant", value_name = "MODE[:OPT=VAL,...]")]
    variant_specs: Vec<String>,
    /// The bot playing both seats.
    #[arg(long, default_value = "greedy")]
    bot: String,
    /// Games per variant (even: each seed twice, seats swapped); with
    /// --precision, the games of each round.
    #[arg(long, default_value_t = 2000)]
    games: u64,
    /// Play rounds of --games games over the variants until each variant's
    /// first-mover Elo interval is at most ±E Elo (or --max-games is reached).
    #[arg(long, value_name = "E")]
    precision: Option<f64>,
    /// With --precision: the most games a variant plays.
    #[arg(long, value_name = "N", default_value_t = 100_000, requires = "precision")]
    max_games: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output directory: study.json, variants/*/games/*.parquet, first-move.{md,csv,svg}, first-move.json.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `anqi` or `anqi:mine_rule=trade,hq_locked=false` (`;` also separates).
fn parse_variant(spec: &str) -> Result<Variant> {
    let (mode, sets) = spec.split_once(':').unwrap_or((spec, ""));
    let mode: Mode = mode.trim().parse().with_context(|| format!("--variant {spec}"))?;
    let mut rules = Rules::preset(mode);
    for s in sets.split([',', ';']).map(str::trim).filter(|s| !s.is_empty()) {
        rules.apply_override(s).with_context(|| format!("--variant {spec}"))?;
    }
    Ok(Variant { name: spec.trim().to_string(), rules })
}

pub fn run(study: Study) -> Result<()> {
    let Study::FirstMove(args) = study;
    let mut variants = Vec::new();
    for path in &args.variants {
        variants.push(Variant::from_file(path)?);
    }
    for spec in &args.variant_specs {
        variants.push(parse_variant(spec)?);
    }
    if variants.is_empty() {
        bail!("no variants: pass --variants FILE... or --variant MODE[:opt=val;...]");
    }
    let precision = args.precision.map(|elo| junqi_arena::study::Precision { elo, max_games: args.max_games });
    let config = StudyConfig {
        variants,
        bot: junqi_bots::from_spec(&args.bot)?.name(),
        games: args.games,
        seed: args.seed,
        precision,
    };
    config.check()?;
    // With a precision target the total is its cap: the bar shows the most it can take.
    let per_variant = precision.map_or(config.games, |p| p.max_games);
    let total = per_variant * config.variants.len() as u64;
    let threads = threads(args.threads)?;
    // The run directory's lock, held to the end: the results below are
    // written under the same lock as the games.
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", &args.out.display()))?;
    let _lock = junqi_selfplay::RunLock::hold(&args.out)?;
    let live = Live::start(threads, total, 0)?;
    let result = run_study(&config, &args.out, &live.options, |name| live.set_label(name));
    live.finish();
    let result = result.map_err(|e| interrupted(e, &args.out))?;
    let lines = &result.lines;
    let markdown = to_markdown(&config, &result);
    let rows: Vec<Row> = lines
        .iter()
        .map(|l| Row {
            label: format!("{} ({:+.0} Elo)", l.variant, l.elo.value),
            value: l.score.value,
            low: l.score.low,
            high: l.score.high,
            highlight: l.significant,
        })
        .collect();
    let title =
        format!("First-mover score per variant: {} vs itself, {} games each (95% CI)", config.bot, config.games);
    let svg = error_bar_chart(&title, "first mover's score (red: differs from 50%)", &rows, 0.5);
    write_atomic(&args.out.join("first-move.md"), &markdown)?;
    write_atomic(&args.out.join("first-move.csv"), &to_csv(lines))?;
    write_atomic(&args.out.join("first-move.svg"), &svg)?;
    write_atomic(&args.out.join("first-move.json"), &serde_json::to_string_pretty(&result)?)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{markdown}")?;
    writeln!(out, "written: first-move.md, .csv, .svg and .json in {}", args.out.display())?;
    Ok(())
}
