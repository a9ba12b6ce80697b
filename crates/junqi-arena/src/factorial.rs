//! Factorial designs for the first-move study: several rule options varied
//! together over a base variant, every combination of their levels (or, for
//! two-level factors, the half fraction `I = AB…K`) played as one variant of
//! the study, and a logistic regression of the first mover's score on the
//! effect-coded factors with all main effects and two-way interactions.
//!
//! The model: game `i`, played in cell `c`, has expected first-mover score
//! `logistic(xᶜ·β)`, its score `y ∈ {0, ½, 1}` (a draw is half a point:
//! quasi-binomial, see [`junqi_stats::logistic`]). `xᶜ` holds 1 (the
//! intercept), per factor with `L` levels `L − 1` sum-to-zero columns (the
//! column of level `j ≥ 2` is +1 at that level, −1 at the factor's first
//! level, 0 elsewhere), and the products of two factors' columns. The
//! standard errors are cluster-robust over seeds: the games of one seed (its
//! two games, seats swapped, in every cell) form a cluster, so the pairing and
//! the common random numbers across cells are counted.

use crate::matchup::GameResult;
use crate::study::Variant;
use crate::ArenaError;
use junqi_core::Rules;
use junqi_stats::Estimate;
use junqi_stats::{fit_logistic, holm_adjusted, LogisticData, LogisticOptions, VarianceKind, ELO_PER_NAT};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The most cells a design may have.
pub const MAX_CELLS: usize = 256;

/// One factor: a rule option and the values it takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Factor {
    pub option: String,
    pub levels: Vec<String>,
}

impl Factor {
    /// `OPTION=v1,v2[,v3…]`.
    pub fn parse(spec: &str) -> Result<Factor, ArenaError> {
        let bad = |why: &str| ArenaError::Config(format!("--factor {spec}: {why}"));
        let (option, values) = spec.split_once('=').ok_or_else(|| bad("expected OPTION=v1,v2[,...]"))?;
        let option = option.trim();
        if option.is_empty() {
            return Err(bad("expected OPTION=v1,v2[,...]"));
        }
        let levels: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if levels.iter().any(String::is_empty) {
            return Err(bad("a level is empty"));
        }
        if levels.len() < 2 {
            return Err(bad("a factor needs at least two levels"));
        }
        Ok(Factor { option: option.to_string(), levels })
    }
}

/// A factorial design over a base variant: the study's variants are its
/// cells, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Factorial {
    /// The base variant's name (its rules are the cells' starting point).
    pub base: String,
    pub factors: Vec<Factor>,
    /// The half fraction `I = AB…K` of a design of two-level factors.
    #[serde(default)]
    pub half: bool,
    /// Per cell (= study variant), each factor's level index.
    pub cells: Vec<Vec<usize>>,
}

