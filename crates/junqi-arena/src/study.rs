//! The first-move study: for each rule variant, paired games between equal
//! bots, and how much moving first is worth.

use crate::factorial::{fit_effects, Factorial, FactorialEffects};
use crate::matchup::{matchup_config, play_matchup, GameResult};
use crate::tallies::{PartTally, RoundTally, Tallies, TALLIES_FILE};
use crate::{ensure_run_file, slug, ArenaError};
use junqi_core::Rules;
use junqi_selfplay::RunOptions;
use junqi_stats::Estimate;
use junqi_stats::{pair_estimates, wilson_interval, Penta};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A named rule set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    pub rules: Rules,
}

impl Variant {
    /// A rules TOML file (a preset's `mode` plus the options that differ); named by its file stem.
    pub fn from_file(path: &Path) -> Result<Variant, ArenaError> {
        let text = junqi_core::read_text(path).map_err(ArenaError::io(path))?;
        let rules = Rules::from_toml_str(&text).map_err(|e| ArenaError::Config(format!("{}: {e}", path.display())))?;
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Variant { name, rules })
    }
}

/// Everything that decides a study's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyConfig {
    pub variants: Vec<Variant>,
    /// The bot playing both seats (canonical spec).
    pub bot: junqi_bots::BotSpec,
    /// Games per variant (even: each seed twice, seats swapped); with
    /// `precision`, the games of one round.
    pub games: u64,
    pub seed: u64,
    /// Play in rounds until each variant's first-mover Elo is known to
    /// `precision` (absent: one round of `games`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    /// A factorial design whose cells are `variants` (in order): the study
    /// also fits the factors' effects on the first mover's score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factorial: Option<Factorial>,
}

/// A precision target: rounds of `games` games over the variants that still
/// need them, until each variant's 95% interval of the first mover's Elo is
/// at most `elo` wide on either side, or it has played `max_games`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precision {
    /// The largest half-width of the interval, in Elo.
    pub elo: f64,
    /// The most games a variant plays.
    pub max_games: u64,
}

/// The file holding a study's config inside its output directory.
pub const STUDY_FILE: &str = "study.json";

/// A proportion with its Wilson 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proportion {
    pub count: u64,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

impl Proportion {
    pub(crate) fn new(count: u64, n: u64) -> Result<Proportion, ArenaError> {
        let i = wilson_interval(count as f64, n as f64)?;
        Ok(Proportion { count, rate: count as f64 / n as f64, low: i.low, high: i.high })
    }
}

/// One variant's line of the study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantLine {
    pub variant: String,
    /// The options that differ from the mode's preset, `name=value`.
    pub changes: Vec<String>,
    pub games: u64,
    /// The first mover's (seat 1's) wins, draws and losses.
    pub wins: Proportion,
    pub draws: Proportion,
    pub losses: Proportion,
    /// Seat 1's points per game, with the 95% interval from the paired games' pentanomial variance.
    pub score: Estimate,
    /// The first-mover advantage in Elo (logistic), 95% interval from the pairs.
    pub elo: Estimate,
    /// Whether the Elo interval excludes zero.
    pub significant: bool,
    /// The two-sided p-value of "moving first is worth nothing" in this variant.
    #[serde(default)]
    pub p_value: f64,
    /// That p-value adjusted over the study's variants: Holm–Bonferroni
    /// (family-wise error) and Benjamini–Hochberg (false discovery rate).
    #[serde(default)]
    pub p_holm: f64,
    #[serde(default)]
    pub p_bh: f64,
    /// The comparison with the preset of this variant's mode, when the study
    /// has that preset and this is another variant.
    #[serde(default)]
    pub vs_preset: Option<PresetDifference>,
    pub mean_plies: f64,
    pub median_plies: f64,
    /// How games ended: termination name → games.
    pub terminations: BTreeMap<String, u64>,
}

/// How far a variant's first-mover advantage is from its mode's preset's,
/// measured on the same seeds (common random numbers: the pairs of games
/// with the same seed are compared, so their covariance is counted).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PresetDifference {
    /// The preset variant's name.
    pub reference: String,
    /// The first mover's score minus the preset's (per game), 95% interval.
    pub score: Estimate,
    /// The same in Elo (the logistic curve's slope at the mean of the two
    /// scores carries the interval over).
    pub elo: Estimate,
    /// Two-sided p-value of "no difference", raw and adjusted over the
    /// study's comparisons (Holm–Bonferroni, Benjamini–Hochberg).
    pub p_value: f64,
    pub p_holm: f64,
    pub p_bh: f64,
    /// The games compared (each against the preset's game on the same seed and seat).
    #[serde(default)]
    pub compared_games: u64,
    /// How many of them were not played move for move as the preset's game
    /// (`None` in reports from before this was counted). Zero: the option
    /// never came into play, and the difference is no measurement.
    #[serde(default)]
    pub changed_games: Option<u64>,
}

impl PresetDifference {
    /// Every compared game was played exactly as the preset's: the option never applied.
    pub fn never_applied(&self) -> bool {
        self.changed_games == Some(0)
    }
}

/// A finished study.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyResult {
    pub lines: Vec<VariantLine>,
    /// Things found while resuming (e.g. games written by another code version).
    #[serde(default)]
    pub notes: Vec<String>,
    /// With a factorial design: the fitted effects of its factors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factorial: Option<FactorialEffects>,
}

