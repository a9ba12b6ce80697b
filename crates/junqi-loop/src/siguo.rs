//! The four-player (四国) loop (`game = "siguo"`): the same generations as
//! the two-player loop, with four-player self-play (two teams of the same
//! bot, `junqi_selfplay::run_siguo`), the same training (the trainer tells
//! four-player samples by their format), learned deployments fitted to
//! every army of the window's games, and four-player paired games for the
//! gate and the anchors (each deal played twice, the teams' seats swapped).
//!
//! Its bots are four-player specs: self-play searches with Gumbel at the
//! root (`mcts:sims=N,search=gumbel,k=K,eval=net:path=FILE`; the Gumbel
//! draw explores, the improved policy is the target), evaluations without
//! the draw (`gscale=0`), or the plain policy with `evaluate.sims = 0`.

use crate::config::LoopConfig;
use crate::evaluate::{arena_error, eval_seed, gate_record};
use crate::stages::{gen_dir, reset, selfplay_seed, Stages};
use crate::state::{Generation, LoopState, StateFile};
use crate::{LoopError, Result};
use junqi_arena::siguo::{read_games, run_siguo_sprt_with, SiguoArenaConfig, SiguoArenaReport, SiguoSprtConfig};
use junqi_arena::ArenaError;
use junqi_bots::BotSpec;
use junqi_net::shared_stats;
use junqi_selfplay::{run_siguo, SiguoConfig};
use junqi_siguo::Rules;
use std::path::Path;
use std::time::Instant;

impl LoopConfig {
    /// The four-player loop's settings: what its stages use, and no
    /// two-player setting that would be silently ignored.
    pub(crate) fn check_siguo(&self) -> Result<()> {
        let bad = |m: &str| Err(LoopError::Config(format!("game = \"siguo\": {m}")));
        self.siguo_rules()?;
        let s = &self.selfplay;
        if s.sims == 0 || s.search != "gumbel" || !(1..=1000).contains(&s.considered) {
            return bad("self-play searches with Gumbel at the root (selfplay.search = \"gumbel\", selfplay.sims at least 1, selfplay.considered 1 to 1000)");
        }
        if s.c != crate::SelfplaySettings::default().c {
            return bad("selfplay.c: the four-player search keeps its own exploration constant (remove the key)");
        }
        if s.deploy != "learned" {
            return bad("selfplay.deploy: four-player nets learn their deployments (\"learned\"); the heuristic formations are two-player");
        }
        if self.bootstrap.games % 2 == 1 || s.games % 2 == 1 {
            return bad(
                "bootstrap.games and selfplay.games must be even: every deal is played twice, the teams' seats swapped",
            );
        }
        if s.resign.is_some() || !s.draw.is_empty() || s.qtemp != 0.0 || s.mix != 0.0 || self.evaluate.mix != 0.0 {
            return bad("the four-player search has no resignation, draw score, qtemp or playout mix (remove [selfplay.resign], selfplay.draw, selfplay.qtemp and the mix keys)");
        }
        if self.exploit.is_some() || s.backend != "local" {
            return bad("no [exploit] and no Ray backend (both are two-player only)");
        }
        let planes = junqi_siguo::observation::PLANES;
        if self.train.model.in_channels != planes {
            return bad(&format!(
                "train.model.in_channels must be {planes} (the four-player observation's planes), not {}",
                self.train.model.in_channels
            ));
        }
        junqi_train::check_for_samples(&self.train, junqi_train::SampleKind::Siguo)?;
        let build = |what: &str, spec: &BotSpec| {
            junqi_siguo::bot_from_spec(&spec.to_string())
                .map(|_| ())
                .map_err(|e| LoopError::Config(format!("{what}: {e}")))
        };
        build("bootstrap.bot", &self.bootstrap.bot)?;
        if self.evaluate.anchor_games > 0 {
            for anchor in self.evaluate.anchors() {
                build("evaluate anchor", anchor)?;
            }
        }
        Ok(())
    }

    /// The four-player self-play bot of a generation whose best net is `net`.
    pub fn siguo_selfplay_bot(&self, net: &Path) -> BotSpec {
        let s = &self.selfplay;
        let spec = BotSpec::new("mcts").with("sims", s.sims).with("search", "gumbel").with("k", s.considered);
        spec.with("eval", siguo_net_spec(net))
    }

