//! The loop's driver ([`run_loop`]) and the stages of one generation:
//! `selfplay` with the best net (or the bootstrap bot), `train` on the
//! window's games, `evaluate` against the best and the anchors. Each stage works on the generation in progress,
//! held apart from the finished ones (so it cannot be missing), and saves
//! the state when it is done; a stage already done on a resume is skipped.

use crate::config::{LoopConfig, SprtGate};
use crate::evaluate::{eval_seed, matchup, rate_against_anchors, sprt_gate, unrated};
use crate::report::write_reports;
use crate::state::{GateRecord, Generation, LoopState, StateFile};
use crate::tb::{elo_scalars, generation_scalars, LoopBoard};
use crate::{LoopError, Result};
use junqi_core::Rules;
use junqi_net::{release_shared_services, shared_stats};
use junqi_selfplay::{prepare, Config, Resign, RunDir, RunOptions};
use junqi_train::deployments::{deployment_games, fit_into_net};
use junqi_train::{export_checkpoint, train_window, DataWindow, TensorBoardMetrics};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// What the caller sees of a running loop.
pub trait LoopObserver {
    /// A stage starts (`total` games, or 0 for training); the progress
    /// counters of `options` were reset.
    fn stage(&mut self, label: &str, total: u64);
    /// A line for the log.
    fn line(&mut self, text: &str);
}

/// Run (or resume) the loop in `out` until `config.generations` or
/// `config.minutes`, or until `options.stop` is set (then an error
/// [`LoopError::Interrupted`] after the finished stages are saved).
pub fn run_loop(
    config: &LoopConfig,
    out: &Path,
    options: &RunOptions,
    observer: &mut dyn LoopObserver,
) -> Result<LoopState> {
    config.check()?;
    if config.is_siguo() && out.to_string_lossy().contains([',', '|', '"']) {
        // The four-player bot specs name the nets by path, split their keys at
        // commas and a team at `|`, and take no quotes.
        return Err(LoopError::Config(format!(
            "a four-player loop's directory may hold no comma, `|` or `\"` (its nets' paths go into bot specs): {}",
            out.display()
        )));
    }
    let dir = RunDir::open(out)?;
    write_config(config, &dir)?;
    let (file, mut state) = StateFile::open(&dir)?;
    let code_version = junqi_selfplay::code_version();
    if !state.code_version.is_empty() && state.code_version != code_version {
        observer.line(&format!(
            "resuming a loop last run by code version {}; generations finished now record {code_version}",
            state.code_version
        ));
    }
    state.code_version = code_version;
    let (rules, siguo) = match config.is_siguo() {
        // The four-player stages read `siguo`; `rules` is only the two-player stages'.
        true => (Rules::preset(junqi_core::Mode::Anqi), Some(config.siguo_rules()?)),
        false => (config.rules()?, None),
    };
    let mut stages = Stages { config, rules, siguo, out, options, observer };
    let result = stages.generations(&file, &mut state);
    // A stopped stage keeps what it finished (shards, checkpoints, matchups);
    // the minutes it ran count too.
    if matches!(result, Err(LoopError::Interrupted(_))) {
        file.save(&mut state, None)?;
    }
    result?;
    write_reports(config, out, &state)?;
    Ok(state)
}

/// How many self-play workers share a generation's games: this machine's, or
/// on Ray the parts' threads (the driver's default number of parts depends
/// on the cluster, which the config does not know: then 256, enough shards
/// for a few dozen machines that stays the same from run to run).
fn selfplay_slots(config: &LoopConfig) -> u64 {
    let ray = &config.selfplay.ray;
    match (config.selfplay.backend.as_str(), ray.parts) {
        ("ray", 0) => 256,
        ("ray", parts) => parts.saturating_mul(ray.cpus_per_part).max(1),
        _ => config.workers() as u64,
    }
}

/// The loop's config in its run directory.
pub const CONFIG_FILE: &str = "loop.toml";

