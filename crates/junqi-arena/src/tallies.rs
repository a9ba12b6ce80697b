//! A precision study's state as per-round tallies: for every round and every
//! variant it played, the pentanomial counts of its pairs, the first mover's
//! wins, draws and losses, the game lengths and endings, and the pairs'
//! differences from the preset on the same seeds. Everything the study's
//! report and its next round's plan need, without the games: a few kilobytes
//! that can be committed, copied to another machine and resumed there
//! (`--resume-from`), or summed from the parts of one round (`junqi study
//! merge`).

use crate::matchup::GameResult;
use crate::study::{changes, Proportion, StudyConfig, Variant, VariantLine};
use crate::ArenaError;
use junqi_core::Rules;
use junqi_selfplay::Part;
use junqi_stats::{pair_estimates, Estimate, Penta};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The tallies' file inside a study's directory (and a part's).
pub const TALLIES_FILE: &str = "tallies.json";

/// The tallies' format.
pub const TALLIES_FORMAT: &str = "junqi-study-tallies/1";

/// Game lengths are counted in bins of this many plies (the median shown is
/// interpolated within its bin).
pub const PLIES_BIN: u32 = 10;

/// A precision study's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tallies {
    pub format: String,
    /// Everything that decides the study's games (seeds, bot, variants, rounds).
    pub config: StudyConfig,
    /// The complete rounds, in order: round `r` is `rounds[r]`.
    pub rounds: Vec<RoundTally>,
    /// In a part's file: its share of the round after `rounds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PartTally>,
    /// Whether no variant needs another round (derived from `rounds`, for
    /// drivers that read the file; checked when read).
    pub finished: bool,
}

/// One round: the tallies of the variants it played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundTally {
    /// The code version that played the round's games.
    pub code_version: String,
    /// One per variant played, in variant order.
    pub variants: Vec<Tally>,
}

/// A part's share of one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartTally {
    pub part: Part,
    pub round: RoundTally,
}

/// One variant's games in one round (or a part of it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    /// The variant's index in the study's config.
    pub variant: usize,
    /// Pairs by the first mover's points over the pair: 0, ½, 1, 1½, 2.
    pub penta: [u64; 5],
    /// The first mover's wins, draws and losses (games).
    pub wdl: [u64; 3],
    /// The plies of all games together.
    pub plies: u64,
    /// Games by length, in bins of [`PLIES_BIN`] plies: bin → games
    /// (written densely, `[first bin, its games, the next bin's, …]`).
    #[serde(with = "dense_bins")]
    pub plies_bins: BTreeMap<u32, u64>,
    /// How the games ended: termination → games.
    pub endings: BTreeMap<String, u64>,
    /// The pairs compared with the preset's on the same seeds, when the
    /// preset played this round too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vs_preset: Option<DiffTally>,
}

/// Pairs of a variant against its preset's pairs on the same seeds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffTally {
    /// Pairs by the difference of the first mover's mean score over the pair,
    /// variant minus preset: −1, −¾, …, +1 (index `4 + 4·d`).
    pub diff: [u64; 9],
    /// Games not played move for move as the preset's game on the same seed and seat.
    pub changed: u64,
}

impl Tally {
    fn pairs(&self) -> u64 {
        self.penta.iter().sum()
    }

    fn add(&mut self, other: &Tally) {
        for (a, b) in self.penta.iter_mut().zip(other.penta) {
            *a += b;
        }
        for (a, b) in self.wdl.iter_mut().zip(other.wdl) {
            *a += b;
        }
        self.plies += other.plies;
        for (k, v) in &other.plies_bins {
            *self.plies_bins.entry(*k).or_insert(0) += v;
        }
        for (k, v) in &other.endings {
            *self.endings.entry(k.clone()).or_insert(0) += v;
        }
        if let Some(o) = &other.vs_preset {
            let d = self.vs_preset.get_or_insert_with(DiffTally::default);
            for (a, b) in d.diff.iter_mut().zip(o.diff) {
                *a += b;
            }
            d.changed += o.changed;
        }
    }

