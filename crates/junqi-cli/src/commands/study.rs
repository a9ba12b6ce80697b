//! `junqi study first-move`: how much moving first is worth under each rule variant.

use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use anyhow::{bail, Context, Result};
use junqi_arena::factorial::{effects_csv, Factor};
use junqi_arena::study::{
    bots_csv, bots_markdown, run_study, run_study_part, to_csv, to_markdown, StudyConfig, StudyResult, Variant,
};
use junqi_arena::svg::{error_bar_chart, Row};
use junqi_arena::{slug, write_atomic};
use junqi_bots::BotSpec;
use junqi_core::Rules;
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
    /// A factor of a factorial design over the one base variant (`--variant` or
    /// one `--variants` file): a rule option and its levels, `OPTION=v1,v2[,v3...]`;
    /// repeatable. Every combination of the levels is played as a variant, and
    /// the report adds the factors' effects (logistic regression with all main
    /// effects and two-way interactions).
    #[arg(long = "factor", value_name = "OPTION=V1,V2[,...]")]
    factors: Vec<String>,
    /// With --factor: play only a fraction of the combinations. `half`: the
    /// 2^(k-1) half fraction with I = AB...K (k >= 3 factors of two levels each).
    #[arg(long, value_name = "FRACTION", value_parser = ["half"], requires = "factors")]
    fraction: Option<String>,
    /// The bot playing both seats; repeatable (`--bot heuristic --bot mcts:800`):
    /// one study per bot on the same variants and seeds, in `bots/BOT/`, and
    /// a bot × variant table (first-move-bots.md, .csv).
    #[arg(long = "bot", value_name = "BOT", default_value = "greedy")]
    bots: Vec<BotSpec>,
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
    /// Output directory: study.json, variants/*/games/*.parquet, first-move.{md,csv,svg}, first-move.json
    /// (and with --factor first-move-effects.csv).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Play only part I of N (0 ≤ I < N): the shards s with s % N == I of
    /// every variant. N processes with parts 0/N … N-1/N play the same games
    /// as one run; `junqi merge` joins them and writes the report.
    #[arg(long, value_name = "I/N", conflicts_with = "precision")]
    part: Option<junqi_selfplay::Part>,
}

/// `anqi` or `anqi:mine_rule=trade,hq_locked=false` (`;` also separates).
fn parse_variant(spec: &str) -> Result<Variant> {
    let (mode, sets) = spec.split_once(':').unwrap_or((spec, ""));
    let sets = sets.split([',', ';']).map(str::trim).filter(|s| !s.is_empty());
    let rules = Rules::preset_with(mode, sets).with_context(|| format!("--variant {spec}"))?;
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
    let mut factorial = None;
    if !args.factors.is_empty() {
        if variants.len() != 1 {
            bail!(
                "--factor varies options over one base variant; got {} variants (pass one --variant MODE[:opt=val,...] or one --variants FILE)",
                variants.len()
            );
        }
        let factors = args.factors.iter().map(|s| Factor::parse(s)).collect::<Result<Vec<_>, _>>()?;
        let (design, cells) = junqi_arena::factorial::design(&variants[0], factors, args.fraction.is_some())?;
        variants = cells;
        factorial = Some(design);
    }
    let precision = args.precision.map(|elo| junqi_arena::study::Precision { elo, max_games: args.max_games });
    let mut bots: Vec<BotSpec> = Vec::new();
    for spec in &args.bots {
        let name = spec.canonical()?;
        if bots.contains(&name) {
            bail!("--bot {spec}: the bot is given twice");
        }
        bots.push(name);
    }
    // One study per bot, on the same variants and seeds.
    let configs: Vec<StudyConfig> = bots
        .iter()
        .map(|bot| StudyConfig {
            variants: variants.clone(),
            bot: bot.clone(),
            games: args.games,
            seed: args.seed,
            precision,
            factorial: factorial.clone(),
        })
        .collect();
    for c in &configs {
        c.check()?;
    }
    // Several bots: each bot's study in its own directory under `bots/`,
    // named by the bot alone (adding or reordering bots resumes the others).
    // One layout per directory: a one-bot study is not silently left beside them.
    let several_layout = args.out.join("bots").exists();
    let one_layout = args.out.join(junqi_arena::study::STUDY_FILE).exists();
    let dirs: Vec<PathBuf> = if configs.len() == 1 {
        if several_layout {
            bail!(
                "{} holds a study of several bots (bots/); give the same --bot list, or choose another --out",
                args.out.display()
            );
        }
        vec![args.out.clone()]
    } else {
        if one_layout {
            bail!("{} holds a study of one bot; give that one --bot, or choose another --out", args.out.display());
        }
        let dirs: Vec<PathBuf> = bots.iter().map(|b| args.out.join("bots").join(slug(&b.to_string()))).collect();
        for (i, d) in dirs.iter().enumerate() {
            if let Some(j) = dirs[..i].iter().position(|e| e == d) {
                bail!("--bot {} and --bot {} would share the directory {}", bots[j], bots[i], d.display());
            }
        }
        dirs
    };
    // With a precision target the total is its cap: the bar shows the most it can take.
    let per_variant = precision.map_or(args.games, |p| p.max_games);
    let total = per_variant * (variants.len() * configs.len()) as u64;
    let threads = threads(args.threads)?;
    // The run directory's lock, held to the end: the results below are
    // written under the same lock as the games.
    let _run_dir = junqi_selfplay::RunDir::open(&args.out)?;
    if let Some(part) = args.part {
        let live = Live::start(threads, total.div_ceil(part.count), 0)?;
        let played = (|| {
            let (mut games, mut notes) = (0, Vec::new());
            for (c, dir) in configs.iter().zip(&dirs) {
                let (g, n) = run_study_part(c, dir, &live.options, part, |name| live.set_label(name))?;
                games += g;
                notes.extend(n);
            }
            Ok((games, notes))
        })();
        live.finish();
        let (games, notes) = played.map_err(|e| interrupted(e, &args.out))?;
        return crate::commands::arena::part_done(&format!("part {part} of the study"), games, &notes, &args.out);
    }
    let live = Live::start(threads, total, 0)?;
    let mut results = Vec::new();
    for (c, dir) in configs.iter().zip(&dirs) {
        let several = configs.len() > 1;
        let result = run_study(c, dir, &live.options, |name| {
            live.set_label(&if several { format!("{}: {name}", c.bot) } else { name.to_string() })
        });
        match result {
            Ok(r) => results.push(r),
            Err(e) => {
                live.finish();
                return Err(interrupted(e, &args.out));
            }
        }
    }
    live.finish();
    for ((c, dir), result) in configs.iter().zip(&dirs).zip(&results) {
        print_report(c, result, dir)?;
    }
    if configs.len() > 1 {
        let studies: Vec<(String, StudyResult)> = bots.iter().map(BotSpec::to_string).zip(results).collect();
        write_bots_table(&studies, &args.out)?;
    }
    Ok(())
}