/// Write `loop.toml`, or check that the one there is this loop's: only when
/// to stop, where the net runs, the further anchors (ratings, not training)
/// and how the Ray cluster is reached may change on a resume.
fn write_config(config: &LoopConfig, dir: &RunDir) -> Result<()> {
    let text = config.to_toml();
    match dir.read(CONFIG_FILE)? {
        Some(old) if old != text => {
            let old_cfg = LoopConfig::from_toml(&old)?;
            let mut same = LoopConfig { generations: config.generations, minutes: config.minutes, ..old_cfg };
            same.train.device = config.train.device;
            same.about = config.about.clone();
            // Where the cluster is and how to reach it; not how the games are cut into shards.
            let ray = &config.selfplay.ray;
            same.selfplay.ray.address = ray.address.clone();
            same.selfplay.ray.command = ray.command.clone();
            same.selfplay.ray.binary = ray.binary.clone();
            same.evaluate.more_anchors = config.evaluate.more_anchors.clone();
            if &same != config {
                let stored = serde_json::to_value(&same).expect("loop configs serialise");
                let diffs = match junqi_selfplay::same_work(&stored, None, config, None) {
                    Err(junqi_selfplay::WorkMismatch::Config(diffs)) => diffs,
                    _ => vec![],
                };
                return Err(LoopError::Config(format!(
                    "{} holds a loop with another config ({}: {}); use a new --out",
                    dir.path().display(),
                    dir.path().join(CONFIG_FILE).display(),
                    diffs.join("; ")
                )));
            }
            dir.write(CONFIG_FILE, &text)?;
        }
        Some(_) => {}
        None => dir.write(CONFIG_FILE, &text)?,
    }
    Ok(())
}

/// A running loop: its settings, its run directory and its observer.
pub(crate) struct Stages<'a> {
    pub(crate) config: &'a LoopConfig,
    pub(crate) rules: Rules,
    /// The four-player rules of a `game = "siguo"` loop (then `rules` is unused).
    pub(crate) siguo: Option<junqi_siguo::Rules>,
    pub(crate) out: &'a Path,
    pub(crate) options: &'a RunOptions,
    pub(crate) observer: &'a mut dyn LoopObserver,
}