/// `variants` with, first, the preset of each mode that has variants but no
/// preset among them (named by the mode, as `--variant MODE` would name it):
/// the reference of the "minus the preset" comparison, which a study without
/// it cannot make. Also returns the names of the presets added.
pub fn with_presets(variants: Vec<Variant>) -> (Vec<Variant>, Vec<String>) {
    let mut added: Vec<Variant> = Vec::new();
    for v in &variants {
        let preset = Rules::preset(v.rules.mode);
        if variants.iter().chain(&added).any(|r| r.rules == preset) {
            continue;
        }
        let mode = v.rules.mode.name();
        // A name of its own, should a variant already be called by the mode.
        let taken = variants.iter().any(|r| r.name == mode);
        let name = if taken { format!("{mode}-preset") } else { mode.to_string() };
        added.push(Variant { name, rules: preset });
    }
    let names = added.iter().map(|v| v.name.clone()).collect();
    added.extend(variants);
    (added, names)
}

/// Play (or resume) the study in `out`; `on_variant` hears each variant's name before it starts.
impl StudyConfig {
    /// The directory of variant `k`'s games inside `out` (with a precision
    /// target, one `round-NNNNN` below it per round).
    pub fn variant_dir(&self, out: &Path, k: usize) -> PathBuf {
        out.join("variants").join(format!("{k:02}-{}", slug(&self.variants[k].name)))
    }

    /// Everything [`run_study`] checks before it writes anything.
    pub fn check(&self) -> Result<(), ArenaError> {
        let Some(first) = self.variants.first() else {
            return Err(ArenaError::Config("the study has no variants".into()));
        };
        if let Some(p) = &self.precision {
            if !(p.elo.is_finite() && p.elo > 0.0 && p.elo <= 1000.0) {
                return Err(ArenaError::Config(format!("the precision must be in (0, 1000] Elo, got {}", p.elo)));
            }
            if p.max_games < self.games {
                return Err(ArenaError::Config(format!(
                    "the game cap ({}) must be at least one round ({} games)",
                    p.max_games, self.games
                )));
            }
            junqi_selfplay::limits::in_range("the game cap", p.max_games, 2, junqi_selfplay::limits::MAX_GAMES)
                .map_err(ArenaError::Config)?;
        }
        if let Some(f) = &self.factorial {
            if f.cells.len() != self.variants.len() || f.cells.iter().any(|c| c.len() != f.factors.len()) {
                return Err(ArenaError::Config(format!(
                    "the factorial design has {} cells but the study {} variants",
                    f.cells.len(),
                    self.variants.len()
                )));
            }
        }
        matchup_config(first.rules, [&self.bot, &self.bot], self.games, self.seed).map(|_| ())
    }
}

pub fn run_study(
    config: &StudyConfig,
    out: &Path,
    options: &RunOptions,
    on_variant: impl FnMut(&str),
) -> Result<StudyResult, ArenaError> {
    run_study_from(config, out, options, &Resume::default(), on_variant)
}

/// Where a precision study continues from besides its own directory, and
/// what it accepts there.
#[derive(Clone, Debug, Default)]
pub struct Resume {
    /// The study's tallies (e.g. committed, or merged from a round's parts)
    /// and the file they came from: their rounds are not played again.
    pub tallies: Option<(Tallies, PathBuf)>,
    /// Continue tallies played by another code version (noted in the report).
    pub allow_code_change: bool,
}

/// [`run_study`], a precision study continuing from `resume`'s tallies
/// when they are ahead of those in `out`.
pub fn run_study_from(
    config: &StudyConfig,
    out: &Path,
    options: &RunOptions,
    resume: &Resume,
    mut on_variant: impl FnMut(&str),
) -> Result<StudyResult, ArenaError> {
    // Checked before anything is written, so a bad count leaves no directory behind.
    config.check()?;
    if config.precision.is_none() && resume.tallies.is_some() {
        return Err(ArenaError::Config("tallies continue a study with a precision target (--precision)".into()));
    }
    if let Some((t, path)) = &resume.tallies {
        t.check_same_study(config, path, resume.allow_code_change)?;
    }
    // Held to the end: one writer per directory.
    let _lock = ensure_run_file(out, STUDY_FILE, STUDY_FORMAT, config, None)?;
    let options = &RunOptions { part: None, ..options.clone() };
    let (mut lines, mut notes) = (Vec::new(), Vec::new());
    let effects = |results: &[Vec<GameResult>]| config.factorial.as_ref().map(|f| fit_effects(f, results));
    if config.precision.is_none() {
        let mut all = Vec::new();
        for (k, v) in config.variants.iter().enumerate() {
            on_variant(&v.name);
            let m = play_variant(config, out, k, options)?;
            notes.extend(m.notes);
            lines.push(variant_line(v, &m.results)?);
            all.push(m.results);
        }
        compare(&config.variants, &mut lines, &all)?;
        let factorial = effects(&all);
        return Ok(StudyResult { lines, notes, factorial });
    }
    // Rounds: round r plays `games` more games of every variant still short
    // of the target, all variants on the round's seed (common random numbers),
    // each round in its own directory. Each finished round is added to the
    // tallies (`tallies.json`), which decide the next round and the report:
    // a round tallied is not played again, and its games may be gone.
    let own = out.join(TALLIES_FILE);
    let mut tallies = starting_tallies(config, &own, resume)?;
    if resume.tallies.is_some() {
        // The directory holds the study's state from the start (also when the given tallies finish it).
        tallies.write(&own)?;
    }
    let mut results: Vec<Vec<GameResult>> = vec![Vec::new(); config.variants.len()];
    for round in 0usize.. {
        let known = round < tallies.rounds.len();
        let playing = if known {
            tallies.rounds[round].variants.iter().map(|t| t.variant).collect()
        } else {
            tallies.next_round()
        };
        if playing.is_empty() {
            break;
        }
        // A factorial design's effects need every game: a tallied round's are read back (or played again).
        if known && config.factorial.is_none() {
            continue;
        }
        let mut got: Vec<Option<Vec<GameResult>>> = vec![None; config.variants.len()];
        for k in playing {
            on_variant(&format!("{} (round {})", config.variants[k].name, round + 1));
            let m = play_round(config, out, k, round, options)?;
            notes.extend(m.notes);
            got[k] = Some(m.results);
        }
        if !known {
            tallies.push(RoundTally::of_games(config, &got)?);
            tallies.write(&own)?;
        }
        for (k, g) in got.into_iter().enumerate() {
            results[k].extend(g.unwrap_or_default());
        }
    }
    notes.extend(tallies.code_notes());
    let lines = tallies.lines()?;
    let factorial = effects(&results);
    Ok(StudyResult { lines, notes, factorial })
}