/// Write one study's report files into `dir` and print it.
pub fn print_report(config: &StudyConfig, result: &StudyResult, dir: &std::path::Path) -> Result<()> {
    let (markdown, written) = write_report(config, result, dir)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{markdown}")?;
    writeln!(out, "written: {written} in {}", dir.display())?;
    Ok(())
}

/// The bot × variant table of a study of several bots, written into `out` and printed.
pub fn write_bots_table(studies: &[(String, StudyResult)], out: &std::path::Path) -> Result<()> {
    let table = bots_markdown(studies);
    write_atomic(&out.join("first-move-bots.md"), &table)?;
    write_atomic(&out.join("first-move-bots.csv"), &bots_csv(studies))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "\n{table}")?;
    writeln!(stdout, "written: first-move-bots.md and .csv in {}", out.display())?;
    Ok(())
}

/// Write one study's report files into `dir`; returns the Markdown and the list of files written.
fn write_report(config: &StudyConfig, result: &StudyResult, dir: &std::path::Path) -> Result<(String, &'static str)> {
    let lines = &result.lines;
    let markdown = to_markdown(config, result);
    // Each row against its reference (its mode's preset): that one's interval shaded.
    let band = |l: &junqi_arena::study::VariantLine| {
        let reference = l.vs_preset.as_ref().map_or(l.variant.as_str(), |d| d.reference.as_str());
        lines.iter().find(|r| r.variant == reference).map(|r| (r.score.low, r.score.high))
    };
    let rows: Vec<Row> = lines
        .iter()
        .map(|l| Row {
            label: format!("{} ({:+.0} Elo)", l.variant, l.elo.value),
            value: l.score.value,
            low: l.score.low,
            high: l.score.high,
            // Marked by the corrected test, as a table of many rows should be.
            highlight: l.p_holm < 0.05,
            band: band(l),
        })
        .collect();
    let games = match config.precision {
        Some(p) => format!("each to ±{} Elo (at most {} games)", p.elo, p.max_games),
        None => format!("{} games each", config.games),
    };
    let title = format!("First-mover score per variant: {} vs itself, {games} (95% CI)", config.bot);
    let x_label = "first mover's score (red: differs from 50% after Holm's correction; shaded: the preset's interval)";
    let svg = error_bar_chart(&title, x_label, &rows, 0.5, "50%: no first-mover edge");
    write_atomic(&dir.join("first-move.md"), &markdown)?;
    write_atomic(&dir.join("first-move.csv"), &to_csv(lines))?;
    write_atomic(&dir.join("first-move.svg"), &svg)?;
    write_atomic(&dir.join("first-move.json"), &serde_json::to_string_pretty(result)?)?;
    let mut written = "first-move.md, .csv, .svg and .json";
    if let Some(e) = &result.factorial {
        write_atomic(&dir.join("first-move-effects.csv"), &effects_csv(e))?;
        written = "first-move.md, .csv, .svg, .json and first-move-effects.csv";
    }
    Ok((markdown, written))
}