impl Stages<'_> {
    /// The generations, until a stopping rule or an error.
    fn generations(&mut self, file: &StateFile, state: &mut LoopState) -> Result<()> {
        let mut board = LoopBoard::default();
        self.backfill_anchors(file, state, &mut board)?;
        let config = self.config;
        loop {
            let finished = state.generations.iter().filter(|x| x.done).count() as u32;
            if config.generations > 0 && finished >= config.generations {
                break;
            }
            let resuming = state.generations.last().is_some_and(|x| !x.done);
            if config.minutes > 0.0 && file.minutes_now() >= config.minutes && !resuming {
                self.observer.line(&format!("time budget of {} minutes used: stopping", config.minutes));
                break;
            }
            // The generation in progress, held apart from the finished ones.
            let mut rec = match state.generations.pop_if(|x| !x.done) {
                Some(rec) => rec,
                None => Generation { index: state.generations.last().map_or(0, |x| x.index + 1), ..Default::default() },
            };
            let result = self.generation(file, state, &mut rec);
            state.generations.push(rec);
            result?;
            write_reports(config, self.out, state)?;
            if let Some(g) = state.generations.last() {
                board.write(self.out, g.index, &generation_scalars(config, g))?;
            }
            // The next generation loads the (maybe new) best net afresh.
            release_shared_services();
        }
        Ok(())
    }

    /// Anchors added on a resume: rate the finished generations first.
    fn backfill_anchors(&mut self, file: &StateFile, state: &mut LoopState, board: &mut LoopBoard) -> Result<()> {
        let mut backfilled = false;
        for k in 0..state.generations.len() {
            let rec = &state.generations[k];
            let Some(net) = rec.net.clone().filter(|_| rec.done) else { continue };
            let (g, anchors) = (rec.index, unrated(self.config, rec));
            let config = self.config;
            let out = self.out;
            let mut record = |anchor: &str, elo: [f64; 3], score: [f64; 3]| {
                state.generations[k].set_elo(config, anchor, elo);
                state.generations[k].set_score(anchor, score);
                file.save(state, None)?;
                board.write(out, g, &elo_scalars(anchor, elo))
            };
            let net_path = self.out.join(net);
            if rate_against_anchors(self, g, &net_path, &anchors, &mut record)? {
                backfilled = true;
                release_shared_services();
            }
        }
        if backfilled {
            write_reports(self.config, self.out, state)?;
        }
        Ok(())
    }

    /// The stages of generation `rec` not done yet, then the generation
    /// marked done (and its net the best if promoted).
    fn generation(&mut self, file: &StateFile, state: &mut LoopState, rec: &mut Generation) -> Result<()> {
        self.selfplay(file, state, rec)?;
        if self.options.stop.load(Ordering::Relaxed) {
            return Err(self.interrupted());
        }
        self.train(file, state, rec)?;
        self.evaluate(file, state, rec)?;
        if rec.promoted {
            state.best = Some(net_rel(rec.index));
        }
        rec.done = true;
        rec.minutes = file.minutes_now();
        rec.code_version = state.code_version.clone();
        file.save(state, Some(rec))
    }

    pub(crate) fn interrupted(&self) -> LoopError {
        LoopError::Interrupted(format!("stopped; run the same command to resume from {}", self.out.display()))
    }

    /// Self-play: generation 0's games from the bootstrap bot, every later
    /// one's from the best net's search (resigning with `[selfplay.resign]`).
    pub(crate) fn selfplay(&mut self, file: &StateFile, state: &mut LoopState, rec: &mut Generation) -> Result<()> {
        let (config, g) = (self.config, rec.index);
        if config.exploit.is_some() {
            return self.exploit_selfplay(file, state, rec);
        }
        if let Some(rules) = self.siguo {
            return self.siguo_selfplay(rules, file, state, rec);
        }
        let on_ray = config.selfplay.backend == "ray";
        let bot = match &state.best {
            None => config.bootstrap.bot.clone(),
            // The cluster's workers run elsewhere: the net by its absolute path.
            Some(best) if on_ray => {
                let net = self.out.join(best);
                config.selfplay_bot(&std::path::absolute(&net).map_err(LoopError::io(net))?)
            }
            Some(best) => config.selfplay_bot(&self.out.join(best)),
        };
        let games = if g == 0 || state.best.is_none() { config.bootstrap.games } else { config.selfplay.games };
        let sp_seed = selfplay_seed(config, g);
        let resign = match config.selfplay.resign {
            Some(r) if state.best.is_some() => {
                // A resumed generation keeps its threshold.
                let threshold =
                    *rec.resign_threshold.get_or_insert_with(|| resign_threshold(config, state, g, r.threshold));
                Some(Resign { threshold, ..r })
            }
            _ => None,
        };
        let sp_config = Config::new(self.rules, games, [&bot, &bot], sp_seed)?
            .with_samples(config.samples()?)
            .with_swap(false)
            .with_resign(resign)
            // One shard per worker at least: a shard's games run one after another.
            .with_shard_games(games.div_ceil(selfplay_slots(config)).clamp(1, 1000));
        let sp_dir = gen_dir(self.out, g).join("selfplay");
        let plan = prepare(sp_config.clone(), Some(&sp_dir))?;
        if plan.pending.is_empty() {
            return Ok(());
        }
        if on_ray {
            drop(plan); // its lock: the merged run is copied in
            self.observer.stage(&format!("gen {g}: self-play on Ray ({bot})"), games);
            let work = gen_dir(self.out, g).join(crate::ray::RAY_DIR);
            let run = crate::ray::selfplay_on_ray(&config.selfplay.ray, &sp_config, &sp_dir, &work)?;
            rec.selfplay_bot = bot.to_string();
            rec.selfplay_games += run.games;
            rec.selfplay_plies += run.plies;
            rec.selfplay_seconds += run.seconds;
            file.save(state, Some(rec))?;
            self.observer.line(&format!(
                "gen {g}: self-play on Ray {} games, {} plies in {:.0} s ({:.0} positions/s)",
                run.games,
                run.plies,
                run.seconds,
                run.plies as f64 / run.seconds.max(1e-9)
            ));
            return Ok(());
        }
        self.play_selfplay(file, state, rec, plan, &bot, games, resign)
    }

    /// An exploit run's games of generation `rec`: the learner (the newest
    /// net's search, or `exploit.init`'s, or the bootstrap bot) against the
    /// target, seats alternating, only the learner's positions sampled.
    fn exploit_selfplay(&mut self, file: &StateFile, state: &mut LoopState, rec: &mut Generation) -> Result<()> {
        let (config, g) = (self.config, rec.index);
        let x = config.exploit.as_ref().expect("an exploit run");
        let learner_net = self.learner_net(state);
        let bot = config.learner_bot(learner_net.as_deref());
        let games = if learner_net.is_none() { config.bootstrap.games } else { config.selfplay.games };
        let sp_seed = selfplay_seed(config, g);
        let sp_config = Config::new(self.rules, games, [&bot, &x.target], sp_seed)?
            .with_samples(config.samples()?)
            .with_swap(true)
            .with_sample_player(Some(0))
            .with_shard_games(games.div_ceil(selfplay_slots(config)).clamp(1, 1000));
        let sp_dir = gen_dir(self.out, g).join("selfplay");
        let plan = prepare(sp_config, Some(&sp_dir))?;
        if plan.pending.is_empty() {
            return Ok(());
        }
        self.play_selfplay(file, state, rec, plan, &bot, games, None)
    }

    /// The learner's net in an exploit run: the newest generation's, else `exploit.init`'s (None: neither).
    fn learner_net(&self, state: &LoopState) -> Option<PathBuf> {
        let init = self.config.exploit.as_ref().filter(|x| !x.init.is_empty()).map(|x| PathBuf::from(&x.init));
        state.best.as_ref().map(|b| self.out.join(b)).or(init)
    }

    /// Play the pending games of `plan` on this machine and record them in `rec`.
    #[allow(clippy::too_many_arguments)]
    fn play_selfplay(
        &mut self,
        file: &StateFile,
        state: &mut LoopState,
        rec: &mut Generation,
        plan: junqi_selfplay::Plan,
        bot: &junqi_bots::BotSpec,
        games: u64,
        resign: Option<Resign>,
    ) -> Result<()> {
        let g = rec.index;
        reset(self.options);
        self.options.progress.resumed.store(plan.complete_games, Ordering::Relaxed);
        self.observer.stage(&format!("gen {g}: self-play ({bot})"), games);
        let before = shared_stats();
        let summary = plan.run(self.options)?;
        let used = shared_stats().since(&before);
        rec.selfplay_bot = bot.to_string();
        // Games of written shards only: a stopped run replays its unwritten shards.
        rec.selfplay_games += summary.tally.games;
        rec.selfplay_plies += summary.plies;
        rec.selfplay_seconds += summary.elapsed.as_secs_f64();
        rec.inference_batches += used.batches;
        rec.inference_positions += used.positions;
        rec.inference_requests += used.requests;
        rec.resign.merge(&summary.tally.resign);
        file.save(state, Some(rec))?;
        if summary.interrupted {
            return Err(self.interrupted());
        }
        let mean_batch = if rec.inference_batches > 0 {
            format!(
                ", mean inference batch {:.1}, {:.0}% answered by the cache",
                rec.inference_positions as f64 / rec.inference_batches as f64,
                100.0 * (1.0 - rec.inference_positions as f64 / rec.inference_requests.max(1) as f64)
            )
        } else {
            String::new()
        };
        let resigned = match resign {
            Some(r) => format!("; threshold {:.2}, {}", r.threshold, rec.resign),
            None => String::new(),
        };
        self.observer.line(&format!(
            "gen {g}: self-play {} games, {} plies in {:.0} s ({:.2} games/s, {:.0} positions/s{mean_batch}){resigned}",
            rec.selfplay_games,
            rec.selfplay_plies,
            rec.selfplay_seconds,
            rec.selfplay_games as f64 / rec.selfplay_seconds.max(1e-9),
            rec.selfplay_plies as f64 / rec.selfplay_seconds.max(1e-9),
        ));
        Ok(())
    }

    /// Training: the continuing run in `train/` adds `steps_per_generation`
    /// steps on the window's games; its checkpoint is exported as the
    /// generation's net (with a fitted deployment model when learned).
    pub(crate) fn train(&mut self, file: &StateFile, state: &mut LoopState, rec: &mut Generation) -> Result<()> {
        if rec.net.is_some() {
            return Ok(());
        }
        let (config, out, g) = (self.config, self.out, rec.index);
        let net_rel = net_rel(g);
        let net_path = out.join(&net_rel);
        let first = (g + 1).saturating_sub(config.window_generations);
        let runs: Vec<PathBuf> = (first..=g).map(|k| gen_dir(out, k).join("selfplay")).collect();
        let window = DataWindow::of_runs(out, &runs)?;
        let mut tc = config.train.clone();
        let first_steps = match config.bootstrap.steps {
            0 => config.steps_per_generation,
            n => n,
        };
        tc.optim.steps = first_steps + config.steps_per_generation * g as u64;
        tc.seed = config.seed.wrapping_add(g as u64);
        tc.checkpoint_every = tc.checkpoint_every.min(config.steps_per_generation);
        if let Some(x) = config.exploit.as_ref().filter(|x| !x.init.is_empty()) {
            // The learner starts from its given net (a resume continues its own checkpoints).
            tc.init = Some(PathBuf::from(&x.init));
        }
        reset(self.options);
        self.observer.stage(&format!("gen {g}: training to step {} on {} samples", tc.optim.steps, window.rows), 0);
        let train_dir = out.join("train");
        let mut metrics = TensorBoardMetrics::for_run(&train_dir)?;
        let generation_start = if g == 0 { 0 } else { tc.optim.steps - config.steps_per_generation };
        let summary =
            train_window(&tc, window, generation_start, &train_dir, &mut metrics, &mut (), &self.options.stop)?;
        if summary.interrupted {
            return Err(self.interrupted());
        }
        let ckpt = summary.checkpoint.clone().ok_or(LoopError::NoCheckpoint)?;
        std::fs::create_dir_all(out.join("nets")).map_err(LoopError::io(out.join("nets")))?;
        export_checkpoint(&ckpt, &net_path)?;
        let deploy_loss = if config.learns_deployments()? {
            let games = match self.siguo {
                Some(_) => junqi_train::siguo_deployments::siguo_deployment_games(&runs)?,
                None => deployment_games(&runs, &self.rules)?,
            };
            Some((fit_into_net(&net_path, &games)?, games.len()))
        } else {
            None
        };
        rec.deploy_loss = deploy_loss.map(|l| l.0 as f64);
        rec.net = Some(net_rel);
        rec.train_step = summary.end_step;
        rec.train_samples_per_s = summary.samples_per_s;
        rec.train_seconds = summary.seconds;
        if let Some(m) = &summary.last {
            rec.policy_loss = m.policy_loss;
            rec.value_loss = m.value_loss;
            rec.belief_loss = tc.model.belief.then_some(m.belief_loss);
        }
        let (policy_loss, value_loss) = (rec.policy_loss, rec.value_loss);
        let mut belief = rec.belief_loss.map(|b| format!(", belief loss {b:.3}")).unwrap_or_default();
        if let Some((loss, n)) = deploy_loss {
            belief += &format!(", deployments fitted to {n} (loss {loss:.3})");
        }
        file.save(state, Some(rec))?;
        self.observer.line(&format!(
            "gen {g}: trained to step {} in {:.0} s ({:.0} samples/s), policy loss {policy_loss:.3}, value loss {value_loss:.3}{belief}",
            summary.end_step, summary.seconds, summary.samples_per_s
        ));
        Ok(())
    }

    /// Evaluation: the new net against the best (paired games, or the SPRT
    /// gate; the first net is promoted), then against every anchor it has
    /// no rating for.
    pub(crate) fn evaluate(&mut self, file: &StateFile, state: &mut LoopState, rec: &mut Generation) -> Result<()> {
        let (config, g) = (self.config, rec.index);
        let net_path = self.out.join(net_rel(g));
        if !rec.evaluated {
            // A best response has no gate: every net becomes the learner.
            if let Some(best) = state.best.clone().filter(|_| config.exploit.is_none()) {
                self.against_best(rec, &net_path, &best)?;
            } else {
                rec.promoted = true;
            }
            rec.evaluated = true;
            file.save(state, Some(rec))?;
        }
        let anchors = unrated(config, rec);
        let mut record = |anchor: &str, elo: [f64; 3], score: [f64; 3]| {
            rec.set_elo(config, anchor, elo);
            rec.set_score(anchor, score);
            file.save(state, Some(rec))
        };
        rate_against_anchors(self, g, &net_path, &anchors, &mut record)?;
        Ok(())
    }

    /// Generation `rec`'s net (at `net_path`) against the best net: its
    /// score, and whether it is promoted.
    fn against_best(&mut self, rec: &mut Generation, net_path: &Path, best: &str) -> Result<()> {
        if let Some(rules) = self.siguo {
            return self.siguo_against_best(rules, rec, net_path, best);
        }
        let (config, g) = (self.config, rec.index);
        let dir = gen_dir(self.out, g);
        let candidate = config.eval_bot(net_path);
        let best_bot = config.eval_bot(&self.out.join(best));
        let eval_seed = eval_seed(config, g);
        if let Some(gate) = config.evaluate.sprt {
            reset(self.options);
            self.observer.stage(&format!("gen {g}: SPRT, net {g} vs best ({best})"), gate.max_games);
            let (record, est) = sprt_gate(
                &self.rules,
                [&candidate, &best_bot],
                config.evaluate.games,
                &gate,
                eval_seed,
                &dir.join("gate"),
                self.options,
            )?;
            self.gated(rec, &gate, record, est, best, "");
        } else {
            let (est, _) = matchup(
                &self.rules,
                [&candidate, &best_bot],
                config.evaluate.games,
                eval_seed,
                &dir.join("eval-best"),
                self.options,
                self.observer,
                &format!("gen {g}: net {g} vs best ({best})"),
            )?;
            self.scored_against_best(rec, est, best);
        }
        Ok(())
    }

    /// Record generation `rec`'s gate against the best net `best` (its
    /// record and score), whether it is promoted, and log it; `detail`
    /// follows the score in the log line.
    pub(crate) fn gated(
        &mut self,
        rec: &mut Generation,
        gate: &SprtGate,
        record: GateRecord,
        est: [f64; 3],
        best: &str,
        detail: &str,
    ) {
        let g = rec.index;
        rec.score_vs_best = Some(est);
        rec.promoted = gate.promotes(&record.verdict, record.llr);
        self.observer.line(&format!(
            "gen {g}: SPRT after {} games: LLR {:.2} in [{:.2}, {:.2}], {}; net {g} scored {} against {best}{detail}: {}",
            record.games,
            record.llr,
            record.lower,
            record.upper,
            record.verdict,
            percent(est),
            outcome(rec.promoted)
        ));
        rec.gate = Some(record);
    }

    /// Record generation `rec`'s score `est` against the best net `best`
    /// (promoted at `evaluate.promote_score`), and log it.
    pub(crate) fn scored_against_best(&mut self, rec: &mut Generation, est: [f64; 3], best: &str) {
        let g = rec.index;
        rec.score_vs_best = Some(est);
        rec.promoted = est[0] >= self.config.evaluate.promote_score;
        self.observer.line(&format!(
            "gen {g}: net {g} scored {} against {best}: {}",
            percent(est),
            outcome(rec.promoted)
        ));
    }
}