/// The tallies a precision study in `own` (its `tallies.json`) starts from:
/// those there or `resume`'s, whichever holds more rounds; the two must agree
/// on the rounds both hold.
fn starting_tallies(config: &StudyConfig, own: &Path, resume: &Resume) -> Result<Tallies, ArenaError> {
    let whole = |t: &Tallies, path: &Path| t.check_whole(path);
    let mut tallies = None;
    if own.is_file() {
        let (t, path) = Tallies::read(own)?;
        t.check_same_study(config, &path, resume.allow_code_change)?;
        whole(&t, &path)?;
        tallies = Some(t);
    }
    if let Some((given, path)) = &resume.tallies {
        whole(given, path)?;
        match &tallies {
            Some(t) => {
                let n = t.rounds.len().min(given.rounds.len());
                if t.rounds[..n] != given.rounds[..n] {
                    return Err(ArenaError::Config(format!(
                        "{} holds other tallies than {} (their rounds differ); choose another --out",
                        own.display(),
                        path.display()
                    )));
                }
                if given.rounds.len() > t.rounds.len() {
                    tallies = Some(given.clone());
                }
            }
            None => tallies = Some(given.clone()),
        }
    }
    Ok(tallies.unwrap_or_else(|| Tallies::new(config)))
}

/// Make `out` the study directory of `tallies` (joined from a round's
/// parts): its `study.json` and `tallies.json`, without games. A directory
/// holding another study, or tallies that disagree with these on a round,
/// is refused; tallies there with more rounds are kept.
pub fn save_tallies(out: &Path, tallies: &Tallies) -> Result<(), ArenaError> {
    let _lock = ensure_run_file(out, STUDY_FILE, STUDY_FORMAT, &tallies.config, None)?;
    let own = out.join(TALLIES_FILE);
    if own.is_file() {
        let (there, path) = Tallies::read(&own)?;
        let n = there.rounds.len().min(tallies.rounds.len());
        if there.part.is_some() || there.rounds[..n] != tallies.rounds[..n] {
            return Err(ArenaError::Config(format!(
                "{} holds other tallies (their rounds differ); merge into another --out",
                path.display()
            )));
        }
        if there.rounds.len() >= tallies.rounds.len() {
            return Ok(());
        }
    }
    tallies.write(&own)
}

/// Variant `k`'s games of round `round` of a precision study (of a part, with `options.part`).
fn play_round(
    config: &StudyConfig,
    out: &Path,
    k: usize,
    round: usize,
    options: &RunOptions,
) -> Result<crate::Matchup, ArenaError> {
    let seed = junqi_selfplay::game_seed(config.seed, round as u64);
    let c = matchup_config(config.variants[k].rules, [&config.bot, &config.bot], config.games, seed)?;
    play_matchup(c, &config.variant_dir(out, k).join(format!("round-{round:05}")), options)
}

const STUDY_FORMAT: &str = "junqi-study/1";

/// Variant `k` of a fixed-count study, played (or resumed) into its directory.
fn play_variant(
    config: &StudyConfig,
    out: &Path,
    k: usize,
    options: &RunOptions,
) -> Result<crate::Matchup, ArenaError> {
    let v = &config.variants[k];
    let c = matchup_config(v.rules, [&config.bot, &config.bot], config.games, config.seed)?;
    play_matchup(c, &config.variant_dir(out, k), options)
}

