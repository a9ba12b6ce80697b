//! The four-player loop (`game = "siguo"`) end to end on a tiny config:
//! four-player self-play, a four-player net with a belief head and a
//! learned deployment model, the SPRT gate and the anchors in four-player
//! paired games; a stop inside a stage resumes it; two-player-only settings
//! are refused by name.

use crate::common::temp_dir;
use crate::training_loop::one_loop_at_a_time;
use junqi_bots::BotSpec;
use junqi_loop::{run_loop, LoopConfig, LoopObserver, SprtGate};
use junqi_net::{register_net_bots, NetFile, NetGame};
use junqi_selfplay::{read_siguo_games_file, shard_files, Resign, RunOptions, GAMES_DIR};
use junqi_train::DeviceChoice;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The log; sets `stop` (as Ctrl-C does) when a stage starting with `stop_at` begins.
struct Log {
    lines: Vec<String>,
    stop_at: Option<&'static str>,
    stop: Arc<AtomicBool>,
}
impl LoopObserver for Log {
    fn stage(&mut self, label: &str, _total: u64) {
        self.lines.push(format!("stage {label}"));
        if self.stop_at.is_some_and(|s| label.starts_with(s)) {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
    fn line(&mut self, text: &str) {
        self.lines.push(text.to_string());
    }
}

fn tiny_siguo() -> LoopConfig {
    let mut c = LoopConfig {
        game: "siguo".into(),
        mode: "anqi".into(),
        generations: 2,
        threads: 2,
        window_generations: 2,
        steps_per_generation: 6,
        ..Default::default()
    };
    // Short games: a draw after 60 plies without a capture, 240 at most.
    c.rules_set = vec!["no_progress_plies=60".into(), "max_plies=240".into()];
    c.bootstrap.bot = BotSpec::new("greedy");
    c.bootstrap.games = 8;
    c.selfplay.games = 4;
    c.selfplay.sims = 4;
    c.selfplay.search = "gumbel".into();
    c.selfplay.considered = 2;
    c.selfplay.samples_per_game = "4".into();
    c.evaluate.games = 4;
    c.evaluate.sims = 2;
    c.evaluate.anchor = BotSpec::new("random");
    c.evaluate.anchor_games = 4;
    c.evaluate.sprt = Some(SprtGate { max_games: 8, ..SprtGate::default() });
    c.train.device = DeviceChoice::Cpu;
    c.train.model.in_channels = junqi_siguo::observation::PLANES;
    c.train.model.blocks = 1;
    c.train.model.channels = 8;
    c.train.model.value_planes = 1;
    c.train.model.value_hidden = 8;
    c.train.model.belief = true;
    c.train.optim.batch_size = 16;
    c.train.optim.warmup_steps = 0;
    c.train.data.shuffle_buffer = 500;
    c
}

#[test]
fn a_four_player_loop_trains_gates_rates_and_resumes_a_stopped_stage() {
    let _serial = one_loop_at_a_time();
    register_net_bots();
    let out = temp_dir("siguo-loop");
    let stop = Arc::new(AtomicBool::new(false));
    let options = RunOptions { threads: 2, stop: stop.clone(), ..Default::default() };
    let config = tiny_siguo();
    // Stopped as generation 1's self-play starts: an interruption, resumable.
    let mut log = Log { lines: Vec::new(), stop_at: Some("gen 1: four-player self-play"), stop: stop.clone() };
    let err = run_loop(&config, &out, &options, &mut log).unwrap_err();
    assert!(err.to_string().contains("run the same command to resume"), "{err}");
    stop.store(false, Ordering::SeqCst);
    let mut log = Log { lines: Vec::new(), stop_at: None, stop: stop.clone() };
    let state = run_loop(&config, &out, &options, &mut log).unwrap();
    assert!(!log.lines.iter().any(|l| l.starts_with("stage gen 0")), "generation 0 was done: {:?}", log.lines);
    assert_eq!(state.generations.len(), 2, "{:?}", log.lines);

    let (g0, g1) = (&state.generations[0], &state.generations[1]);
    assert_eq!(g0.selfplay_bot, "greedy");
    assert_eq!(g0.selfplay_games, 8);
    assert!(g1.selfplay_bot.starts_with("mcts:sims=4,search=gumbel,k=2,eval=net:path="), "{}", g1.selfplay_bot);
    assert_eq!(g1.selfplay_games, 4);
    assert!(g1.inference_positions > 0, "the net's search played generation 1: {g1:?}");
    for g in [g0, g1] {
        let net = out.join(g.net.as_ref().expect("a net"));
        // A four-player net, with the deployment model fitted to every army of the window's games.
        let file = NetFile::read_game(&net, NetGame::Siguo).unwrap();
        assert!(file.deployment_model().unwrap().is_some(), "{}", net.display());
        assert!(g.deploy_loss.is_some_and(|l| l.is_finite()) && g.belief_loss.is_some(), "{g:?}");
        let elo = g.elo_vs_anchor.expect("rated against the anchor");
        assert!(elo[1] <= elo[0] && elo[0] <= elo[2], "{elo:?}");
        assert!(out.join(format!("gen-{:03}/eval-anchor/results.md", g.index)).is_file());
    }
    assert_eq!(g0.train_step, 6);
    assert_eq!(g1.train_step, 12);
    // The gate: four-player paired batches of the candidate against the best.
    let gate = g1.gate.as_ref().expect("the gate ran");
    assert!(gate.games >= 4 && gate.games <= 8 && gate.games % 4 == 0, "{gate:?}");
    // The default gate promotes on an accepted H1 only.
    assert_eq!(g1.promoted, gate.verdict == "H1", "{gate:?}");
    assert!(out.join("gen-001/gate/batches/00000/games").is_dir());
    // Generation 1's games are four-player games of its own search on both teams.
    let mut played = 0;
    for shard in shard_files(&out.join("gen-001/selfplay").join(GAMES_DIR)).unwrap() {
        for game in read_siguo_games_file(&shard).unwrap() {
            assert!(game.bots.iter().all(|b| *b == g1.selfplay_bot), "{:?}", game.bots);
            played += 1;
        }
    }
    assert_eq!(played, 4);
    for f in ["loop.toml", "state.json", "elo.csv", "elo.svg", "summary.md"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // Finished: the same command does nothing more.
    let mut again = Log { lines: Vec::new(), stop_at: None, stop };
    let state2 = run_loop(&config, &out, &options, &mut again).unwrap();
    assert_eq!(state2.generations.len(), 2);
    assert!(again.lines.iter().all(|l| !l.starts_with("stage")), "{:?}", again.lines);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_four_player_loop_refuses_what_it_would_ignore() {
    let refused = |edit: &dyn Fn(&mut LoopConfig), expect: &str| {
        let mut c = tiny_siguo();
        edit(&mut c);
        let err = c.check().unwrap_err().to_string();
        assert!(err.contains(expect), "expected `{expect}` in: {err}");
    };
    tiny_siguo().check().unwrap();
    refused(&|c| c.game = "chess".into(), "game: expected \"siguo\"");
    refused(&|c| c.mode = "fanqi".into(), "four-player mode `fanqi`");
    refused(&|c| c.rules_set = vec!["flag_carry=true".into()], "rules_set");
    refused(&|c| c.selfplay.search = "puct".into(), "Gumbel");
    refused(&|c| c.train.model.in_channels = 110, "in_channels must be 74");
    refused(
        &|c| c.selfplay.resign = Some(Resign { threshold: -0.9, consecutive: 3, min_ply: 40, playthrough: 0.2 }),
        "no resignation",
    );
    refused(&|c| c.evaluate.anchor = BotSpec::new("nonsense"), "evaluate anchor");
    refused(&|c| c.bootstrap.bot = BotSpec::new("mcts").with("c", 2), "bootstrap.bot");
    // A run directory with a comma cannot be named in a four-player bot spec.
    let out = temp_dir("siguo,comma");
    let options = RunOptions::default();
    let mut log = Log { lines: Vec::new(), stop_at: None, stop: Arc::new(AtomicBool::new(false)) };
    let err = run_loop(&tiny_siguo(), &out, &options, &mut log).unwrap_err().to_string();
    assert!(err.contains("no comma"), "{err}");
    assert!(!out.join("loop.toml").exists());
    let _ = std::fs::remove_dir_all(&out);
}
