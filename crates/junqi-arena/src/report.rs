//! An arena's results: crosstable, Bradley–Terry Elo, per-matchup pentanomial
//! statistics, bot speed; as JSON and Markdown.

use crate::arena::{ArenaConfig, MatchupGames};
use crate::matchup::pair_scores;
use crate::ArenaError;
use junqi_bots::BotSpec;
use junqi_stats::{fit_bradley_terry, pair_estimates, BtOptions, Estimate, Game, Penta};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One bot's line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BotLine {
    pub bot: String,
    /// Reads hidden information (a reference, not a fair player).
    pub cheats: bool,
    pub elo: Estimate,
    /// Standard error of the Elo.
    pub stderr: f64,
    pub games: u64,
    /// Points (a draw is half) per game.
    pub score: f64,
    /// Decisions per second of thinking, over the games played by this call (None if none were).
    pub moves_per_s: Option<f64>,
}

/// One cell of the crosstable: the row bot against the column bot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Cell {
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }
}

/// One step of the ladder: a bot's Elo lead over the next weaker bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderStep {
    pub stronger: String,
    pub weaker: String,
    pub lead: Estimate,
}

/// One matchup's paired statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchupLine {
    pub bots: [String; 2],
    pub games: u64,
    /// The first bot's points per game.
    pub score: f64,
    /// Pair counts scoring 0, ½, 1, 1½, 2 for the first bot.
    pub penta: [u64; 5],
    /// The first bot's Elo advantage from the pair statistics.
    pub elo: Estimate,
    /// How the games ended: termination (`flag_captured`, `timeouts`, …) → games.
    #[serde(default)]
    pub endings: std::collections::BTreeMap<String, u64>,
}