/// Play (or resume) part `part` of a study into `out`; no report.
///
/// A fixed-count study plays that part of every variant's games (`junqi
/// merge` joins the parts and writes the report). A study with a precision
/// target plays that part of its next round: the round after `resume`'s
/// tallies (the first without), for the variants they leave short, and
/// writes the part's tallies to `out/tallies.json` (`junqi study merge`
/// joins the round's parts into the tallies the next round starts from).
/// Returns the part's games on disk and notes from resuming.
pub fn run_study_part(
    config: &StudyConfig,
    out: &Path,
    options: &RunOptions,
    part: junqi_selfplay::Part,
    resume: &Resume,
    mut on_variant: impl FnMut(&str),
) -> Result<(u64, Vec<String>), ArenaError> {
    config.check()?;
    if config.precision.is_some() {
        return run_round_part(config, out, options, part, resume, on_variant);
    }
    if resume.tallies.is_some() {
        return Err(ArenaError::Config("tallies continue a study with a precision target (--precision)".into()));
    }
    let _lock = ensure_run_file(out, STUDY_FILE, STUDY_FORMAT, config, Some(part))?;
    let (mut games, mut notes) = (0, Vec::new());
    for (k, v) in config.variants.iter().enumerate() {
        on_variant(&v.name);
        let options = RunOptions { part: Some(part.rotated(k as u64)), ..options.clone() };
        let m = play_variant(config, out, k, &options)?;
        games += m.results.len() as u64;
        notes.extend(m.notes);
    }
    Ok((games, notes))
}

/// Part `part` of a precision study's next round (see [`run_study_part`]).
fn run_round_part(
    config: &StudyConfig,
    out: &Path,
    options: &RunOptions,
    part: junqi_selfplay::Part,
    resume: &Resume,
    mut on_variant: impl FnMut(&str),
) -> Result<(u64, Vec<String>), ArenaError> {
    if config.factorial.is_some() {
        return Err(ArenaError::Config(
            "a factorial design's effects are fitted on every game: a --factor study with --precision plays in one process"
                .into(),
        ));
    }
    let mut tallies = match &resume.tallies {
        Some((t, path)) => {
            t.check_same_study(config, path, resume.allow_code_change)?;
            t.check_whole(path)?;
            t.clone()
        }
        None => Tallies::new(config),
    };
    let round = tallies.rounds.len();
    let playing = tallies.next_round();
    if playing.is_empty() {
        return Err(ArenaError::Config(format!(
            "the tallies finish the study after {round} rounds: no round is left to play; run without --part (with the same --resume-from) to write its report"
        )));
    }
    let _lock = ensure_run_file(out, STUDY_FILE, STUDY_FORMAT, config, Some(part))?;
    // Every variant's part holds the same seeds (each compared with its preset's), rotated by round.
    let options = RunOptions { part: Some(part.rotated(round as u64)), ..options.clone() };
    let (mut games, mut notes) = (0, Vec::new());
    let mut got: Vec<Option<Vec<GameResult>>> = vec![None; config.variants.len()];
    for k in playing {
        on_variant(&format!("{} (round {}, part {part})", config.variants[k].name, round + 1));
        let m = play_round(config, out, k, round, &options)?;
        games += m.results.len() as u64;
        notes.extend(m.notes);
        got[k] = Some(m.results);
    }
    tallies.part = Some(PartTally { part, round: RoundTally::of_games(config, &got)? });
    tallies.write(&out.join(TALLIES_FILE))?;
    Ok((games, notes))
}

/// The first mover's mean score in each pair of games (one seed, seats swapped).
pub fn pair_points(results: &[GameResult]) -> Vec<f64> {
    results.chunks_exact(2).map(|p| (p[0].seat1_score + p[1].seat1_score) / 2.0).collect()
}

/// Fill in the study-wide statistics of `lines` (one per variant, with each
/// variant's games): the corrected p-values of "moving first is worth
/// nothing", and each variant's difference from its mode's preset. A variant
/// whose games were all played exactly as the preset's is marked as never
/// applied and left out of the corrections: its zero difference is no test.
pub fn compare(variants: &[Variant], lines: &mut [VariantLine], results: &[Vec<GameResult>]) -> Result<(), ArenaError> {
    let pairs: Vec<Vec<f64>> = results.iter().map(|r| pair_points(r)).collect();
    compare_with(variants, lines, |i, r| {
        // The seeds both played (in precision mode one may have played more rounds).
        let common = pairs[i].len().min(pairs[r].len());
        if common < 2 {
            return Ok(None);
        }
        // Games in the same place of both lists share seed and seats.
        let compared = &results[i][..2 * common];
        let changed = compared.iter().zip(&results[r]).filter(|(a, b)| a.fingerprint != b.fingerprint).count() as u64;
        let score = junqi_stats::paired_difference(&pairs[i][..common], &pairs[r][..common])?;
        Ok(Some((score, 2 * common as u64, changed)))
    })
}