/// A score and its 95% interval, in percent.
pub(crate) fn percent(est: [f64; 3]) -> String {
    format!("{:.1}% [{:.1}, {:.1}]", 100.0 * est[0], 100.0 * est[1], 100.0 * est[2])
}

/// What a gate did with the candidate.
fn outcome(promoted: bool) -> &'static str {
    if promoted {
        "promoted"
    } else {
        "kept the best"
    }
}

/// Generation `g`'s self-play seed.
pub(crate) fn selfplay_seed(config: &LoopConfig, g: u32) -> u64 {
    config.seed.wrapping_add(1_000_003u64.wrapping_mul(g as u64 + 1))
}

/// Generation `g`'s directory.
pub(crate) fn gen_dir(out: &Path, g: u32) -> PathBuf {
    out.join(format!("gen-{g:03}"))
}

/// Generation `g`'s net, relative to the run directory.
fn net_rel(g: u32) -> String {
    format!("nets/net-{g:03}.safetensors")
}

/// Generation `g`'s resignation threshold: calibrated on the play-through
/// games of the finished generations in the window, or `fixed` until they
/// hold [`RESIGN_MIN_SIGNALS`](crate::RESIGN_MIN_SIGNALS) would-be
/// resignations (or with no target rate).
fn resign_threshold(config: &LoopConfig, state: &LoopState, g: u32, fixed: f64) -> f64 {
    let rate = config.selfplay.resign_false_rate;
    if rate <= 0.0 {
        return fixed;
    }
    let first = g.saturating_sub(config.window_generations);
    let mut pooled = junqi_selfplay::ResignTally::default();
    for rec in state.generations.iter().filter(|x| x.done && x.index >= first) {
        pooled.merge(&rec.resign);
    }
    if pooled.would_resign_at(junqi_selfplay::LEVEL_BINS).0 < crate::RESIGN_MIN_SIGNALS {
        return fixed;
    }
    // The lowest threshold on the grid when every one is too often wrong.
    pooled.calibrate(rate, crate::RESIGN_MIN_SIGNALS).unwrap_or(-1.0 + junqi_selfplay::LEVEL_WIDTH)
}