/// The design's cells as study variants: every combination of the levels (the
/// last factor changing fastest), or with `half` those whose effect codes
/// multiply to +1. Each level is applied to the base's rules with the same
/// checks as `--set` (unknown option, option not applying to the mode, bad value).
pub fn design(base: &Variant, factors: Vec<Factor>, half: bool) -> Result<(Factorial, Vec<Variant>), ArenaError> {
    if factors.is_empty() {
        return Err(ArenaError::Config("a factorial design needs at least one --factor".into()));
    }
    for (i, f) in factors.iter().enumerate() {
        if factors[..i].iter().any(|g| g.option == f.option) {
            return Err(ArenaError::Config(format!("--factor {}: the option is given twice", f.option)));
        }
        if f.levels.len() < 2 {
            return Err(ArenaError::Config(format!("--factor {}: a factor needs at least two levels", f.option)));
        }
        // Each level must be a value the option takes in this mode, and the levels must differ.
        let mut seen: Vec<(Rules, &str)> = Vec::new();
        for level in &f.levels {
            let mut r = base.rules;
            r.apply_override(&format!("{}={level}", f.option))
                .map_err(|e| ArenaError::Config(format!("--factor {}={}: {e}", f.option, f.levels.join(","))))?;
            if let Some((_, other)) = seen.iter().find(|(s, _)| *s == r) {
                return Err(ArenaError::Config(format!(
                    "--factor {}: levels `{other}` and `{level}` are the same rules",
                    f.option
                )));
            }
            seen.push((r, level));
        }
    }
    let total: usize = factors.iter().try_fold(1usize, |n, f| n.checked_mul(f.levels.len())).unwrap_or(usize::MAX);
    if half && (factors.len() < 3 || factors.iter().any(|f| f.levels.len() != 2)) {
        return Err(ArenaError::Config("--fraction half needs at least three factors, each with two levels".into()));
    }
    let cells_wanted = if half { total / 2 } else { total };
    if cells_wanted > MAX_CELLS {
        return Err(ArenaError::Config(format!(
            "the design has {cells_wanted} cells; at most {MAX_CELLS} are allowed"
        )));
    }
    let mut cells = Vec::new();
    for mut n in 0..total {
        // Mixed radix, the last factor changing fastest.
        let mut index = vec![0usize; factors.len()];
        for (k, f) in factors.iter().enumerate().rev() {
            index[k] = n % f.levels.len();
            n /= f.levels.len();
        }
        // Effect codes of two levels: −1 for the first, +1 for the second.
        let word: i32 = index.iter().map(|&l| if l == 0 { -1 } else { 1 }).product();
        if !half || word == 1 {
            cells.push(index);
        }
    }
    let mut variants = Vec::new();
    for cell in &cells {
        let mut rules = base.rules;
        let mut sets = Vec::new();
        for (f, &l) in factors.iter().zip(cell) {
            let set = format!("{}={}", f.option, f.levels[l]);
            rules.apply_override(&set).map_err(|e| ArenaError::Config(format!("--factor {set}: {e}")))?;
            sets.push(set);
        }
        let sep = if base.name.contains(':') { "," } else { ":" };
        variants.push(Variant { name: format!("{}{sep}{}", base.name, sets.join(",")), rules });
    }
    Ok((Factorial { base: base.name.clone(), factors, half, cells }, variants))
}

impl Factorial {
    /// `2×3 full factorial` or `half fraction 2^(4−1), I = ABCD (resolution IV)`.
    pub fn describe(&self) -> String {
        let letters: String = (0..self.factors.len()).map(letter).collect();
        let names: Vec<String> =
            self.factors.iter().enumerate().map(|(i, f)| format!("{} = `{}`", letter(i), f.option)).collect();
        let k = self.factors.len();
        let shape = if self.half {
            format!(
                "2^({k}−1) half fraction ({} cells), I = {letters} (resolution {}: a term is aliased with the product of the other factors)",
                self.cells.len(),
                roman(k)
            )
        } else {
            let dims: Vec<String> = self.factors.iter().map(|f| f.levels.len().to_string()).collect();
            format!("{} full factorial ({} cells)", dims.join("×"), self.cells.len())
        };
        format!("{shape} over `{}`; {}", self.base, names.join(", "))
    }

    /// The model's terms: `(name, aliases, columns)`, the intercept first, where
    /// `columns[c]` is the term's value in cell `c`.
    fn terms(&self) -> Vec<(String, Vec<String>, Vec<f64>)> {
        // Per factor: its sum-to-zero columns, each named and with one value per level.
        let coded: Vec<Vec<(String, Vec<f64>)>> = self
            .factors
            .iter()
            .map(|f| {
                (1..f.levels.len())
                    .map(|j| {
                        let values = (0..f.levels.len())
                            .map(|l| {
                                if l == j {
                                    1.0
                                } else if l == 0 {
                                    -1.0
                                } else {
                                    0.0
                                }
                            })
                            .collect();
                        (format!("{}={}", f.option, f.levels[j]), values)
                    })
                    .collect()
            })
            .collect();
        let cell_value = |factor: usize, column: usize| -> Vec<f64> {
            self.cells.iter().map(|c| coded[factor][column].1[c[factor]]).collect()
        };
        // (factor set, name, column) for every candidate term.
        let mut candidates: Vec<(Vec<usize>, String, Vec<f64>)> = Vec::new();
        for (a, cols) in coded.iter().enumerate() {
            for (j, (name, _)) in cols.iter().enumerate() {
                candidates.push((vec![a], name.clone(), cell_value(a, j)));
            }
        }
        for a in 0..coded.len() {
            for b in a + 1..coded.len() {
                for (i, (na, _)) in coded[a].iter().enumerate() {
                    for (j, (nb, _)) in coded[b].iter().enumerate() {
                        let (u, v) = (cell_value(a, i), cell_value(b, j));
                        let col = u.iter().zip(&v).map(|(x, y)| x * y).collect();
                        candidates.push((vec![a, b], format!("{na} × {nb}"), col));
                    }
                }
            }
        }
        // Each kept term: its factors, then (name, aliases, column).
        type Kept = (Vec<usize>, (String, Vec<String>, Vec<f64>));
        let intercept = ("intercept (mean first-mover advantage)".to_string(), Vec::new(), vec![1.0; self.cells.len()]);
        let mut terms: Vec<Kept> = vec![(Vec::new(), intercept)];
        for (set, name, col) in candidates {
            // In the half fraction I = AB…K, a term is aliased with the
            // complement of its factors: keep the first of the two.
            if self.half {
                let complement: Vec<usize> = (0..self.factors.len()).filter(|f| !set.contains(f)).collect();
                if let Some(t) = terms.iter_mut().find(|t| t.0 == complement) {
                    t.1 .1.push(name);
                    continue;
                }
            }
            terms.push((set, (name, Vec::new(), col)));
        }
        terms.into_iter().map(|(_, t)| t).collect()
    }
}