    /// The tally of `results` (whole pairs: games 2j and 2j+1), compared with
    /// `preset`'s games of the same round and part when given.
    pub fn of_games(
        variant: usize,
        results: &[GameResult],
        preset: Option<&[GameResult]>,
    ) -> Result<Tally, ArenaError> {
        let mut t = Tally { variant, ..Tally::default() };
        let by_id: Option<BTreeMap<u64, &GameResult>> = preset.map(|p| p.iter().map(|g| (g.game_id, g)).collect());
        let mut diff = DiffTally::default();
        for pair in results.chunks(2) {
            let [a, b] = pair else {
                return Err(ArenaError::Data(format!("game {} has no partner: pairs are whole", pair[0].game_id)));
            };
            if a.game_id % 2 != 0 || b.game_id != a.game_id + 1 {
                return Err(ArenaError::Data(format!("games {} and {} are not a pair", a.game_id, b.game_id)));
            }
            t.penta[((a.seat1_score + b.seat1_score) * 2.0) as usize] += 1;
            for g in [a, b] {
                // Wins, draws, losses of the first mover.
                let outcome = if g.seat1_score == 1.0 {
                    0
                } else if g.seat1_score == 0.5 {
                    1
                } else {
                    2
                };
                t.wdl[outcome] += 1;
                t.plies += u64::from(g.plies);
                *t.plies_bins.entry(g.plies / PLIES_BIN).or_insert(0) += 1;
                *t.endings.entry(g.termination.clone()).or_insert(0) += 1;
            }
            if let Some(by_id) = &by_id {
                let (Some(pa), Some(pb)) = (by_id.get(&a.game_id), by_id.get(&b.game_id)) else {
                    return Err(ArenaError::Data(format!("the preset has no games {} and {}", a.game_id, b.game_id)));
                };
                // Pair points are quarters: the difference is a whole number of quarters.
                let d = (a.seat1_score + b.seat1_score) - (pa.seat1_score + pb.seat1_score);
                diff.diff[(4.0 + 2.0 * d).round() as usize] += 1;
                diff.changed += u64::from(a.fingerprint != pa.fingerprint) + u64::from(b.fingerprint != pb.fingerprint);
            }
        }
        if by_id.is_some() {
            t.vs_preset = Some(diff);
        }
        Ok(t)
    }
}

/// The variant that is the preset of variant `i`'s mode, when the study has it
/// and `i` is another variant.
pub fn preset_of(variants: &[Variant], i: usize) -> Option<usize> {
    let mode = variants[i].rules.mode;
    variants.iter().position(|r| r.rules == Rules::preset(mode)).filter(|&r| r != i)
}

impl RoundTally {
    /// The round's tally from each played variant's games (`results[k]`,
    /// `None` for a variant not played), each compared with its preset's
    /// games when the preset played too.
    pub fn of_games(config: &StudyConfig, results: &[Option<Vec<GameResult>>]) -> Result<RoundTally, ArenaError> {
        let mut variants = Vec::new();
        for (k, r) in results.iter().enumerate() {
            let Some(r) = r else { continue };
            let preset = preset_of(&config.variants, k).and_then(|p| results[p].as_deref());
            variants.push(Tally::of_games(k, r, preset)?);
        }
        Ok(RoundTally { code_version: junqi_selfplay::code_version(), variants })
    }

    fn played(&self) -> Vec<usize> {
        self.variants.iter().map(|t| t.variant).collect()
    }
}

/// A tallies file that cannot be used, and why (one line).
fn refuse(path: &Path, why: impl std::fmt::Display) -> ArenaError {
    ArenaError::Config(format!("{}: {why}", path.display()))
}