/// [`compare`] with each variant's difference from its preset given by
/// `difference(variant, preset)`: the score difference per game, the games
/// compared and how many of them the option changed (`None`: too few to compare).
pub(crate) fn compare_with(
    variants: &[Variant],
    lines: &mut [VariantLine],
    difference: impl Fn(usize, usize) -> Result<Option<(Estimate, u64, u64)>, ArenaError>,
) -> Result<(), ArenaError> {
    use junqi_stats::{benjamini_hochberg_adjusted, holm_adjusted, p_value};
    let raw: Vec<f64> = lines.iter().map(|l| l.p_value).collect();
    let (holm, bh) = (holm_adjusted(&raw)?, benjamini_hochberg_adjusted(&raw)?);
    for (i, l) in lines.iter_mut().enumerate() {
        (l.p_holm, l.p_bh) = (holm[i], bh[i]);
    }
    let mut diffs: Vec<(usize, PresetDifference)> = Vec::new();
    for i in 0..variants.len() {
        let Some(r) = crate::tallies::preset_of(variants, i) else { continue };
        let Some((score, compared_games, changed)) = difference(i, r)? else { continue };
        let mean = ((lines[i].score.value + lines[r].score.value) / 2.0).clamp(0.01, 0.99);
        let slope = junqi_stats::ELO_PER_NAT / (mean * (1.0 - mean));
        let scale = |e: &Estimate| Estimate { value: e.value * slope, low: e.low * slope, high: e.high * slope };
        diffs.push((
            i,
            PresetDifference {
                reference: variants[r].name.clone(),
                score,
                elo: scale(&score),
                p_value: if changed == 0 { 1.0 } else { p_value(&score, 0.0) },
                p_holm: 1.0,
                p_bh: 1.0,
                compared_games,
                changed_games: Some(changed),
            },
        ));
    }
    // Only the measured differences are the family the corrections count.
    let tested: Vec<usize> = (0..diffs.len()).filter(|&k| !diffs[k].1.never_applied()).collect();
    let raw: Vec<f64> = tested.iter().map(|&k| diffs[k].1.p_value).collect();
    let (holm, bh) = (holm_adjusted(&raw)?, benjamini_hochberg_adjusted(&raw)?);
    for (j, &k) in tested.iter().enumerate() {
        (diffs[k].1.p_holm, diffs[k].1.p_bh) = (holm[j], bh[j]);
    }
    for (i, d) in diffs {
        lines[i].vs_preset = Some(d);
    }
    Ok(())
}