fn letter(i: usize) -> char {
    char::from(b'A' + (i % 26) as u8)
}

fn roman(k: usize) -> String {
    match k {
        3 => "III".into(),
        4 => "IV".into(),
        5 => "V".into(),
        6 => "VI".into(),
        7 => "VII".into(),
        8 => "VIII".into(),
        k => k.to_string(),
    }
}

/// One term of the effects table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EffectLine {
    pub term: String,
    /// Terms the half fraction cannot tell from this one (their sum is estimated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The coefficient on the logit scale with its standard error.
    pub logit: f64,
    pub std_error: f64,
    /// The coefficient in Elo (logit × 400/ln 10), Wald 95% interval.
    pub elo: Estimate,
    pub p_value: f64,
    /// Holm–Bonferroni over the table's terms except the intercept (None for the intercept).
    pub p_holm: Option<f64>,
}

/// The fitted factorial effects, or why they could not be fitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FactorialEffects {
    pub design: String,
    pub games: u64,
    /// Seeds (clusters of the robust standard errors).
    pub clusters: usize,
    /// The Pearson dispersion of the scores (below 1 with draws); none
    /// when the fit failed.
    #[serde(default)]
    pub dispersion: Option<f64>,
    pub lines: Vec<EffectLine>,
    /// Set when the fit failed (separation, too few games); `lines` is then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Fit the effects to `results[c]`, the games of cell `c` in game-id order
