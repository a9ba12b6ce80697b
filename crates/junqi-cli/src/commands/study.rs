//! `junqi study first-move`: how much moving first is worth under each rule variant.

use crate::commands::arena::{interrupted, threads};
use crate::live::Live;
use anyhow::{bail, Context, Result};
use junqi_arena::factorial::{effects_csv, Factor};
use junqi_arena::study::{
    bots_csv, bots_markdown, run_study_from, run_study_part, save_tallies, to_csv, to_markdown_by, with_presets,
    Resume, StudyConfig, StudyResult, Variant, VariantLine, STUDY_FILE,
};
use junqi_arena::svg::{error_bar_chart, Axis, Row};
use junqi_arena::tallies::{merge_parts, Tallies};
use junqi_arena::{slug, write_atomic};
use junqi_bots::BotSpec;
use junqi_core::Rules;
use std::io::Write;
use std::path::{Path, PathBuf};

mod ladder;

#[derive(clap::Subcommand)]
pub enum Study {
    /// Per rule variant: paired games between equal bots; the first mover's
    /// wins/draws/losses, its advantage in Elo, game lengths and endings.
    FirstMove(Box<FirstMove>),
    /// Write a first-move study's report (first-move.md, .csv, .svg, .json)
    /// again from the study.json and first-move.json in DIR, without its
    /// games: nothing is played (e.g. after an upgrade changed the report).
    Report(Report),
    /// Join the parts of one round of a precision study (`study first-move
    /// --precision E --part I/N`) into the study's tallies in --out: the next
    /// round's parts continue from them (--resume-from DIR), and a finished
    /// study's report is written. The games are not needed.
    Merge(Merge),
}