/// The options of `rules` that differ from its mode's preset.
pub fn changes(rules: &Rules) -> Vec<String> {
    let preset = serde_json::to_value(Rules::preset(rules.mode)).expect("rules serialize");
    let here = serde_json::to_value(rules).expect("rules serialize");
    let (Some(p), Some(h)) = (preset.as_object(), here.as_object()) else { return Vec::new() };
    h.iter()
        .filter(|(k, v)| p.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"')))
        .collect()
}

/// The statistics of one variant's games (paired: games 2k and 2k+1 share a seed).
pub fn variant_line(v: &Variant, results: &[GameResult]) -> Result<VariantLine, ArenaError> {
    let n = results.len() as u64;
    let count = |s: f64| results.iter().filter(|r| r.seat1_score == s).count() as u64;
    let penta = Penta::from_pairs(results.chunks_exact(2).map(|p| (p[0].seat1_score, p[1].seat1_score)))?;
    let summary = pair_estimates(&penta);
    let elo = summary.elo;
    let mut plies: Vec<u32> = results.iter().map(|r| r.plies).collect();
    plies.sort_unstable();
    let median_plies = match plies.len() {
        0 => 0.0,
        len if len % 2 == 1 => plies[len / 2] as f64,
        len => (plies[len / 2 - 1] as f64 + plies[len / 2] as f64) / 2.0,
    };
    let mut terminations = BTreeMap::new();
    for r in results {
        *terminations.entry(r.termination.clone()).or_insert(0) += 1;
    }
    Ok(VariantLine {
        variant: v.name.clone(),
        changes: changes(&v.rules),
        games: n,
        wins: Proportion::new(count(1.0), n)?,
        draws: Proportion::new(count(0.5), n)?,
        losses: Proportion::new(count(0.0), n)?,
        score: summary.score,
        elo,
        significant: elo.low > 0.0 || elo.high < 0.0,
        p_value: junqi_stats::p_value(&summary.score, 0.5),
        p_holm: 1.0,
        p_bh: 1.0,
        vs_preset: None,
        mean_plies: plies.iter().map(|&p| p as f64).sum::<f64>() / n.max(1) as f64,
        median_plies,
        terminations,
    })
}

/// A rate as a percentage with one decimal (its interval is in the CSV).
fn pct(p: &Proportion) -> String {
    format!("{:.1}%", 100.0 * p.rate)
}

/// The "minus the preset" cells of a line: the difference and its verdicts,
/// or why there is none.
fn preset_cells(l: &VariantLine, verdicts: impl Fn(f64, f64, f64) -> String) -> (String, String) {
    match &l.vs_preset {
        None if l.changes.is_empty() => ("(reference)".into(), "—".into()),
        None => ("—".into(), "—".into()),
        Some(d) if d.never_applied() => (format!("option never applied in {} games", d.compared_games), "—".into()),
        Some(d) => (d.elo.show(), verdicts(d.p_value, d.p_holm, d.p_bh)),
    }
}

/// Resume notes, each once with how many directories it came from (a
/// resumed study has one per variant and round): a few lines, not hundreds.
fn notes_markdown(notes: &[String]) -> String {
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for n in notes {
        let text = n.split_once(": ").map_or(n.as_str(), |(_, t)| t);
        match kinds.iter_mut().find(|(k, _)| *k == text) {
            Some((_, count)) => *count += 1,
            None => kinds.push((text, 1)),
        }
    }
    let mut s = String::new();
    const SHOWN: usize = 5;
    for (text, count) in kinds.iter().take(SHOWN) {
        let _ = writeln!(s, "\nResumed: {text} ({count} {}).", if *count == 1 { "directory" } else { "directories" });
    }
    if kinds.len() > SHOWN {
        let _ = writeln!(s, "\n{} more kinds of resume note.", kinds.len() - SHOWN);
    }
    if !notes.is_empty() {
        let _ = writeln!(s, "\nEvery note with its directory: `notes` in first-move.json.");
    }
    s
}

/// The study as Markdown: the answer (first-mover Elo and the difference
/// from the preset), then how the games went and ended, in narrow tables.
pub fn to_markdown(config: &StudyConfig, result: &StudyResult) -> String {
    to_markdown_by(config, result, &junqi_selfplay::code_version())
}

/// [`to_markdown`], naming `code` as the code behind it (a report rewritten
/// from saved results names the code that played the games too).
pub fn to_markdown_by(config: &StudyConfig, result: &StudyResult, code: &str) -> String {
    let lines = &result.lines;
    let mut s = String::new();
    let cheats = config.bot.cheats();
    let games = match config.precision {
        None => format!("{} paired games per variant", config.games),
        Some(p) => format!(
            "rounds of {} paired games until each variant's first-mover Elo is known to ±{} (at most {} games; the games column says how many each needed)",
            config.games, p.elo, p.max_games
        ),
    };
    let _ = writeln!(
        s,
        "First-move study: `{}`{} against itself, {games} (each seed twice, seats swapped), seed {}, code {}.\n",
        config.bot,
        if cheats { " (cheats: sees hidden pieces)" } else { "" },
        config.seed,
        code
    );
    let _ = writeln!(
        s,
        "The answer depends on the bot: these are `{}`'s games against itself, and a rule that changes nothing for this bot may matter between stronger players (or the reverse). Check a rule change with more than one bot (`--bot A --bot B`) before relying on it.\n",
        config.bot
    );
    let _ = writeln!(
        s,
        "| variant | games | first-mover Elo [95% CI] | ≠ 0 (raw / Holm / BH) | minus the preset, Elo [95% CI] | ≠ preset (raw / Holm / BH) |"
    );
    let _ = writeln!(s, "|---|---:|---|---|---|---|");
    let yes = |p: f64| if p <= 0.05 { "yes" } else { "no" };
    let verdicts = |raw: f64, holm: f64, bh: f64| format!("{} / {} / {}", yes(raw), yes(holm), yes(bh));
    for l in lines {
        let (difference, differs) = preset_cells(l, verdicts);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {difference} | {differs} |",
            l.variant,
            l.games,
            l.elo.show(),
            verdicts(l.p_value, l.p_holm, l.p_bh),
        );
    }
    let _ = writeln!(s, "\nThe games: the options each variant changes, the first mover's results, game lengths.\n");
    let _ = writeln!(s, "| variant | changes | first mover wins / draws / loses | plies mean / median |");
    let _ = writeln!(s, "|---|---|---|---|");
    for l in lines {
        let changes = if l.changes.is_empty() { "(preset)".to_string() } else { l.changes.join(", ") };
        let (w, d, lo) = (pct(&l.wins), pct(&l.draws), pct(&l.losses));
        let _ = writeln!(
            s,
            "| {} | {changes} | {w} / {d} / {lo} | {:.0} / {:.0} |",
            l.variant, l.mean_plies, l.median_plies
        );
    }
    // One column per way a game ended, in any variant.
    let mut endings: Vec<&str> = lines.iter().flat_map(|l| l.terminations.keys().map(String::as_str)).collect();
    endings.sort_unstable();
    endings.dedup();
    let _ = writeln!(s, "\nHow the games ended (games).\n");
    let _ = writeln!(s, "| variant | {} |", endings.join(" | "));
    let _ = writeln!(s, "|---|{}", "---:|".repeat(endings.len()));
    for l in lines {
        let counts: Vec<String> =
            endings.iter().map(|e| l.terminations.get(*e).copied().unwrap_or(0).to_string()).collect();
        let _ = writeln!(s, "| {} | {} |", l.variant, counts.join(" | "));
    }
    let _ = writeln!(
        s,
        "\nRates: per game, with Wilson 95% intervals in first-move.csv (the two games of a pair share their deal, so those are a little narrow). Elo: logistic Elo of the first mover's score, its interval from the variance of the paired games (pentanomial), which accounts for that."
    );
    let _ = writeln!(
        s,
        "\nVerdicts at 5%, two-sided: raw (each test alone; with many variants some are \"yes\" by chance), Holm (Holm–Bonferroni over the table's variants: the chance of any false \"yes\" in the column is at most 5%), BH (Benjamini–Hochberg: at most 5% of the column's \"yes\" are false, on average). \"Minus the preset\": the variant's first-mover score minus that of its mode's preset in this study, from the same seeds (the pairs with one seed are compared, so what the two share cancels), shown in Elo; its verdicts are corrected over the table's comparisons. \"Option never applied\": every game was played move for move as the preset's game on the same seed, so the option never came into play with this bot and the difference is no measurement (left out of the corrections)."
    );
    if lines.iter().any(|l| l.vs_preset.as_ref().is_some_and(|d| d.changed_games.is_none())) {
        let _ = writeln!(
            s,
            "\nThese results predate the count of games each option changed: an option that never applied shows here as a difference of +0 [+0, +0]."
        );
    }
    if let Some(e) = &result.factorial {
        s.push_str(&crate::factorial::effects_markdown(e));
    }
    s.push_str(&notes_markdown(&result.notes));
    s
}