/// Zero the progress counters of `options` for the next stage.
pub(crate) fn reset(options: &RunOptions) {
    let p = &options.progress;
    for c in [&p.games, &p.plies, &p.samples, &p.resumed] {
        c.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_levels(
        index: u32,
        lost: [u64; junqi_selfplay::LEVEL_BINS],
        not_lost: [u64; junqi_selfplay::LEVEL_BINS],
    ) -> Generation {
        let resign = junqi_selfplay::ResignTally { lost_at: lost, not_lost_at: not_lost, ..Default::default() };
        Generation { index, resign, done: true, ..Default::default() }
    }

    #[test]
    fn the_resign_threshold_calibrates_on_the_window_once_there_is_enough_data() {
        let mut config = LoopConfig { window_generations: 2, ..LoopConfig::default() };
        config.selfplay.resign_false_rate = 0.05;
        let mut state = LoopState::default();
        // No data: the fixed threshold.
        assert_eq!(resign_threshold(&config, &state, 1, -0.9), -0.9);
        // Generation 0: 30 sides at level -0.99, all lost; 30 at -0.69, half lost.
        let (mut lost, mut not_lost) = ([0; junqi_selfplay::LEVEL_BINS], [0; junqi_selfplay::LEVEL_BINS]);
        lost[0] = 30;
        lost[15] = 15;
        not_lost[15] = 15;
        state.generations.push(with_levels(0, lost, not_lost));
        // Up to -0.7 every would-be resignation was right; above it 25% were false.
        let t = resign_threshold(&config, &state, 1, -0.9);
        assert!((t - -0.7).abs() < 1e-9, "{t}");
        // With no target rate it stays fixed.
        config.selfplay.resign_false_rate = 0.0;
        assert_eq!(resign_threshold(&config, &state, 1, -0.9), -0.9);
        config.selfplay.resign_false_rate = 0.05;
        // Generations outside the window do not count.
        assert_eq!(resign_threshold(&config, &state, 3, -0.9), -0.9);
        // When even the lowest threshold is too often wrong: the lowest.
        let mut bad = [0; junqi_selfplay::LEVEL_BINS];
        bad[0] = 30;
        state.generations.push(with_levels(1, [0; junqi_selfplay::LEVEL_BINS], bad));
        let t = resign_threshold(&config, &state, 2, -0.9);
        assert!((t - -0.98).abs() < 1e-9, "{t}");
    }
}
