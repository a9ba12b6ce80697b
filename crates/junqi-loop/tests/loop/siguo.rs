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
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The log; when a stage starting with `stop_at` begins, a watcher sets
/// `stop` (as Ctrl-C does) once that stage has finished `after_games`
/// games: a stop part-way through its games.
struct Log {
    lines: Vec<String>,
    stop_at: Option<&'static str>,
    after_games: u64,
    options: RunOptions,
}
impl Log {
    fn new(options: &RunOptions) -> Log {
        Log { lines: Vec::new(), stop_at: None, after_games: 0, options: options.clone() }
    }
    fn stopping(options: &RunOptions, stop_at: &'static str, after_games: u64) -> Log {
        Log { stop_at: Some(stop_at), after_games, ..Log::new(options) }
    }
}
impl LoopObserver for Log {
    fn stage(&mut self, label: &str, _total: u64) {
        self.lines.push(format!("stage {label}"));
        if self.stop_at.is_some_and(|s| label.starts_with(s)) {
            let (progress, stop, after) = (self.options.progress.clone(), self.options.stop.clone(), self.after_games);
            std::thread::spawn(move || {
                let began = Instant::now();
                while began.elapsed() < Duration::from_secs(60) {
                    if progress.games.load(Ordering::SeqCst) >= after {
                        stop.store(true, Ordering::SeqCst);
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
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

/// What a resumed run must repeat exactly: every generation's games,
/// plies, gate, scores and ratings (not its times or net-cache counts).
fn outcomes(state: &junqi_loop::LoopState, out: &std::path::Path) -> Vec<String> {
    let g = |g: &junqi_loop::Generation| {
        format!(
            "{} {} {} {} {:?} {:?} {:?} {:?} {} {}",
            g.index,
            g.selfplay_bot.replace(out.to_str().unwrap(), "RUN"),
            g.selfplay_games,
            g.selfplay_plies,
            g.gate.as_ref().map(|x| (x.games, x.llr.to_bits(), x.verdict.clone())),
            g.score_vs_best.map(|x| x.map(f64::to_bits)),
            g.elo_vs_anchor.map(|x| x.map(f64::to_bits)),
            g.elo_vs_more.iter().map(|x| (x.anchor.clone(), x.elo.map(f64::to_bits))).collect::<Vec<_>>(),
            g.promoted,
            g.train_step
        )
    };
    state.generations.iter().map(g).collect()
}

#[test]
fn a_four_player_loop_trains_gates_rates_and_resumes_where_it_stopped() {
    let _serial = one_loop_at_a_time();
    register_net_bots();
    let mut config = tiny_siguo();
    config.evaluate.more_anchors = vec![BotSpec::new("greedy")];
    let options = RunOptions { threads: 2, ..Default::default() };
    // Straight through.
    let straight = temp_dir("siguo-loop-straight");
    let state = run_loop(&config, &straight, &options, &mut Log::new(&options)).unwrap();
    // Stopped part-way through generation 1's self-play, its gate and its
    // first anchor's games (each a stop after one finished game), resumed
    // each time with the same command: the same loop.
    let out = temp_dir("siguo-loop");
    for stop_at in ["gen 1: four-player self-play", "gen 1: SPRT", "gen 1: net 1 vs random"] {
        let options = RunOptions { threads: 2, ..Default::default() };
        let err = run_loop(&config, &out, &options, &mut Log::stopping(&options, stop_at, 1)).unwrap_err();
        assert!(err.to_string().contains("run the same command to resume"), "{stop_at}: {err}");
    }
    let mut log = Log::new(&options);
    let resumed = run_loop(&config, &out, &options, &mut log).unwrap();
    assert!(!log.lines.iter().any(|l| l.starts_with("stage gen 0")), "generation 0 was done: {:?}", log.lines);
    assert_eq!(outcomes(&resumed, &out), outcomes(&state, &straight), "a resumed loop repeats the uninterrupted one");
    assert_eq!(state.generations.len(), 2, "{:?}", log.lines);

    let (g0, g1) = (&state.generations[0], &state.generations[1]);
    assert_eq!(g0.selfplay_bot, "greedy");
    assert_eq!(g0.selfplay_games, 8);
    assert!(g1.selfplay_bot.starts_with("mcts:sims=4,search=gumbel,k=2,eval=net:path="), "{}", g1.selfplay_bot);
    assert_eq!(g1.selfplay_games, 4);
    assert!(g1.inference_positions > 0, "the net's search played generation 1: {g1:?}");
    for g in [g0, g1] {
        let net = straight.join(g.net.as_ref().expect("a net"));
        // A four-player net, with the deployment model fitted to every army of the window's games.
        let file = NetFile::read_game(&net, NetGame::Siguo).unwrap();
        assert!(file.deployment_model().unwrap().is_some(), "{}", net.display());
        assert!(g.deploy_loss.is_some_and(|l| l.is_finite()) && g.belief_loss.is_some(), "{g:?}");
        let elo = g.elo_vs_anchor.expect("rated against the anchor");
        assert!(elo[1] <= elo[0] && elo[0] <= elo[2], "{elo:?}");
        assert!(straight.join(format!("gen-{:03}/eval-anchor/results.md", g.index)).is_file());
        assert!(g.elo_against(&config, "greedy").is_some(), "rated against the further anchor");
    }
    assert_eq!(g0.train_step, 6);
    assert_eq!(g1.train_step, 12);
    // The gate: four-player paired batches, the candidate's search (without
    // the Gumbel draw) as team A against the best net's.
    let gate = g1.gate.as_ref().expect("the gate ran");
    assert!(gate.games >= 4 && gate.games <= 8 && gate.games % 4 == 0, "{gate:?}");
    // The default gate promotes on an accepted H1 only.
    assert_eq!(g1.promoted, gate.verdict == "H1", "{gate:?}");
    let batch = straight.join("gen-001/gate/batches/00000");
    let gate_games: Vec<_> =
        shard_files(&batch.join(GAMES_DIR)).unwrap().iter().flat_map(|f| read_siguo_games_file(f).unwrap()).collect();
    assert_eq!(gate_games.len(), 4);
    let (candidate, best) = (&gate_games[0].bots[0], &gate_games[0].bots[1]);
    assert!(candidate.contains("gscale=0") && candidate.contains("net-001.safetensors"), "{candidate}");
    assert!(best.contains("gscale=0") && best.contains("net-000.safetensors"), "{best}");
    // Generation 1's games: its own search on both teams, each army
    // deployed by the best net's learned model, not as dealt.
    let mut played = 0;
    for shard in shard_files(&straight.join("gen-001/selfplay").join(GAMES_DIR)).unwrap() {
        for game in read_siguo_games_file(&shard).unwrap() {
            assert!(game.bots.iter().all(|b| *b == g1.selfplay_bot), "{:?}", game.bots);
            let rules = junqi_siguo::Rules::from_toml_str(&game.rules).unwrap();
            let start = junqi_siguo::parse(&game.start, rules).unwrap();
            assert_ne!(start, junqi_siguo::Position::new_game(rules, game.seed), "game {}", game.game_id);
            played += 1;
        }
    }
    assert_eq!(played, 4);
    for f in ["loop.toml", "state.json", "elo.csv", "elo.svg", "summary.md"] {
        assert!(straight.join(f).is_file(), "{f}");
    }
    // Finished: the same command does nothing more.
    let mut again = Log::new(&options);
    let state2 = run_loop(&config, &straight, &options, &mut again).unwrap();
    assert_eq!(outcomes(&state2, &straight), outcomes(&state, &straight));
    assert!(again.lines.iter().all(|l| !l.starts_with("stage")), "{:?}", again.lines);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&straight);
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
    refused(&|c| c.selfplay.c = 2.0, "selfplay.c");
    refused(&|c| c.selfplay.deploy = "heuristic".into(), "selfplay.deploy");
    refused(&|c| c.selfplay.games = 5, "must be even");
    refused(&|c| c.selfplay.considered = 1001, "considered 1 to 1000");
    refused(&|c| c.train.data.value_target_search = 0.5, "data.value_target_search");
    refused(&|c| c.train.data.policy_target_return = 1.0, "data.policy_target_return");
    // A run directory the four-player bot specs cannot name.
    for name in ["siguo,comma", "siguo|bar", "siguo\"quote"] {
        let out = temp_dir(name);
        let options = RunOptions::default();
        let err = run_loop(&tiny_siguo(), &out, &options, &mut Log::new(&options)).unwrap_err().to_string();
        assert!(err.contains("may hold no comma"), "{err}");
        assert!(!out.join("loop.toml").exists());
        let _ = std::fs::remove_dir_all(&out);
    }
}