/// The study as CSV, one row per variant.
pub fn to_csv(lines: &[VariantLine]) -> String {
    let mut s = String::from(
        "variant,changes,games,wins,win_rate,win_low,win_high,draws,draw_rate,draw_low,draw_high,losses,loss_rate,loss_low,loss_high,score,score_low,score_high,elo,elo_low,elo_high,significant,mean_plies,median_plies,terminations,p_value,p_holm,p_bh,reference,vs_preset_elo,vs_preset_elo_low,vs_preset_elo_high,vs_preset_p,vs_preset_p_holm,vs_preset_p_bh,vs_preset_games,vs_preset_changed_games\n",
    );
    for l in lines {
        let p = |x: &Proportion| format!("{},{:.6},{:.6},{:.6}", x.count, x.rate, x.low, x.high);
        let endings: Vec<String> = l.terminations.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.2},{:.2},{:.2},{},{:.2},{:.1},{},{:.6},{:.6},{:.6},{}",
            crate::csv_field(&l.variant),
            crate::csv_field(&l.changes.join("; ")),
            l.games,
            p(&l.wins),
            p(&l.draws),
            p(&l.losses),
            l.score.value,
            l.score.low,
            l.score.high,
            l.elo.value,
            l.elo.low,
            l.elo.high,
            l.significant,
            l.mean_plies,
            l.median_plies,
            crate::csv_field(&endings.join(" ")),
            l.p_value,
            l.p_holm,
            l.p_bh,
            match &l.vs_preset {
                Some(d) => format!(
                    "{},{:.2},{:.2},{:.2},{:.6},{:.6},{:.6},{},{}",
                    crate::csv_field(&d.reference),
                    d.elo.value,
                    d.elo.low,
                    d.elo.high,
                    d.p_value,
                    d.p_holm,
                    d.p_bh,
                    d.compared_games,
                    d.changed_games.map_or(String::new(), |c| c.to_string())
                ),
                None => ",,,,,,,,".to_string(),
            }
        );
    }
    s
}

/// How a variant's result looks over several bots: `yes (all +)` when every
/// bot's interval lies above zero (or every one below), `no (opposite signs)`
/// when some lie above and some below, `partly (k of n)` when only some
/// exclude zero, `—` when none does. A bot without an estimate (a fit that
/// failed) counts as not excluding zero, and the verdict says how many.
fn across(intervals: &[Option<Estimate>]) -> String {
    let known: Vec<&Estimate> = intervals.iter().flatten().collect();
    let above = known.iter().filter(|e| e.low > 0.0).count();
    let below = known.iter().filter(|e| e.high < 0.0).count();
    let n = intervals.len();
    let verdict = match (above, below) {
        (0, 0) => "—".into(),
        (a, 0) if a == n => "yes (all +)".into(),
        (0, b) if b == n => "yes (all −)".into(),
        (a, b) if a > 0 && b > 0 => "no (opposite signs)".into(),
        (a, b) => format!("partly ({} of {n})", a + b),
    };
    match n - known.len() {
        0 => verdict,
        missing => format!("{verdict}; {missing} not estimated"),
    }
}

/// The tables of a study run with several bots, one study per bot on the same
/// variants and seeds: per variant, each bot's first-mover Elo; each bot's
/// difference from the mode's preset; and with a factorial design each bot's
/// effects. The last column says whether the bots agree.
pub fn bots_markdown(studies: &[(String, StudyResult)]) -> String {
    let mut s = String::new();
    let Some((_, first)) = studies.first() else { return s };
    let bots: Vec<&str> = studies.iter().map(|(b, _)| b.as_str()).collect();
    let header = |s: &mut String, what: &str| {
        let _ = writeln!(s, "| {what} | {} | holds across bots |", bots.join(" | "));
        let _ = writeln!(s, "|---|{}---|", "---|".repeat(bots.len()));
    };
    let _ = writeln!(
        s,
        "Bot × variant: the first mover's Elo [95% CI] per bot (each bot against itself, same variants and seeds).\n"
    );
    header(&mut s, "variant");
    for (i, l) in first.lines.iter().enumerate() {
        let cells: Vec<Option<Estimate>> = studies.iter().map(|(_, r)| Some(r.lines[i].elo)).collect();
        let shown: Vec<String> = cells.iter().flatten().map(Estimate::show).collect();
        let _ = writeln!(s, "| {} | {} | {} |", l.variant, shown.join(" | "), across(&cells));
    }
    if first.lines.iter().any(|l| l.vs_preset.is_some()) {
        let _ = writeln!(s, "\nMinus the preset: each variant's first-mover Elo minus its mode's preset's, per bot, on the same seeds.\n");
        header(&mut s, "variant");
        for (i, l) in first.lines.iter().enumerate() {
            let diffs: Vec<Option<&PresetDifference>> =
                studies.iter().map(|(_, r)| r.lines[i].vs_preset.as_ref()).collect();
            if diffs.iter().all(Option::is_none) {
                continue;
            }
            let cells: Vec<Option<Estimate>> = diffs.iter().map(|d| d.map(|d| d.elo)).collect();
            let shown: Vec<String> = diffs
                .iter()
                .map(|d| match d {
                    None => "—".into(),
                    Some(d) if d.never_applied() => "never applied".into(),
                    Some(d) => d.elo.show(),
                })
                .collect();
            let _ = writeln!(s, "| {} | {} | {} |", l.variant, shown.join(" | "), across(&cells));
        }
    }
    // The terms from the first bot whose fit gave them (another bot's may have failed).
    let fitted = studies.iter().filter_map(|(_, r)| r.factorial.as_ref()).find(|f| !f.lines.is_empty());
    if let Some(f) = fitted.or(first.factorial.as_ref()) {
        let _ = writeln!(s, "\nFactorial effects per bot, Elo [95% CI] ({}).\n", f.design);
        header(&mut s, "term");
        for (i, l) in f.lines.iter().enumerate() {
            let cells: Vec<Option<Estimate>> =
                studies.iter().map(|(_, r)| r.factorial.as_ref().and_then(|e| e.lines.get(i)).map(|x| x.elo)).collect();
            let shown: Vec<String> = cells.iter().map(|c| c.map_or("—".into(), |e| e.show())).collect();
            let _ = writeln!(s, "| {} | {} | {} |", l.term, shown.join(" | "), across(&cells));
        }
        for (bot, r) in studies {
            if let Some(error) = r.factorial.as_ref().and_then(|f| f.error.as_deref()) {
                let _ = writeln!(s, "\n{bot}: no factorial fit: {error}");
            }
        }
    }
    let _ = writeln!(
        s,
        "\nHolds across bots: \"yes\" when every bot's 95% interval excludes zero on the same side, \"no\" when two bots' intervals exclude it on opposite sides, \"partly\" when only some exclude it, \"—\" when none does (raw intervals, not corrected for the number of rows)."
    );
    s
}