#[derive(clap::Args)]
pub struct Report {
    /// A study's output directory (holding study.json and first-move.json).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

#[derive(clap::Args)]
pub struct FirstMove {
    /// Variant files (rules TOML: a `mode` and the options that differ), e.g. `configs/variants/*.toml`.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    variants: Vec<PathBuf>,
    /// A variant as a preset and `--set`-style overrides, `MODE` or `MODE:opt=val,opt=val`,
    /// e.g. `anqi:mine_rule=trade,hq_locked=false`; repeatable. A mode's preset
    /// is added (named by the mode) when no variant is it: the reference of
    /// the "minus the preset" comparison.
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
    /// A strength ladder, `BOT1,BOT2,...` (at least two bots, e.g.
    /// `random,greedy,heuristic,mcts:100`): for each preset (翻棋, 暗棋, 明棋,
    /// or the --variant/--variants given), a round-robin arena puts the rungs
    /// on one Elo scale (`random` at 0 if a rung, else the first), each rung
    /// plays the first-move study against itself (--hours, --precision or
    /// --games per rung), and ladder.md/.csv/.svg chart the first mover's
    /// advantage against the rung's Elo.
    #[arg(long, value_name = "BOT,BOT,...", conflicts_with_all = ["bots", "factors", "part", "resume_from"])]
    ladder: Option<String>,
    /// With --ladder: the whole study (arenas and rungs) to fit about H hours
    /// on this machine: each rung is timed on --timing-games games first,
    /// and every rung plays to one common precision that the budget allows.
    #[arg(long, value_name = "H", requires = "ladder", conflicts_with_all = ["precision", "games"])]
    hours: Option<f64>,
    /// With --ladder: games per pair of rungs in each preset's arena.
    #[arg(long, value_name = "N", default_value_t = 200, requires = "ladder")]
    arena_games: u64,
    /// With --hours: games of each rung's timing.
    #[arg(long, value_name = "N", default_value_t = 32, requires = "hours")]
    timing_games: u64,
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
    #[arg(long, value_name = "DIR", required_unless_present = "plan")]
    out: Option<PathBuf>,
    /// Print how many games each variant needs for --precision E (or ±5 Elo)
    /// and what --games gives, then stop: nothing is played.
    #[arg(long)]
    plan: bool,
    /// With --plan: the share of drawn games to assume (draws narrow the
    /// interval; 0, the default, gives the most games).
    #[arg(long, value_name = "D", default_value_t = 0.0, requires = "plan")]
    draw_rate: f64,
    /// Play only part I of N (0 ≤ I < N): the shards s with s % N == I of
    /// every variant. N processes with parts 0/N … N-1/N play the same games
    /// as one run; `junqi merge` joins them and writes the report. With
    /// --precision: part I of the next round only (the round after
    /// --resume-from's tallies), its tallies in DIR/tallies.json; `junqi study
    /// merge` joins the round's parts.
    #[arg(long, value_name = "I/N")]
    part: Option<junqi_selfplay::Part>,
    /// With --precision: continue the study from these tallies (a study's
    /// tallies.json, or the directory holding it; with several --bot, the
    /// study's directory), e.g. committed or made on another machine: their
    /// rounds are not played again, and their games are not needed.
    #[arg(long, value_name = "TALLIES", requires = "precision")]
    resume_from: Option<PathBuf>,
    /// Continue tallies played by another build of junqi (refused otherwise);
    /// the report notes the rounds played by each other code version.
    #[arg(long)]
    allow_code_change: bool,
}

#[derive(clap::Args)]
pub struct Merge {
    /// The study directory the joined tallies go to (tallies.json and
    /// study.json; when the study is finished, its report too).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The tallies of all N parts of one round of a precision study: each
    /// part's --out directory or its tallies.json, in any order.
    #[arg(value_name = "PART", required = true)]
    parts: Vec<PathBuf>,
}

/// Whether `out` holds a study (of one bot, or of several in `bots/`) of
/// exactly `variants`, started before missing presets were added: it resumes
/// as it was rather than being refused as other work.
fn started_without_presets(out: &Path, variants: &[Variant]) -> bool {
    let Ok(given) = serde_json::to_value(variants) else { return false };
    let holds_them = |run_file: &Path| {
        let text = junqi_core::read_text(run_file).ok();
        let value: Option<serde_json::Value> = text.and_then(|t| serde_json::from_str(&t).ok());
        value.is_some_and(|v| v["config"]["variants"] == given)
    };
    let bots = std::fs::read_dir(out.join("bots")).into_iter().flatten().flatten();
    holds_them(&out.join(STUDY_FILE)) || bots.into_iter().any(|b| holds_them(&b.path().join(STUDY_FILE)))
}

/// `anqi` or `anqi:mine_rule=trade,hq_locked=false` (`;` also separates).
fn parse_variant(spec: &str) -> Result<Variant> {
    let (mode, sets) = spec.split_once(':').unwrap_or((spec, ""));
    let sets = sets.split([',', ';']).map(str::trim).filter(|s| !s.is_empty());
    let rules = Rules::preset_with(mode, sets).with_context(|| format!("--variant {spec}"))?;
    Ok(Variant { name: spec.trim().to_string(), rules })
}

pub fn run(study: Study) -> Result<()> {
    let args = match study {
        Study::FirstMove(args) => *args,
        Study::Report(r) => return rewrite_report(&r.dir),
        Study::Merge(m) => return merge_round(&m),
    };
    if let Some(list) = args.ladder.clone() {
        return ladder::run(&args, &list);
    }
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
    let (mut factorial, mut added) = (None, Vec::new());
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
    } else {
        // Each variant is compared with its mode's preset: add any missing, so
        // the difference column is filled (a factorial design's cells are fixed),
        // unless the directory holds a study started without them.
        let (all, missing) = with_presets(variants.clone());
        if !missing.is_empty() {
            if args.out.as_deref().is_some_and(|out| started_without_presets(out, &variants)) {
                eprintln!(
                    "resuming a study started without its modes' presets: played as it was, no difference column"
                );
            } else {
                (variants, added) = (all, missing);
            }
        }
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
    if precision.is_some() && factorial.is_some() && (args.part.is_some() || args.resume_from.is_some()) {
        bail!("--part and --resume-from continue a precision study from its tallies, but a factorial design's effects are fitted on every game: play a --factor study with --precision in one process");
    }
    if precision.is_some() && args.part.is_some() && configs.len() > 1 {
        bail!("--part with --precision plays a round of a study of one --bot; run one study per bot");
    }
    // The tallies each bot's study continues from.
    let mut resumes = Vec::new();
    for c in &configs {
        let tallies = match &args.resume_from {
            None => None,
            Some(path) => {
                let path = if configs.len() == 1 {
                    path.clone()
                } else if path.is_dir() {
                    path.join("bots").join(slug(&c.bot.to_string()))
                } else {
                    bail!(
                        "--resume-from {}: with several --bot, give the study's directory (bots/BOT/tallies.json)",
                        path.display()
                    );
                };
                let (t, file) = Tallies::read(&path)?;
                t.check_same_study(c, &file, args.allow_code_change)?;
                t.check_whole(&file)?;
                Some((t, file))
            }
        };
        resumes.push(Resume { tallies, allow_code_change: args.allow_code_change });
    }
    // Said once the study is known to be sound, so an error stays one line.
    for name in added {
        eprintln!("added the preset `{name}`: the reference of the \"minus the preset\" column");
    }
    if args.plan {
        return print_plan(&configs[0], args.draw_rate, configs.len());
    }
    let out = args.out.clone().context("--out DIR is needed to play the study")?;
    // Several bots: each bot's study in its own directory under `bots/`,
    // named by the bot alone (adding or reordering bots resumes the others).
    // One layout per directory: a one-bot study is not silently left beside them.
    let several_layout = out.join("bots").exists();
    let one_layout = out.join(STUDY_FILE).exists();
    let dirs: Vec<PathBuf> = if configs.len() == 1 {
        if several_layout {
            bail!(
                "{} holds a study of several bots (bots/); give the same --bot list, or choose another --out",
                out.display()
            );
        }
        vec![out.clone()]
    } else {
        if one_layout {
            bail!("{} holds a study of one bot; give that one --bot, or choose another --out", out.display());
        }
        let dirs: Vec<PathBuf> = bots.iter().map(|b| out.join("bots").join(slug(&b.to_string()))).collect();
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
    let _run_dir = junqi_selfplay::RunDir::open(&out)?;
    if let Some(part) = args.part {
        let live = Live::start(threads, total.div_ceil(part.count), 0)?;
        let played = (|| {
            let (mut games, mut notes) = (0, Vec::new());
            for ((c, dir), resume) in configs.iter().zip(&dirs).zip(&resumes) {
                let (g, n) = run_study_part(c, dir, &live.options, part, resume, |name| live.set_label(name))?;
                games += g;
                notes.extend(n);
            }
            Ok((games, notes))
        })();
        live.finish();
        let (games, notes) = played.map_err(|e| interrupted(e, &out))?;
        return crate::commands::arena::part_done(&format!("part {part} of the study"), games, &notes, &out);
    }
    let live = Live::start(threads, total, 0)?;
    let mut results = Vec::new();
    for ((c, dir), resume) in configs.iter().zip(&dirs).zip(&resumes) {
        let several = configs.len() > 1;
        let result = run_study_from(c, dir, &live.options, resume, |name| {
            live.set_label(&if several { format!("{}: {name}", c.bot) } else { name.to_string() })
        });
        match result {
            Ok(r) => results.push(r),
            Err(e) => {
                live.finish();
                return Err(interrupted(e, &out));
            }
        }
    }
    live.finish();
    for ((c, dir), result) in configs.iter().zip(&dirs).zip(&results) {
        print_report(c, result, dir)?;
    }
    if configs.len() > 1 {
        let studies: Vec<(String, StudyResult)> = bots.iter().map(BotSpec::to_string).zip(results).collect();
        write_bots_table(&studies, &out)?;
    }
    Ok(())
}

/// Write one study's report files into `dir` and print it.
pub fn print_report(config: &StudyConfig, result: &StudyResult, dir: &Path) -> Result<()> {
    print_report_by(config, result, dir, &junqi_selfplay::code_version())
}

/// [`print_report`], its header naming `code` as the code behind the report.
fn print_report_by(config: &StudyConfig, result: &StudyResult, dir: &Path, code: &str) -> Result<()> {
    let (markdown, written) = write_report(config, result, dir, code)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{markdown}")?;
    writeln!(out, "written: {written} in {}", dir.display())?;
    Ok(())
}

/// `study report DIR`: the report again from the saved config and results,
/// for a study whose games are gone (as the shipped ones in data/studies/).
fn rewrite_report(dir: &Path) -> Result<()> {
    let read = |name: &str| -> Result<serde_json::Value> {
        let path = dir.join(name);
        let text = junqi_core::read_text(&path)
            .with_context(|| format!("{}: not a finished first-move study", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
    };
    let mut run_file = read(STUDY_FILE)?;
    let config: StudyConfig = serde_json::from_value(run_file["config"].take())
        .with_context(|| format!("{}: a study config this program cannot read", dir.join(STUDY_FILE).display()))?;
    let results = read("first-move.json")?;
    let lines = results["lines"].as_array().map_or(&[][..], Vec::as_slice);
    // Older results lack the p-values: defaults would show every test as a "yes".
    if lines.iter().any(|l| l.get("p_value").is_none()) {
        bail!(
            "{}: results from before the study stored its p-values; rerun the study to write its report",
            dir.join("first-move.json").display()
        );
    }
    let mut result: StudyResult = serde_json::from_value(results)
        .with_context(|| format!("{}: results this program cannot read", dir.join("first-move.json").display()))?;
    // Results from before the count was stored: the pairs both played, as `compare` counts them.
    let games: std::collections::HashMap<String, u64> =
        result.lines.iter().map(|l| (l.variant.clone(), l.games)).collect();
    for l in &mut result.lines {
        if let Some(d) = l.vs_preset.as_mut().filter(|d| d.compared_games == 0) {
            d.compared_games = l.games.min(games.get(&d.reference).copied().unwrap_or(0));
        }
    }
    if result.lines.len() != config.variants.len() {
        bail!(
            "{}: {} result lines for {} variants: not this study's results",
            dir.display(),
            result.lines.len(),
            config.variants.len()
        );
    }
    let played_by = run_file["code_version"].as_str().unwrap_or("unknown").to_string();
    let code = format!("{played_by} (which started its games), report rewritten by {}", junqi_selfplay::code_version());
    print_report_by(&config, &result, dir, &code)
}

/// `study merge`: one round's parts joined into the study's tallies in
/// `--out`; a finished study's report written there.
fn merge_round(m: &Merge) -> Result<()> {
    let mut parts = Vec::new();
    for p in &m.parts {
        let (t, file) = Tallies::read(p)?;
        if parts.iter().any(|(_, f): &(Tallies, PathBuf)| same_file(f, &file)) {
            bail!("{} is given twice", file.display());
        }
        parts.push((t, file));
    }
    let merged = merge_parts(&parts)?;
    save_tallies(&m.out, &merged)?;
    let round = merged.rounds.len();
    let next = merged.next_round();
    if !next.is_empty() {
        let names: Vec<&str> = next.iter().map(|&k| merged.config.variants[k].name.as_str()).collect();
        println!(
            "merged {} parts of round {round} into {}; round {} plays {} variant{} still short of the target ({}): play its parts with --resume-from {}",
            parts.len(),
            m.out.display(),
            round + 1,
            next.len(),
            if next.len() == 1 { "" } else { "s" },
            names.join(", "),
            m.out.display()
        );
        return Ok(());
    }
    eprintln!("merged {} parts of round {round}: the study is finished; writing its report", parts.len());
    // The tallies decide everything: nothing is played. The parts may come
    // from another build than this one (whose code version the report names).
    let config = merged.config.clone();
    let resume = Resume { tallies: None, allow_code_change: true };
    let options = junqi_selfplay::RunOptions { threads: 1, ..Default::default() };
    let result = run_study_from(&config, &m.out, &options, &resume, |_| {})?;
    print_report(&config, &result, &m.out)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// `--plan`: the games the study needs, before any is played.
fn print_plan(config: &StudyConfig, draw_rate: f64, bots: usize) -> Result<()> {
    use junqi_stats::power::{elo_half_width, games_for_elo_half_width};
    let target = config.precision.map_or(5.0, |p| p.elo);
    let need = games_for_elo_half_width(target, draw_rate)?;
    let variants = config.variants.len() as u64;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Plan: {variants} variants, {bots} bot{}, assuming {:.0}% draws and a first mover near 50%:",
        if bots == 1 { "" } else { "s" },
        100.0 * draw_rate
    )?;
    writeln!(
        out,
        "  first-mover Elo to ±{target}: about {need} games per variant ({} in all)",
        need * variants * bots as u64
    )?;
    // The difference's variance is at most the sum of the two (shared seeds only lower it).
    writeln!(out, "  the difference from the preset to ±{target}: at most {} games per variant", 2 * need)?;
    match config.precision {
        Some(p) => {
            let rounds = need.div_ceil(config.games);
            writeln!(out, "  --precision {}: about {rounds} rounds of {} games per variant", p.elo, config.games)?;
            if rounds * config.games > p.max_games {
                writeln!(out, "  the cap comes first: --max-games {} is fewer than that", p.max_games)?;
            }
        }
        None => {
            let h = elo_half_width(config.games, draw_rate)?;
            writeln!(
                out,
                "  --games {}: first-mover Elo to about ±{h:.1}, the difference from the preset to at most ±{:.1}",
                config.games,
                h * std::f64::consts::SQRT_2
            )?;
        }
    }
    writeln!(
        out,
        "An estimate from independent games: pairs of games on one deal gave intervals up to 16% wider in the shipped ±5 Elo study (a third more games)."
    )?;
    Ok(())
}

/// The bot × variant table of a study of several bots, written into `out` and printed.
pub fn write_bots_table(studies: &[(String, StudyResult)], out: &Path) -> Result<()> {
    let table = bots_markdown(studies);
    write_atomic(&out.join("first-move-bots.md"), &table)?;
    write_atomic(&out.join("first-move-bots.csv"), &bots_csv(studies))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "\n{table}")?;
    writeln!(stdout, "written: first-move-bots.md and .csv in {}", out.display())?;
    Ok(())
}

/// Write one study's report files into `dir`; returns the Markdown and the list of files written.
fn write_report(config: &StudyConfig, result: &StudyResult, dir: &Path, code: &str) -> Result<(String, &'static str)> {
    let lines = &result.lines;
    let markdown = to_markdown_by(config, result, code);
    write_atomic(&dir.join("first-move.md"), &markdown)?;
    write_atomic(&dir.join("first-move.csv"), &to_csv(lines))?;
    write_atomic(&dir.join("first-move.svg"), &chart(config, lines))?;
    write_atomic(&dir.join("first-move.json"), &serde_json::to_string_pretty(result)?)?;
    let mut written = "first-move.md, .csv, .svg and .json";
    if let Some(e) = &result.factorial {
        write_atomic(&dir.join("first-move-effects.csv"), &effects_csv(e))?;
        written = "first-move.md, .csv, .svg, .json and first-move-effects.csv";
    }
    Ok((markdown, written))
}

/// The study's chart: each variant's first-mover Elo minus its preset's, the
/// rule-maker's question; a study with no preset to compare with (a
/// factorial design without one) shows each variant's first-mover Elo.
fn chart(config: &StudyConfig, lines: &[VariantLine]) -> String {
    let games = match config.precision {
        Some(p) => format!("each to ±{} Elo (at most {} games)", p.elo, p.max_games),
        None => format!("{} games each", config.games),
    };
    let compared: Vec<Row> = lines
        .iter()
        .filter_map(|l| {
            let d = l.vs_preset.as_ref()?;
            let label = if d.never_applied() {
                format!("{} (option never applied)", l.variant)
            } else {
                format!("{} (first mover {:+.0})", l.variant, l.elo.value)
            };
            // Marked by the corrected test, as a chart of many rows should be.
            let highlight = !d.never_applied() && d.p_holm < 0.05;
            Some(Row { label, value: d.elo.value, low: d.elo.low, high: d.elo.high, highlight, band: None })
        })
        .collect();
    if compared.is_empty() {
        let rows: Vec<Row> = lines
            .iter()
            .map(|l| Row {
                label: l.variant.clone(),
                value: l.elo.value,
                low: l.elo.low,
                high: l.elo.high,
                highlight: l.p_holm < 0.05,
                band: None,
            })
            .collect();
        let title = format!("First-mover Elo per variant: {} vs itself, {games} (95% CI)", config.bot);
        let x_label = "first mover's Elo (red: differs from 0 after Holm's correction)";
        return error_bar_chart(&title, x_label, &rows, Axis::PLAIN, 0.0, "0: no first-mover edge");
    }
    let title = format!("First-mover Elo minus the preset's: {} vs itself, {games} (95% CI)", config.bot);
    let x_label = "difference from the mode's preset in Elo, same seeds (red: differs after Holm's correction)";
    error_bar_chart(&title, x_label, &compared, Axis::PLAIN, 0.0, "0: as the preset")
}