/// (pairs: games `2j` and `2j + 1` share a seed, and pair `j` of every cell
/// was played on the same seed).
pub fn fit_effects(f: &Factorial, results: &[Vec<GameResult>]) -> FactorialEffects {
    let terms = f.terms();
    let p = terms.len();
    let (mut x, mut y, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    for (c, games) in results.iter().enumerate().take(f.cells.len()) {
        for (i, g) in games.iter().enumerate() {
            x.extend(terms.iter().map(|t| t.2[c]));
            y.push(g.seat1_score);
            ids.push(i as u64 / 2);
        }
    }
    let mut out = FactorialEffects {
        design: f.describe(),
        games: y.len() as u64,
        clusters: 0,
        dispersion: None,
        lines: Vec::new(),
        error: None,
    };
    let data = LogisticData { x: &x, columns: p, y: &y, weights: None, clusters: Some(&ids) };
    let fit = match fit_logistic(&data, &LogisticOptions::default()) {
        Ok(fit) => fit,
        Err(e) => {
            out.error = Some(e.to_string());
            return out;
        }
    };
    if let VarianceKind::ClusterRobust { clusters } = fit.variance {
        out.clusters = clusters;
    }
    out.dispersion = Some(fit.dispersion);
    // A term that changes no game at all (e.g. an option the bot's games never
    // reach) fits as zero with a zero standard error, both up to rounding: no
    // evidence of anything, p = 1.
    let p_of = |c: &junqi_stats::Coefficient| {
        if c.value.abs() < 1e-9 && c.std_error < 1e-9 {
            1.0
        } else {
            c.p_value
        }
    };
    let raw: Vec<f64> = fit.coefficients[1..].iter().map(p_of).collect();
    let holm = holm_adjusted(&raw).unwrap_or_else(|_| vec![1.0; raw.len()]);
    for (k, ((name, aliases, _), c)) in terms.into_iter().zip(&fit.coefficients).enumerate() {
        out.lines.push(EffectLine {
            term: name,
            aliases,
            logit: c.value,
            std_error: c.std_error,
            elo: Estimate {
                value: c.value * ELO_PER_NAT,
                low: c.interval.low * ELO_PER_NAT,
                high: c.interval.high * ELO_PER_NAT,
            },
            p_value: p_of(c),
            p_holm: (k > 0).then(|| holm[k - 1]),
        });
    }
    out
}

fn show_p(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// The "Factorial effects" section of the study's Markdown.
pub fn effects_markdown(e: &FactorialEffects) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n## Factorial effects\n");
    let _ = writeln!(s, "Design: {}; {} games.\n", e.design, e.games);
    if let Some(err) = &e.error {
        let _ = writeln!(s, "The effects could not be fitted: {err}. Play more games per cell.");
        return s;
    }
    let _ = writeln!(s, "| term | estimate, Elo [95% CI] | logit (se) | p | Holm p |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for l in &e.lines {
        let term = if l.aliases.is_empty() {
            l.term.clone()
        } else {
            format!("{} (aliased with {})", l.term, l.aliases.join(", "))
        };
        let _ = writeln!(
            s,
            "| {term} | {} | {:+.4} ({:.4}) | {} | {} |",
            l.elo.show(),
            l.logit,
            l.std_error,
            show_p(l.p_value),
            l.p_holm.map_or("—".into(), show_p)
        );
    }
    let _ = writeln!(
        s,
        "\nLogistic regression of the first mover's score (win 1, draw ½, loss 0: quasi-binomial, a draw is half a win) on effect-coded factors with all main effects and two-way interactions, fitted by Newton/IRLS. A term `option=level` is +1 at that level, −1 at the factor's first level and 0 at its other levels, so its estimate is how far that level moves the first mover's advantage from the average over the factor's levels; for a two-level factor, going from the first to the second level changes the first-mover Elo by twice the estimate. An interaction `a × b` is the product of the two columns. The intercept is the first mover's advantage averaged over the cells. Elo = logit × 400/ln 10 (≈ 173.7). Standard errors are cluster-robust over the {} seeds (one seed's games in every cell form a cluster, so the paired seats and the common seeds are counted); intervals (95%) and p-values use Student's t with one degree of freedom fewer than there are seeds; Holm corrects the p-values over the table's terms other than the intercept. Score dispersion {:.2} (1 without draws).",
        e.clusters,
        e.dispersion.unwrap_or(f64::NAN)
    );
    if e.clusters < 5 * e.lines.len() {
        let _ = writeln!(
            s,
            "\nOnly {} seeds for {} terms: the cluster-robust standard errors need many more seeds than terms, so treat these intervals as rough.",
            e.clusters,
            e.lines.len()
        );
    }
    s
}

/// The effects as CSV, one row per term.
pub fn effects_csv(e: &FactorialEffects) -> String {
    let mut s = String::from("term,aliases,elo,elo_low,elo_high,logit,logit_se,p_value,p_holm\n");
    for l in &e.lines {
        let _ = writeln!(
            s,
            "{},{},{:.2},{:.2},{:.2},{:.6},{:.6},{:.6},{}",
            crate::csv_field(&l.term),
            crate::csv_field(&l.aliases.join("; ")),
            l.elo.value,
            l.elo.low,
            l.elo.high,
            l.logit,
            l.std_error,
            l.p_value,
            l.p_holm.map_or(String::new(), |p| format!("{p:.6}"))
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::Mode;

    fn base() -> Variant {
        Variant { name: "fanqi".into(), rules: Rules::preset(Mode::Fanqi) }
    }

    fn f(spec: &str) -> Factor {
        Factor::parse(spec).unwrap()
    }

    #[test]
    fn full_and_half_designs_have_the_right_cells_and_terms() {
        let (d, v) = design(&base(), vec![f("attack_hidden=false,true"), f("mine_rule=spring,trade")], false).unwrap();
        assert_eq!(d.cells, vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
        assert_eq!(v[3].name, "fanqi:attack_hidden=true,mine_rule=trade");
        assert!(v[3].rules.attack_hidden);
        let names: Vec<String> = d.terms().into_iter().map(|t| t.0).collect();
        assert_eq!(names.len(), 4);
        assert_eq!(names[3], "attack_hidden=true × mine_rule=trade");
        // 2×3: 1 + 1 + 2 + 2 columns.
        let (d, v) = design(&base(), vec![f("hq_locked=false,true"), f("no_progress_plies=40,70,140")], false).unwrap();
        assert_eq!((v.len(), d.terms().len()), (6, 6));
        // Half of 2^4: 8 cells, mains clear, two-way interactions aliased in pairs.
        let four = vec![
            f("attack_hidden=false,true"),
            f("mine_rule=spring,trade"),
            f("hq_locked=false,true"),
            f("bomb_flies=false,true"),
        ];
        let (d, v) = design(&base(), four, true).unwrap();
        assert_eq!(v.len(), 8);
        let terms = d.terms();
        assert_eq!(terms.len(), 1 + 4 + 3);
        assert_eq!(terms[5].1, vec!["hq_locked=true × bomb_flies=true".to_string()]);
        assert!(d.describe().contains("resolution IV"), "{}", d.describe());
        // Every kept column is orthogonal to the others over the fraction.
        for a in 0..terms.len() {
            for b in 0..a {
                let dot: f64 = terms[a].2.iter().zip(&terms[b].2).map(|(x, y)| x * y).sum();
                assert_eq!(dot, 0.0, "{} · {}", terms[a].0, terms[b].0);
            }
        }
    }

    #[test]
    fn bad_factors_are_one_line_errors() {
        for (factors, half, want) in [
            (vec!["nonsense"], false, "expected OPTION=v1,v2"),
            (vec!["attack_hidden=true"], false, "at least two levels"),
            (vec!["mine_rule=spring,boom"], false, "boom"),
            (vec!["no_such=1,2"], false, "unknown rule option"),
            (vec!["first_player=red,black"], false, "does not apply"),
            (vec!["attack_hidden=false,true", "attack_hidden=true,false"], false, "given twice"),
            (vec!["max_plies=500,500"], false, "the same rules"),
            (vec!["attack_hidden=false,true", "mine_rule=spring,trade"], true, "at least three factors"),
        ] {
            let r = factors
                .iter()
                .map(|s| Factor::parse(s))
                .collect::<Result<Vec<_>, _>>()
                .and_then(|fs| design(&base(), fs, half));
            let e = r.err().unwrap_or_else(|| panic!("{factors:?} accepted")).to_string();
            assert!(e.contains(want) && !e.contains('\n'), "{factors:?}: {e}");
        }
    }

    /// Games simulated from known effects come back out of the fit.
    #[test]
    fn simulated_games_recover_the_effects() {
        let (d, _) = design(&base(), vec![f("attack_hidden=false,true"), f("mine_rule=spring,trade")], false).unwrap();
        let truth = [0.1, -0.3, 0.2, 0.15];
        let terms = d.terms();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut uniform = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let results: Vec<Vec<GameResult>> = (0..4)
            .map(|c| {
                let eta: f64 = terms.iter().zip(truth).map(|(t, b)| t.2[c] * b).sum();
                let s = 1.0 / (1.0 + (-eta).exp());
                (0..6000)
                    .map(|i| {
                        let u = uniform();
                        let score = if u < s - 0.1 {
                            1.0
                        } else if u < s + 0.1 {
                            0.5
                        } else {
                            0.0
                        };
                        GameResult {
                            game_id: i,
                            seat1: (i % 2) as usize,
                            seat1_score: score,
                            plies: 10,
                            termination: "x".into(),
                            fingerprint: i,
                        }
                    })
                    .collect()
            })
            .collect();
        let e = fit_effects(&d, &results);
        assert!(e.error.is_none(), "{e:?}");
        assert_eq!((e.games, e.clusters), (24_000, 3000));
        for (l, t) in e.lines.iter().zip(truth) {
            eprintln!("{}: true {t:+.4}, fitted {:+.4} ± {:.4}", l.term, l.logit, l.std_error);
            // Within 3.3 standard errors (a 0.1% miss chance per term).
            assert!((l.logit - t).abs() < 3.3 * l.std_error, "{l:?} vs {t}");
        }
        assert!(effects_markdown(&e).contains("| mine_rule=trade |"));
        assert_eq!(effects_csv(&e).lines().count(), 5);
    }
}