/// The bot × variant table as CSV, one row per bot and variant.
pub fn bots_csv(studies: &[(String, StudyResult)]) -> String {
    let mut s = String::from("bot,variant,games,elo,elo_low,elo_high,p_holm,vs_preset_elo,vs_preset_elo_low,vs_preset_elo_high,vs_preset_p_holm\n");
    for (bot, r) in studies {
        for l in &r.lines {
            let _ = writeln!(
                s,
                "{},{},{},{:.2},{:.2},{:.2},{:.6},{}",
                crate::csv_field(bot),
                crate::csv_field(&l.variant),
                l.games,
                l.elo.value,
                l.elo.low,
                l.elo.high,
                l.p_holm,
                l.vs_preset.as_ref().map_or(",,,".into(), |d| format!(
                    "{:.2},{:.2},{:.2},{:.6}",
                    d.elo.value, d.elo.low, d.elo.high, d.p_holm
                ))
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::Mode;

    #[test]
    fn bots_agree_only_when_every_interval_excludes_zero_on_one_side() {
        let e = |low: f64, high: f64| Some(Estimate { value: (low + high) / 2.0, low, high });
        assert_eq!(across(&[e(1.0, 5.0), e(2.0, 9.0)]), "yes (all +)");
        assert_eq!(across(&[e(-5.0, -1.0), e(-9.0, -2.0)]), "yes (all −)");
        assert_eq!(across(&[e(1.0, 5.0), e(-9.0, -2.0)]), "no (opposite signs)");
        assert_eq!(across(&[e(1.0, 5.0), e(-1.0, 2.0), e(-3.0, 3.0)]), "partly (1 of 3)");
        assert_eq!(across(&[e(-1.0, 5.0), e(-1.0, 2.0)]), "—");
        // A bot whose fit failed is not a bot that agrees.
        assert_eq!(across(&[e(1.0, 5.0), None]), "partly (1 of 2); 1 not estimated");
    }

    fn variant(name: &str, mode: Mode, set: &[&str]) -> Variant {
        let mut rules = Rules::preset(mode);
        for s in set {
            rules.apply_override(s).unwrap();
        }
        Variant { name: name.into(), rules }
    }

    #[test]
    fn a_missing_preset_is_added_first_and_only_once_per_mode() {
        let names = |v: &[Variant]| v.iter().map(|v| v.name.clone()).collect::<Vec<_>>();
        let given = vec![
            variant("anqi:rail_turns=all", Mode::Anqi, &["rail_turns=all"]),
            variant("anqi:mine_rule=trade", Mode::Anqi, &["mine_rule=trade"]),
            variant("fanqi", Mode::Fanqi, &[]),
        ];
        let (all, added) = with_presets(given.clone());
        assert_eq!(added, ["anqi"]);
        assert_eq!(names(&all), ["anqi", "anqi:rail_turns=all", "anqi:mine_rule=trade", "fanqi"]);
        assert_eq!(all[0].rules, Rules::preset(Mode::Anqi));
        // Nothing to add when every mode has its preset.
        assert_eq!(with_presets(all.clone()), (all, vec![]));
        // A variant already called by the mode's name keeps it.
        let (all, added) = with_presets(vec![variant("mingqi", Mode::Mingqi, &["mine_rule=trade"])]);
        assert_eq!(
            (names(&all), added),
            (vec!["mingqi-preset".to_string(), "mingqi".into()], vec!["mingqi-preset".to_string()])
        );
    }

    #[test]
    fn resume_notes_are_summarised_by_kind() {
        let notes: Vec<String> = (0..198)
            .map(|k| format!("runs/s/variants/{k:02}-x/round-00000: resuming a run started by code version A; new games record B"))
            .chain(["runs/s/variants/00-x: shard 3 unreadable, played again".to_string()])
            .collect();
        let md = notes_markdown(&notes);
        assert_eq!(md.lines().filter(|l| !l.is_empty()).count(), 3, "{md}");
        assert!(md.contains("Resumed: resuming a run started by code version A; new games record B (198 directories)."));
        assert!(md.contains("(1 directory)."));
        assert_eq!(notes_markdown(&[]), "");
    }
}