impl Tallies {
    /// A study not yet started.
    pub fn new(config: &StudyConfig) -> Tallies {
        let mut t = Tallies {
            format: TALLIES_FORMAT.into(),
            config: config.clone(),
            rounds: Vec::new(),
            part: None,
            finished: false,
        };
        t.finished = t.next_round().is_empty();
        t
    }

    /// Each variant's tally over every complete round.
    pub fn totals(&self) -> Vec<Option<Tally>> {
        let mut totals: Vec<Option<Tally>> = vec![None; self.config.variants.len()];
        for round in &self.rounds {
            for t in &round.variants {
                if let Some(slot) = totals.get_mut(t.variant) {
                    slot.get_or_insert_with(|| Tally { variant: t.variant, ..Tally::default() }).add(t);
                }
            }
        }
        totals
    }

    /// The variants the next round plays: those still short of the
    /// precision, below the cap (with no precision target: every variant
    /// in the first round, none after).
    pub fn next_round(&self) -> Vec<usize> {
        plan(&self.config, &self.totals(), self.rounds.len())
    }

    /// Append a complete round and update `finished`.
    pub fn push(&mut self, round: RoundTally) {
        self.rounds.push(round);
        self.finished = self.next_round().is_empty();
    }

    /// Read a tallies file, or `DIR/tallies.json` of a study directory.
    pub fn read(path: &Path) -> Result<(Tallies, PathBuf), ArenaError> {
        let file = if path.is_dir() { path.join(TALLIES_FILE) } else { path.to_path_buf() };
        if !file.is_file() {
            return Err(refuse(&file, "no such tallies file (a study's tallies.json, or the directory holding it)"));
        }
        let text = junqi_core::read_text(&file).map_err(ArenaError::io(&file))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| refuse(&file, format!("not a tallies file ({e})")))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(TALLIES_FORMAT) {
            return Err(refuse(
                &file,
                format!("not a tallies file of format {TALLIES_FORMAT} (format: {})", value["format"]),
            ));
        }
        let t: Tallies = serde_json::from_value(value)
            .map_err(|e| refuse(&file, format!("tallies this program cannot read ({e})")))?;
        t.check_plan().map_err(|why| refuse(&file, why))?;
        Ok((t, file))
    }

    /// The rounds follow the study's plan: each round played exactly the
    /// variants the rounds before it left short, all its games.
    fn check_plan(&self) -> Result<(), String> {
        self.config.check().map_err(|e| format!("a study config that cannot be played: {e}"))?;
        let mut so_far = Tallies { rounds: Vec::new(), part: None, ..self.clone() };
        let pairs = self.config.games / 2;
        let check_round = |so_far: &Tallies, r: usize, round: &RoundTally, whole: bool| -> Result<(), String> {
            let expected = so_far.next_round();
            if round.played() != expected {
                return Err(format!(
                    "round {r} tallies variants {:?}, but the rounds before it leave {:?} to play: damaged or edited tallies",
                    round.played(),
                    expected
                ));
            }
            for t in &round.variants {
                let n = t.pairs();
                let games = 2 * n;
                if (whole && n != pairs) || n > pairs {
                    return Err(format!("round {r}, variant {}: {n} pairs, a round has {pairs}", t.variant));
                }
                if t.wdl.iter().sum::<u64>() != games
                    || t.plies_bins.values().sum::<u64>() != games
                    || t.endings.values().sum::<u64>() != games
                {
                    return Err(format!(
                        "round {r}, variant {}: counts that do not add up to its {games} games",
                        t.variant
                    ));
                }
                let preset_played = preset_of(&self.config.variants, t.variant)
                    .is_some_and(|p| round.variants.iter().any(|o| o.variant == p));
                match &t.vs_preset {
                    Some(d) if !preset_played || d.diff.iter().sum::<u64>() != n || d.changed > games => {
                        return Err(format!("round {r}, variant {}: a bad comparison with the preset", t.variant))
                    }
                    None if preset_played => {
                        return Err(format!("round {r}, variant {}: no comparison with the preset", t.variant))
                    }
                    _ => {}
                }
            }
            Ok(())
        };
        for (r, round) in self.rounds.iter().enumerate() {
            check_round(&so_far, r, round, true)?;
            so_far.push(round.clone());
        }
        if let Some(p) = &self.part {
            check_round(&so_far, self.rounds.len(), &p.round, false)?;
        }
        let finished = so_far.next_round().is_empty();
        if self.finished != finished {
            return Err(format!(
                "`finished` is {}, but the rounds say {finished}: damaged or edited tallies",
                self.finished
            ));
        }
        Ok(())
    }

    /// Refuse tallies of another study (naming the first fields that differ)
    /// or, unless `allow_code_change`, played by another code version.
    pub fn check_same_study(
        &self,
        config: &StudyConfig,
        path: &Path,
        allow_code_change: bool,
    ) -> Result<(), ArenaError> {
        let (a, b) = (serde_json::to_value(&self.config), serde_json::to_value(config));
        if let (Ok(a), Ok(b)) = (a, b) {
            let diffs = junqi_selfplay::differences(&a, &b);
            if !diffs.is_empty() {
                let diffs: Vec<String> =
                    diffs.iter().take(3).map(|d| d.replace(" in the directory, ", " in the tallies, ")).collect();
                return Err(refuse(path, format!("tallies of another study config ({})", diffs.join("; "))));
            }
        }
        if !allow_code_change {
            let now = junqi_selfplay::code_version();
            let rounds =
                self.rounds.iter().map(|r| &r.code_version).chain(self.part.as_ref().map(|p| &p.round.code_version));
            if let Some((r, other)) = rounds.enumerate().find(|(_, v)| **v != now) {
                return Err(refuse(
                    path,
                    format!(
                        "code_version differs: round {r} was played by code version {other}, this is {now} (--allow-code-change continues anyway)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Notes for the report: the rounds played by another code version.
    pub fn code_notes(&self) -> Vec<String> {
        let now = junqi_selfplay::code_version();
        let mut by: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (r, round) in self.rounds.iter().enumerate() {
            if round.code_version != now {
                by.entry(&round.code_version).or_default().push((r + 1).to_string());
            }
        }
        by.into_iter()
            .map(|(v, rs)| {
                let s = if rs.len() == 1 { "" } else { "s" };
                format!("{TALLIES_FILE}: round{s} {} played by code version {v}", rs.join(", "))
            })
            .collect()
    }

    /// Refuse a part's tallies where a study's are needed.
    pub fn check_whole(&self, path: &Path) -> Result<(), ArenaError> {
        match &self.part {
            Some(p) => Err(refuse(
                path,
                format!(
                    "the tallies of part {} of a round; join the round's parts first (`junqi study merge`)",
                    p.part
                ),
            )),
            None => Ok(()),
        }
    }

    /// The tallies as text: the config readable, one line per variant and round.
    pub fn to_text(&self) -> String {
        let line = |t: &Tally| serde_json::to_string(t).expect("tallies serialise");
        let round = |r: &RoundTally, indent: &str| {
            let tallies: Vec<String> = r.variants.iter().map(|t| format!("{indent}    {}", line(t))).collect();
            format!(
                "{indent}{{\n{indent}  \"code_version\": {},\n{indent}  \"variants\": [\n{}\n{indent}  ]\n{indent}}}",
                serde_json::to_string(&r.code_version).expect("strings serialise"),
                tallies.join(",\n")
            )
        };
        let rounds: Vec<String> = self.rounds.iter().map(|r| round(r, "    ")).collect();
        // The config readable, each variant on one line.
        let mut config = serde_json::to_value(&self.config).expect("configs serialise");
        let variants: Vec<String> =
            self.config.variants.iter().map(|v| serde_json::to_string(v).expect("variants serialise")).collect();
        const MARK: &str = "\u{1}variants";
        config["variants"] = serde_json::Value::String(MARK.into());
        let config = serde_json::to_string_pretty(&config).expect("configs serialise").replace('\n', "\n  ").replace(
            &serde_json::to_string(MARK).expect("strings serialise"),
            &format!("[\n      {}\n    ]", variants.join(",\n      ")),
        );
        let mut s = format!(
            "{{\n  \"format\": {},\n  \"finished\": {},\n  \"config\": {config},\n  \"rounds\": [{}{}]",
            serde_json::to_string(&self.format).expect("strings serialise"),
            self.finished,
            if rounds.is_empty() { "" } else { "\n" },
            if rounds.is_empty() { String::new() } else { rounds.join(",\n") + "\n  " },
        );
        if let Some(p) = &self.part {
            s += &format!(
                ",\n  \"part\": {{\n    \"part\": {},\n    \"round\": {}\n  }}",
                serde_json::to_string(&p.part).expect("parts serialise"),
                round(&p.round, "    ").trim_start()
            );
        }
        s + "\n}\n"
    }

    /// Write the tallies whole into `path`.
    pub fn write(&self, path: &Path) -> Result<(), ArenaError> {
        crate::write_atomic(path, &self.to_text())
    }

    /// Each variant's line of the report, from the tallies alone (the
    /// study-wide columns filled by [`compare_tallies`]). A variant never
    /// played has no line: an error.
    pub fn lines(&self) -> Result<Vec<VariantLine>, ArenaError> {
        let totals = self.totals();
        let mut lines = Vec::new();
        for (v, t) in self.config.variants.iter().zip(&totals) {
            let t = t.as_ref().ok_or_else(|| ArenaError::Data(format!("variant {}: no games tallied", v.name)))?;
            lines.push(tally_line(v, t)?);
        }
        compare_tallies(&self.config.variants, &mut lines, &self.rounds)?;
        Ok(lines)
    }
}

/// Which variants round `round` plays, from each variant's tally over the rounds before.
fn plan(config: &StudyConfig, totals: &[Option<Tally>], round: usize) -> Vec<usize> {
    let Some(precision) = config.precision else {
        return if round == 0 { (0..config.variants.len()).collect() } else { Vec::new() };
    };
    let mut playing = Vec::new();
    for (k, t) in totals.iter().enumerate() {
        if let Some(t) = t {
            let games = 2 * t.pairs();
            let elo = pair_estimates(&Penta::new(t.penta)).elo;
            let half = (elo.high - elo.low) / 2.0;
            if half <= precision.elo || games + config.games > precision.max_games {
                continue;
            }
        }
        playing.push(k);
    }
    playing
}

/// The statistics of one variant from its tally: the same as
/// [`crate::study::variant_line`] of its games, but for the median game
/// length, interpolated within its bin of [`PLIES_BIN`] plies.
pub fn tally_line(v: &Variant, t: &Tally) -> Result<VariantLine, ArenaError> {
    let n = 2 * t.pairs();
    let summary = pair_estimates(&Penta::new(t.penta));
    let elo = summary.elo;
    Ok(VariantLine {
        variant: v.name.clone(),
        changes: changes(&v.rules),
        games: n,
        wins: Proportion::new(t.wdl[0], n)?,
        draws: Proportion::new(t.wdl[1], n)?,
        losses: Proportion::new(t.wdl[2], n)?,
        score: summary.score,
        elo,
        significant: elo.low > 0.0 || elo.high < 0.0,
        p_value: junqi_stats::p_value(&summary.score, 0.5),
        p_holm: 1.0,
        p_bh: 1.0,
        vs_preset: None,
        mean_plies: t.plies as f64 / n.max(1) as f64,
        median_plies: binned_median(&t.plies_bins, n),
        terminations: t.endings.clone(),
    })
}

/// The median of `n` values counted in bins of [`PLIES_BIN`], by linear
/// interpolation within the bin that holds it.
fn binned_median(bins: &BTreeMap<u32, u64>, n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let half = n as f64 / 2.0;
    let mut below = 0u64;
    for (&bin, &count) in bins {
        if (below + count) as f64 >= half {
            let within = (half - below as f64) / count as f64;
            return f64::from(bin * PLIES_BIN) + within * f64::from(PLIES_BIN);
        }
        below += count;
    }
    0.0
}

/// [`crate::study::compare`] from the tallies: the corrected p-values and
/// each variant's difference from its preset over the rounds both played.
pub fn compare_tallies(
    variants: &[Variant],
    lines: &mut [VariantLine],
    rounds: &[RoundTally],
) -> Result<(), ArenaError> {
    let mut diffs: Vec<Option<DiffTally>> = vec![None; variants.len()];
    for round in rounds {
        for t in &round.variants {
            if let Some(d) = &t.vs_preset {
                let sum = diffs[t.variant].get_or_insert_with(DiffTally::default);
                for (a, b) in sum.diff.iter_mut().zip(d.diff) {
                    *a += b;
                }
                sum.changed += d.changed;
            }
        }
    }
    crate::study::compare_with(variants, lines, |i, _| {
        let Some(d) = diffs[i].as_ref() else { return Ok(None) };
        let pairs: u64 = d.diff.iter().sum();
        if pairs < 2 {
            return Ok(None);
        }
        Ok(Some((diff_estimate(&d.diff)?, 2 * pairs, d.changed)))
    })
}

/// [`junqi_stats::paired_difference`] of pairs counted by their difference.
fn diff_estimate(diff: &[u64; 9]) -> Result<Estimate, ArenaError> {
    let value = |j: usize| (j as f64 - 4.0) / 4.0;
    let n: u64 = diff.iter().sum();
    let mean = diff.iter().enumerate().map(|(j, &c)| c as f64 * value(j)).sum::<f64>() / n as f64;
    let var = diff.iter().enumerate().map(|(j, &c)| c as f64 * (value(j) - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = junqi_stats::Z95 * (var / n as f64).sqrt();
    Ok(Estimate { value: mean, low: mean - half, high: mean + half })
}

/// Join the tallies of all `N` parts of one round: the same study, code
/// version and earlier rounds, parts `0..N` once each, and every pair of
/// the round once. Returns the tallies with the round appended.
pub fn merge_parts(parts: &[(Tallies, PathBuf)]) -> Result<Tallies, ArenaError> {
    let Some((first, first_path)) = parts.first() else {
        return Err(ArenaError::Config("no parts to merge".into()));
    };
    let part_of = |t: &Tallies, path: &Path| {
        t.part.clone().ok_or_else(|| refuse(path, "whole tallies, not a part's (made without --part)"))
    };
    let p0 = part_of(first, first_path)?;
    let count = p0.part.count;
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    let mut sum: Vec<Tally> =
        p0.round.variants.iter().map(|t| Tally { variant: t.variant, ..Tally::default() }).collect();
    for (t, path) in parts {
        let p = part_of(t, path)?;
        first.check_same_study(&t.config, path, true)?;
        if t.rounds != first.rounds {
            return Err(refuse(
                path,
                format!("other earlier rounds than {} (parts of one round only)", first_path.display()),
            ));
        }
        if p.round.code_version != p0.round.code_version {
            return Err(refuse(
                path,
                format!(
                    "code_version differs: {} here, {} in {}",
                    p.round.code_version,
                    p0.round.code_version,
                    first_path.display()
                ),
            ));
        }
        if p.part.count != count {
            return Err(refuse(path, format!("part {}, but {} is of {count} parts", p.part, first_path.display())));
        }
        if let Some(other) = seen.insert(p.part.index, path) {
            return Err(refuse(path, format!("part {} again (also {})", p.part, other.display())));
        }
        if p.round.played() != p0.round.played() {
            return Err(refuse(path, "other variants than the other parts: parts of one round only"));
        }
        for (s, t) in sum.iter_mut().zip(&p.round.variants) {
            s.add(t);
        }
    }
    let missing: Vec<String> = (0..count).filter(|i| !seen.contains_key(i)).map(|i| format!("{i}/{count}")).collect();
    if !missing.is_empty() {
        return Err(ArenaError::Config(format!("part(s) {} missing: all {count} are needed", missing.join(", "))));
    }
    // A variant whose preset played has a comparison in every part (maybe of no pairs).
    let mut merged = Tallies { part: None, ..first.clone() };
    merged.push(RoundTally { code_version: p0.round.code_version.clone(), variants: sum });
    merged.check_plan().map_err(|why| ArenaError::Config(format!("the merged parts: {why}")))?;
    Ok(merged)
}

/// A histogram as `[first bin, games in it, in the next, …]` (`[]` when
/// empty): a third of the size of a map from bins to games.
mod dense_bins {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    /// The widest histogram read (bins from the first to the last).
    const MAX_BINS: u64 = 1 << 20;

    pub fn serialize<S: Serializer>(bins: &BTreeMap<u32, u64>, s: S) -> Result<S::Ok, S::Error> {
        let (Some((&first, _)), Some((&last, _))) = (bins.first_key_value(), bins.last_key_value()) else {
            return s.collect_seq(std::iter::empty::<u64>());
        };
        let counts = (first..=last).map(|b| bins.get(&b).copied().unwrap_or(0));
        s.collect_seq(std::iter::once(u64::from(first)).chain(counts))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<u32, u64>, D::Error> {
        use serde::de::Error;
        let v: Vec<u64> = Vec::deserialize(d)?;
        let Some((&first, counts)) = v.split_first() else { return Ok(BTreeMap::new()) };
        if first + counts.len() as u64 > MAX_BINS {
            return Err(D::Error::custom(format!(
                "plies_bins: bins {first} to {} are too many",
                first + counts.len() as u64
            )));
        }
        Ok(counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| (first as u32 + i as u32, c)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binned_median_interpolates_within_its_bin() {
        // 10 games: 4 in 0..10, 6 in 20..30: the 5th value lies in the second bin.
        let bins = BTreeMap::from([(0, 4), (2, 6)]);
        assert!((binned_median(&bins, 10) - (20.0 + 10.0 / 6.0)).abs() < 1e-12);
        assert_eq!(binned_median(&BTreeMap::new(), 0), 0.0);
    }

    #[test]
    fn bins_are_written_densely_and_read_back() {
        let t = Tally { plies_bins: BTreeMap::from([(7, 2), (9, 1), (10, 4)]), ..Tally::default() };
        let text = serde_json::to_string(&t).unwrap();
        assert!(text.contains("\"plies_bins\":[7,2,0,1,4]"), "{text}");
        assert_eq!(serde_json::from_str::<Tally>(&text).unwrap(), t);
        let empty = Tally::default();
        assert_eq!(serde_json::from_str::<Tally>(&serde_json::to_string(&empty).unwrap()).unwrap(), empty);
        assert!(serde_json::from_str::<Tally>(&text.replace("[7,2,", "[4294967295,2,")).is_err());
    }

    #[test]
    fn counted_differences_give_the_paired_difference() {
        let x = [1.0, 0.5, 0.75, 0.0, 1.0, 0.25];
        let y = [0.5, 0.5, 1.0, 0.25, 0.0, 0.25];
        let mut diff = [0u64; 9];
        for (a, b) in x.iter().zip(&y) {
            diff[(4.0 + 4.0 * (a - b)) as usize] += 1;
        }
        let e = diff_estimate(&diff).unwrap();
        let f = junqi_stats::paired_difference(&x, &y).unwrap();
        for (a, b) in [(e.value, f.value), (e.low, f.low), (e.high, f.high)] {
            assert!((a - b).abs() < 1e-12, "{e:?} vs {f:?}");
        }
    }
}