    /// The four-player bot that plays `net` in evaluations.
    pub fn siguo_eval_bot(&self, net: &Path) -> BotSpec {
        match self.evaluate.sims {
            0 => BotSpec::new("net").with("path", net.display()),
            n => {
                let spec = BotSpec::new("mcts").with("sims", n).with("search", "gumbel");
                spec.with("k", self.selfplay.considered).with("gscale", 0).with("eval", siguo_net_spec(net))
            }
        }
    }
}

/// `net:path=FILE` as the four-player parser reads it (it splits a spec's
/// keys at every comma, so the path is written as it is).
fn siguo_net_spec(net: &Path) -> String {
    format!("net:path={}", net.display())
}

impl Stages<'_> {
    /// A four-player generation's games: the bootstrap bot's, else the best
    /// net's Gumbel search, the same bot for both teams.
    pub(crate) fn siguo_selfplay(
        &mut self,
        rules: Rules,
        file: &StateFile,
        state: &mut LoopState,
        rec: &mut Generation,
    ) -> Result<()> {
        let (config, g) = (self.config, rec.index);
        let bot = match &state.best {
            None => config.bootstrap.bot.to_string(),
            Some(best) => config.siguo_selfplay_bot(&self.out.join(best)).to_string(),
        };
        let games = if g == 0 || state.best.is_none() { config.bootstrap.games } else { config.selfplay.games };
        // Whole deals (pairs) in every shard; one shard per worker at least.
        let shard = games.div_ceil(config.workers() as u64).next_multiple_of(2).clamp(2, 1000);
        let sp = SiguoConfig::new(rules, games, [bot.clone(), bot.clone()], selfplay_seed(config, g))?
            .with_samples(config.samples()?)
            .with_shard_games(shard)?;
        reset(self.options);
        self.observer.stage(&format!("gen {g}: four-player self-play ({bot})"), sp.games);
        let (before, started) = (shared_stats(), Instant::now());
        let summary = run_siguo(&sp, &gen_dir(self.out, g).join("selfplay"), self.options)?;
        let used = shared_stats().since(&before);
        if summary.games == 0 && !summary.interrupted {
            return Ok(()); // done before a resume
        }
        rec.selfplay_bot = bot;
        rec.selfplay_games += summary.games;
        rec.selfplay_plies += summary.plies;
        rec.selfplay_seconds += started.elapsed().as_secs_f64();
        rec.inference_batches += used.batches;
        rec.inference_positions += used.positions;
        rec.inference_requests += used.requests;
        file.save(state, Some(rec))?;
        if summary.interrupted {
            return Err(self.interrupted());
        }
        let batches = match rec.inference_batches {
            0 => String::new(),
            n => format!(
                ", {:.0} net positions/s, mean batch {:.1}",
                rec.inference_positions as f64 / rec.selfplay_seconds.max(1e-9),
                rec.inference_positions as f64 / n as f64
            ),
        };
        self.observer.line(&format!(
            "gen {g}: four-player self-play {} games, {} plies in {:.0} s ({:.0} plies/s{batches}); {} of {} decided",
            rec.selfplay_games,
            rec.selfplay_plies,
            rec.selfplay_seconds,
            rec.selfplay_plies as f64 / rec.selfplay_seconds.max(1e-9),
            summary.decided,
            summary.games
        ));
        Ok(())
    }

    /// Generation `rec`'s four-player net against the best: the SPRT gate's
    /// batches (the arena's test, each batch a resumable run), or
    /// `evaluate.games` paired games; whether it is promoted.
    pub(crate) fn siguo_against_best(
        &mut self,
        rules: Rules,
        rec: &mut Generation,
        net: &Path,
        best: &str,
    ) -> Result<()> {
        let (config, g) = (self.config, rec.index);
        let candidate = config.siguo_eval_bot(net).to_string();
        let best_bot = config.siguo_eval_bot(&self.out.join(best)).to_string();
        let dir = gen_dir(self.out, g);
        let Some(gate) = config.evaluate.sprt else {
            let label = format!("gen {g}: net {g} vs best ({best})");
            let arena =
                SiguoArenaConfig::new(rules, [&candidate, &best_bot], config.evaluate.games, eval_seed(config, g))?;
            let report = self.siguo_matchup(&arena, &dir.join("eval-best"), &label)?;
            self.scored_against_best(rec, [report.score.value, report.score.low, report.score.high], best);
            return Ok(());
        };
        let sprt_config = SiguoSprtConfig {
            rules,
            candidate,
            baseline: best_bot,
            elo0: gate.elo0,
            elo1: gate.elo1,
            alpha: gate.alpha,
            beta: gate.beta,
            batch_games: config.evaluate.games,
            max_games: gate.max_games,
            seed: eval_seed(config, g),
        };
        reset(self.options);
        self.observer.stage(&format!("gen {g}: SPRT, net {g} vs best ({best})"), gate.max_games);
        let (options, shard) = (self.options, eval_shard(config, sprt_config.batch_games));
        let play = |batch: &SiguoConfig, batch_dir: &Path| {
            let batch = batch.clone().with_shard_games(shard)?;
            if run_siguo(&batch, batch_dir, options)?.interrupted {
                return Err(ArenaError::Interrupted);
            }
            read_games(&batch, batch_dir)
        };
        let gate_dir = dir.join("gate");
        let outcome = run_siguo_sprt_with(&sprt_config, &gate_dir, false, play, |_, _| {})
            .map_err(|e| arena_error(e, &gate_dir))?;
        let (record, est) = gate_record(&outcome.summary, outcome.games);
        let t = &outcome.tally;
        self.gated(rec, &gate, record, est, best, &format!(" ({}-{}-{})", t.wins, t.draws, t.losses));
        Ok(())
    }

    /// Generation `g`'s four-player net against each of `anchors`, every
    /// anchor on the same deals; each rating (Elo, then score) handed to `record`.
    pub(crate) fn siguo_rate(
        &mut self,
        rules: Rules,
        g: u32,
        net: &Path,
        anchors: &[BotSpec],
        record: &mut crate::evaluate::RecordRating,
    ) -> Result<bool> {
        let config = self.config;
        let candidate = config.siguo_eval_bot(net).to_string();
        for anchor in anchors {
            let (spec, games) = (anchor.to_string(), config.evaluate.anchor_games);
            let arena = SiguoArenaConfig::new(rules, [&candidate, &spec], games, eval_seed(config, g) ^ 0x5A5A)?;
            let dir = gen_dir(self.out, g).join(crate::evaluate::anchor_dir(config, anchor));
            let report = self.siguo_matchup(&arena, &dir, &format!("gen {g}: net {g} vs {anchor}"))?;
            let elo = [report.elo.value, report.elo.low, report.elo.high];
            record(&spec, elo, [report.score.value, report.score.low, report.score.high])?;
            self.observer.line(&format!(
                "gen {g}: Elo {:+.0} [{:+.0}, {:+.0}] against {anchor} ({}-{}-{}, draws: {})",
                elo[0],
                elo[1],
                elo[2],
                report.tally.wins,
                report.tally.draws,
                report.tally.losses,
                report.tally.draws_text()
            ));
        }
        Ok(!anchors.is_empty())
    }

    /// Play (or resume, or read back) a four-player arena's paired games in
    /// `dir`, and write its `results.md` there.
    fn siguo_matchup(&mut self, arena: &SiguoArenaConfig, dir: &Path, label: &str) -> Result<SiguoArenaReport> {
        let games = arena.selfplay()?.with_shard_games(eval_shard(self.config, arena.games))?;
        reset(self.options);
        self.observer.stage(label, arena.games);
        if run_siguo(&games, dir, self.options)?.interrupted {
            return Err(self.interrupted());
        }
        let report = SiguoArenaReport::new(arena, &read_games(&games, dir)?)?;
        let path = dir.join("results.md");
        std::fs::write(&path, report.to_markdown()).map_err(LoopError::io(path))?;
        Ok(report)
    }
}

/// Games per shard of an evaluation of `games` games: whole deals, every
/// worker busy, so a stop loses at most one shard a worker.
fn eval_shard(config: &LoopConfig, games: u64) -> u64 {
    (games / config.workers() as u64).next_multiple_of(2).max(2)
}