/// Everything an arena found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaReport {
    pub config: ArenaConfig,
    pub code_version: String,
    /// The bot whose Elo is fixed at 0.
    pub anchor: String,
    /// In the order of the config's bots.
    pub bots: Vec<BotLine>,
    /// Elo of moving first.
    pub first_mover: Estimate,
    /// Virtual draws added because some score was perfect (0 = plain maximum likelihood).
    pub prior_draws: f64,
    /// `crosstable[i][j]`: bot i against bot j (None where they did not meet).
    pub crosstable: Vec<Vec<Option<Cell>>>,
    pub matchups: Vec<MatchupLine>,
    /// Bots from strongest to weakest, each with its Elo lead over the next
    /// (from the same fit, so the interval uses the covariance of the two).
    #[serde(default)]
    pub ladder: Vec<LadderStep>,
    /// Things found while resuming (e.g. games written by another code version).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl ArenaReport {
    /// Fit and tabulate the games of every matchup.
    pub fn new(config: &ArenaConfig, games: &[MatchupGames]) -> Result<ArenaReport, ArenaError> {
        let n = config.bots.len();
        let anchor = config.bots.iter().position(|b| *b == BotSpec::new("random")).unwrap_or(0);
        let mut bt_games = Vec::new();
        let mut crosstable = vec![vec![None; n]; n];
        let mut matchups = Vec::new();
        let (mut decisions, mut think) = (vec![0u64; n], vec![0f64; n]);
        for m in games {
            let (a, b) = m.bots;
            let mut cell = Cell::default();
            let mut endings = std::collections::BTreeMap::new();
            for r in &m.results {
                *endings.entry(r.termination.clone()).or_insert(0) += 1;
                let (first, second) = if r.seat1 == 0 { (a, b) } else { (b, a) };
                bt_games.push(Game { first, second, score: r.seat1_score });
                cell.games += 1;
                match r.score_of(0) {
                    s if s == 1.0 => cell.wins += 1,
                    s if s == 0.0 => cell.losses += 1,
                    _ => cell.draws += 1,
                }
            }
            crosstable[a][b] = Some(cell);
            crosstable[b][a] = Some(Cell { wins: cell.losses, losses: cell.wins, ..cell });
            let penta = Penta::from_pairs(pair_scores(&m.results, 0))?;
            let summary = pair_estimates(&penta);
            matchups.push(MatchupLine {
                bots: [config.bots[a].to_string(), config.bots[b].to_string()],
                games: cell.games,
                score: cell.score(),
                penta: penta.counts,
                elo: summary.elo,
                endings,
            });
            for (player, bot) in [(0, a), (1, b)] {
                decisions[bot] = u64::saturating_add(decisions[bot], m.thinking.decisions[player]);
                think[bot] += m.thinking.secs[player];
            }
        }
        let fit = fit_bradley_terry(n, &bt_games, anchor, &BtOptions::default())?;
        let bots = config
            .bots
            .iter()
            .enumerate()
            .map(|(i, bot)| {
                let cells: Vec<Cell> = crosstable[i].iter().flatten().copied().collect();
                let games: u64 = cells.iter().map(|c| c.games).sum();
                let points: f64 = cells.iter().map(|c| c.wins as f64 + 0.5 * c.draws as f64).sum();
                Ok(BotLine {
                    bot: bot.to_string(),
                    cheats: bot.cheats(),
                    elo: fit.ratings[i].estimate(),
                    stderr: fit.ratings[i].stderr,
                    games,
                    score: points / games.max(1) as f64,
                    moves_per_s: (think[i] > 0.0).then(|| decisions[i] as f64 / think[i]),
                })
            })
            .collect::<Result<Vec<_>, ArenaError>>()?;
        let first_mover =
            fit.first_move.as_ref().map(junqi_stats::Rating::estimate).expect("fitted with a first-mover term");
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| fit.ratings[b].elo.total_cmp(&fit.ratings[a].elo));
        let ladder = order
            .windows(2)
            .map(|w| {
                Ok(LadderStep {
                    stronger: config.bots[w[0]].to_string(),
                    weaker: config.bots[w[1]].to_string(),
                    lead: fit.difference(w[0], w[1])?.estimate(),
                })
            })
            .collect::<Result<Vec<_>, ArenaError>>()?;
        Ok(ArenaReport {
            config: config.clone(),
            code_version: junqi_selfplay::code_version(),
            anchor: config.bots[anchor].to_string(),
            bots,
            first_mover,
            prior_draws: if fit.prior_used() { fit.prior_draws } else { 0.0 },
            crosstable,
            matchups,
            ladder,
            notes: Vec::new(),
        })
    }

    /// A bot's name as tables show it: cheating bots are marked.
    pub fn display_name(&self, i: usize) -> String {
        let b = &self.bots[i];
        if b.cheats {
            format!("{} (cheats: sees hidden pieces)", b.bot)
        } else {
            b.bot.clone()
        }
    }

    /// A bot's name in the crosstable and matchup lists: cheating bots carry a `†`.
    fn short_name(&self, bot: &str) -> String {
        match self.bots.iter().find(|b| b.bot == bot) {
            Some(b) if b.cheats => format!("{bot} †"),
            _ => bot.to_string(),
        }
    }

    /// The report as Markdown: Elo table (strongest first), crosstable, matchups.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let c = &self.config;
        let changes = crate::study::changes(&c.rules);
        let _ = writeln!(
            s,
            "Arena: {} ({}), {} games per pair (paired seeds, seats swapped), seed {}, code {}\n",
            c.rules.mode.name(),
            if changes.is_empty() { "preset rules".to_string() } else { changes.join(", ") },
            c.games_per_pair,
            c.seed,
            self.code_version
        );
        let _ = writeln!(s, "| rank | bot | Elo [95% CI] | games | score | moves/s |");
        let _ = writeln!(s, "|---:|---|---|---:|---:|---:|");
        let mut order: Vec<usize> = (0..self.bots.len()).collect();
        order.sort_by(|&a, &b| self.bots[b].elo.value.total_cmp(&self.bots[a].elo.value));
        for (rank, &i) in order.iter().enumerate() {
            let b = &self.bots[i];
            let speed = b.moves_per_s.map_or("–".to_string(), |v| format!("{v:.0}"));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.1}% | {speed} |",
                rank + 1,
                self.display_name(i),
                b.elo.show(),
                b.games,
                100.0 * b.score
            );
        }
        let _ = writeln!(
            s,
            "\nElo: maximum-likelihood Bradley–Terry over all games (draws count half) with a first-mover term; `{}` anchored at 0. First mover: {} Elo.{}\n",
            self.anchor,
            self.first_mover.show(),
            if self.prior_draws > 0.0 {
                format!(" A perfect score made the plain fit diverge: {} virtual draw(s) per pair that met were added.", self.prior_draws)
            } else {
                String::new()
            }
        );
        let steps: Vec<String> = self
            .ladder
            .iter()
            .map(|l| format!("{} over {}: {}", self.short_name(&l.stronger), self.short_name(&l.weaker), l.lead.show()))
            .collect();
        let _ = writeln!(s, "Lead of each bot over the next: {}.\n", steps.join("; "));
        let _ = write!(s, "| row vs column |");
        for b in &self.bots {
            let _ = write!(s, " {} |", self.short_name(&b.bot));
        }
        let _ = write!(s, "\n|---|");
        for _ in &self.bots {
            let _ = write!(s, "---:|");
        }
        let _ = writeln!(s);
        for (i, row) in self.crosstable.iter().enumerate() {
            let _ = write!(s, "| {} |", self.short_name(&self.bots[i].bot));
            for cell in row {
                match cell {
                    Some(c) => {
                        let _ = write!(s, " {:.0}% ({}-{}-{}) |", 100.0 * c.score(), c.wins, c.draws, c.losses);
                    }
                    None => {
                        let _ = write!(s, " |");
                    }
                }
            }
            let _ = writeln!(s);
        }
        let legend = if self.bots.iter().any(|b| b.cheats) {
            " †: reads hidden information (a reference, not a fair player)."
        } else {
            ""
        };
        let _ = writeln!(s, "\nCells: the row bot's score (wins-draws-losses).{legend}\n");
        let _ = writeln!(s, "| matchup | games | score | pentanomial (0, ½, 1, 1½, 2) | Elo from pairs [95% CI] |");
        let _ = writeln!(s, "|---|---:|---:|---|---|");
        for m in &self.matchups {
            let p = m.penta;
            let _ = writeln!(
                s,
                "| {} vs {} | {} | {:.1}% | {} {} {} {} {} | {} |",
                self.short_name(&m.bots[0]),
                self.short_name(&m.bots[1]),
                m.games,
                100.0 * m.score,
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                m.elo.show()
            );
        }
        let _ = writeln!(s, "\nEndings (termination: games):\n");
        for m in &self.matchups {
            let endings: Vec<String> = m.endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let (a, b) = (self.short_name(&m.bots[0]), self.short_name(&m.bots[1]));
            let _ = writeln!(s, "* {a} vs {b}: {}", endings.join(", "));
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\nNotes:\n");
            for n in &self.notes {
                let _ = writeln!(s, "* {n}");
            }
        }
        s
    }
}
