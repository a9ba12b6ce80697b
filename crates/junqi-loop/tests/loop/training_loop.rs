//! `run_loop` end to end with a tiny config: every stage writes its output,
//! the state records each generation, a finished loop resumes to nothing,
//! more generations continue it, another config is refused, and a loop
//! stopped inside a stage resumes that stage only.

use crate::common::temp_dir;
use junqi_bots::BotSpec;
use junqi_loop::{run_loop, LoopConfig, LoopError, LoopObserver, SprtGate};
use junqi_net::register_net_bots;
use junqi_selfplay::{Resign, RunOptions};
use junqi_train::DeviceChoice;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Lines(Vec<String>);
impl LoopObserver for Lines {
    fn stage(&mut self, label: &str, _total: u64) {
        self.0.push(format!("stage {label}"));
    }
    fn line(&mut self, text: &str) {
        self.0.push(text.to_string());
    }
}

/// Sets the stop flag (as Ctrl-C does) when a stage whose label starts with
/// `at` begins, then spends `STOPPED_STAGE` inside that stage.
struct StopAt(&'static str, Arc<AtomicBool>, Vec<String>);
const STOPPED_STAGE: Duration = Duration::from_millis(1000);
impl LoopObserver for StopAt {
    fn stage(&mut self, label: &str, _total: u64) {
        self.2.push(format!("stage {label}"));
        if label.starts_with(self.0) {
            self.1.store(true, Ordering::SeqCst);
            std::thread::sleep(STOPPED_STAGE);
        }
    }
    fn line(&mut self, text: &str) {
        self.2.push(text.to_string());
    }
}

/// One loop at a time: the nets' inference services and their counters
/// are process-wide, and a loop releases them between generations, so two
/// loops in parallel would count each other's positions (or none).
pub(crate) fn one_loop_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOOPS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOOPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn tiny() -> LoopConfig {
    let mut c =
        LoopConfig { generations: 2, threads: 4, window_generations: 2, steps_per_generation: 6, ..Default::default() };
    c.rules_set = vec!["max_plies=80".into()];
    c.bootstrap.bot = BotSpec::new("greedy");
    c.bootstrap.games = 8;
    c.selfplay.games = 4;
    c.selfplay.sims = 4;
    c.evaluate.games = 4;
    c.evaluate.sims = 2;
    c.evaluate.anchor = BotSpec::new("random");
    c.evaluate.anchor_games = 4;
    c.train.device = DeviceChoice::Cpu;
    c.train.model.blocks = 1;
    c.train.model.channels = 8;
    c.train.model.value_planes = 1;
    c.train.model.value_hidden = 8;
    c.train.optim.batch_size = 16;
    c.train.optim.warmup_steps = 0;
    c.train.data.shuffle_buffer = 500;
    // Any value below 1 resigns from ply 4; half the games play through.
    c.selfplay.resign = Some(Resign { threshold: 1.0, consecutive: 1, min_ply: 4, playthrough: 0.5 });
    c.selfplay.resign_false_rate = 0.0;
    c
}

#[test]
fn a_gumbel_loop_gates_by_sprt_and_records_its_resignation_threshold() {
    let _serial = one_loop_at_a_time();
    register_net_bots();
    // A comma, `=` and a quote in the path: net paths go into bot specs
    // (quoted there), which once forbade such run directories.
    let out = temp_dir(r#"gumbel-loop,a=b"q""#);
    let options = RunOptions { threads: 2, ..Default::default() };
    let mut c = tiny();
    c.selfplay.search = "gumbel".into();
    c.selfplay.considered = 4;
    c.selfplay.resign_false_rate = 0.05;
    c.evaluate.sprt = Some(SprtGate { max_games: 8, ..SprtGate::default() });
    let mut log = Lines(Vec::new());
    let state = run_loop(&c, &out, &options, &mut log).unwrap();
    let g1 = &state.generations[1];
    assert!(g1.selfplay_bot.contains(",search=gumbel,k=4,"), "{}", g1.selfplay_bot);
    assert!(!g1.selfplay_bot.contains("temp="), "the Gumbel draw samples: {}", g1.selfplay_bot);
    let gate = g1.gate.as_ref().expect("the gate ran");
    assert!(gate.games >= 4 && gate.games <= 8, "{gate:?}");
    assert_eq!(g1.promoted, gate.verdict == "H1", "{gate:?}");
    assert!(gate.lower < 0.0 && gate.upper > 0.0);
    // Too few play-through games to calibrate: the configured threshold.
    assert_eq!(g1.resign_threshold, Some(1.0));
    assert_eq!(state.generations[0].resign_threshold, None, "the bootstrap never resigns");
    assert!(out.join("gen-001/gate/sprt.json").is_file());
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains(&format!("SPRT {} after {} games", gate.verdict, gate.games)), "{summary}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_loop_runs_resumes_and_refuses_another_config() {
    let _serial = one_loop_at_a_time();
    register_net_bots();
    let out = temp_dir("loop");
    let options = RunOptions { threads: 2, ..Default::default() };
    let mut log = Lines(Vec::new());
    let state = run_loop(&tiny(), &out, &options, &mut log).unwrap();
    assert_eq!(state.generations.len(), 2, "{:?}", log.0);
    for (i, g) in state.generations.iter().enumerate() {
        assert!(g.done && g.index == i as u32);
        assert!(out.join(g.net.as_ref().unwrap()).is_file());
        assert!(g.elo_vs_anchor.is_some());
        assert!(g.selfplay_games > 0 && g.selfplay_plies > 0);
    }
    assert_eq!(state.generations[0].selfplay_bot, "greedy");
    assert!(state.generations[1].selfplay_bot.starts_with("mcts:sims=4,"), "{}", state.generations[1].selfplay_bot);
    assert!(state.generations[1].selfplay_bot.contains("eval=net:"));
    assert!(state.generations[1].inference_positions > 0 && state.generations[1].inference_batches > 0);
    // The bootstrap never resigns; every net game resigns or, played
    // through, records that it would have.
    let g0 = &state.generations[0];
    assert_eq!((g0.resign.resigned, g0.resign.signalled), (0, 0));
    let g1 = &state.generations[1];
    assert_eq!(g1.resign.resigned + g1.resign.signalled, g1.selfplay_games, "{g1:?}");
    assert!(g1.resign.false_resignations <= g1.resign.signalled);
    assert_eq!(state.generations[0].train_step, 6);
    assert_eq!(state.generations[1].train_step, 12);
    assert!(state.generations[1].score_vs_best.unwrap()[0].is_finite());
    assert!(state.best.is_some());
    for f in [
        "loop.toml",
        "state.json",
        "elo.csv",
        "elo.svg",
        "summary.md",
        "gen-001/eval-best",
        "gen-001/eval-anchor",
        "train/tb",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("elo.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    // The loop's own scalars in TensorBoard, one point per generation.
    let tb = junqi_train::read_scalars(&out.join(junqi_loop::tb::LOOP_TB_DIR)).unwrap();
    let series = |tag: &str| tb.iter().filter(|e| e.tag == tag).map(|e| (e.step, e.value)).collect::<Vec<_>>();
    let elo: Vec<(u64, f32)> =
        state.generations.iter().map(|g| (g.index as u64, g.elo_vs_anchor.unwrap()[0] as f32)).collect();
    assert_eq!(series("elo/random"), elo);
    assert_eq!(series("selfplay/games").len(), 2);
    assert_eq!(series("best/score"), [(1, state.generations[1].score_vs_best.unwrap()[0] as f32)]);
    assert_eq!(series("resign/threshold").len(), 1, "the net's self-play resigns, the bootstrap's does not");
    assert!(series("selfplay/positions_per_s").iter().all(|p| p.1 > 0.0));
    assert!(series("train/belief_loss").is_empty(), "no belief head");

    // Finished: the same command does nothing more.
    let mut again = Lines(Vec::new());
    let same = run_loop(&tiny(), &out, &options, &mut again).unwrap();
    let key = |g: &junqi_loop::Generation| (g.index, g.net.clone(), g.train_step, g.selfplay_games, g.done);
    let keys = |s: &junqi_loop::LoopState| s.generations.iter().map(key).collect::<Vec<_>>();
    assert_eq!(keys(&same), keys(&state));
    assert!(again.0.iter().all(|l| !l.starts_with("stage")), "{:?}", again.0);

    // One generation more continues from the state, also rated against a
    // second anchor (further anchors may change on a resume; the finished
    // generations are rated against it first).
    let mut more = tiny();
    more.generations = 3;
    more.evaluate.more_anchors = vec![BotSpec::new("greedy")];
    let mut log3 = Lines(Vec::new());
    let longer = run_loop(&more, &out, &options, &mut log3).unwrap();
    assert_eq!(longer.generations.len(), 3);
    assert_eq!(keys(&longer)[..2], keys(&state)[..]);
    assert_eq!(longer.generations[2].train_step, 18);
    for g in &longer.generations {
        let second = &g.elo_vs_more;
        assert_eq!(second.len(), 1, "{second:?}");
        assert_eq!(second[0].anchor, "greedy");
        assert!(second[0].elo[1] <= second[0].elo[0] && second[0].elo[0] <= second[0].elo[2], "{second:?}");
        assert!(out.join(format!("gen-{:03}/eval-vs-greedy", g.index)).is_dir());
    }
    assert!(log3.0.iter().any(|l| l.starts_with("gen 0: Elo") && l.ends_with("against greedy")), "{:?}", log3.0);
    // One row per generation and anchor: three against random, three against greedy.
    let long = std::fs::read_to_string(out.join("elo_anchors.csv")).unwrap();
    assert_eq!(long.lines().filter(|l| l.contains("\"random\"")).count(), 3, "{long}");
    assert_eq!(long.lines().filter(|l| l.contains("\"greedy\"")).count(), 3, "{long}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Elo vs `random` | Elo vs `greedy`"), "{summary}");
    let chart = std::fs::read_to_string(out.join("elo.svg")).unwrap();
    assert!(chart.contains("vs random") && chart.contains("vs greedy"), "{chart}");
    // The resume wrote only what it added: the backfilled Elo against
    // greedy and the third generation; the finished run nothing.
    let tb = junqi_train::read_scalars(&out.join(junqi_loop::tb::LOOP_TB_DIR)).unwrap();
    let steps = |tag: &str| tb.iter().filter(|e| e.tag == tag).map(|e| e.step).collect::<Vec<_>>();
    assert_eq!(steps("elo/greedy"), [0, 1, 2]);
    assert_eq!(steps("elo/random"), [0, 1, 2]);
    assert_eq!(std::fs::read_dir(out.join("tb")).unwrap().count(), 2, "one event file per run that wrote");
    assert_eq!(chart.matches("<polyline").count(), 2, "{chart}");

    // Another config in the same directory is refused.
    let mut other = tiny();
    other.selfplay.sims = 5;
    let err = run_loop(&other, &out, &options, &mut Lines(Vec::new())).unwrap_err().to_string();
    assert!(err.contains("another config"), "{err}");
}

#[test]
fn bad_loop_configs_say_why() {
    let err = |text: &str| LoopConfig::from_toml(text).unwrap_err().to_string();
    assert!(err("mode = \"chess\"").contains("mode"));
    assert!(err("threads = 5000").contains("threads"));
    assert!(LoopConfig::from_toml("threads = 0").is_ok(), "0 = one worker per core");
    assert!(err("[evaluate]\ngames = 3").contains("even"));
    assert!(err("[bootstrap]\nbot = \"nope\"").contains("bootstrap.bot"));
    assert!(err("colour = 1").contains("unknown field"));
    assert!(err("[selfplay]\nsamples_per_game = \"x\"").contains("samples_per_game"));
    // Later generations' bots are checked before the bootstrap is played.
    assert!(err("[selfplay]\nnoise = 2").contains("selfplay"), "{}", err("[selfplay]\nnoise = 2"));
    assert!(err("[evaluate]\nmix = 3").contains("mix"));
    assert!(err("[selfplay.resign]\nplaythrough = 1.5").contains("selfplay.resign"));
    assert!(err("[selfplay]\nqtemp = -1").contains("qtemp"));
    assert!(err("[selfplay]\nqtemp = 0.1\nsims = 0").contains("qtemp"));
    let q = LoopConfig::from_toml("[selfplay]\nqtemp = 0.1\n").unwrap();
    assert!(q.selfplay_bot(std::path::Path::new("n.safetensors")).to_string().contains(",qtemp=0.1,"));
    assert!(err("[selfplay.resign]\nthreshhold = 0.5").contains("unknown field"));
    assert!(err("[selfplay]\nsearch = \"alphabeta\"").contains("selfplay.search"));
    assert!(err("[selfplay]\nsearch = \"gumbel\"\nqtemp = 0.1").contains("qtemp"));
    assert!(err("[selfplay]\nsearch = \"gumbel\"\nsims = 0").contains("needs a search"));
    assert!(err("[selfplay]\nresign_false_rate = 1.5").contains("resign_false_rate"));
    assert!(err("[evaluate.sprt]\nelo1 = -5").contains("evaluate.sprt"));
    assert!(err("[evaluate.sprt]\nmax_games = 10").contains("max_games"));
    let g = LoopConfig::from_toml("[selfplay]\nsearch = \"gumbel\"\n[evaluate.sprt]\nelo1 = 20\n").unwrap();
    assert_eq!(g.evaluate.sprt, Some(SprtGate { elo1: 20.0, ..SprtGate::default() }));
    let t = LoopConfig::from_toml("[selfplay]\nsearch = \"gumbel\"\n[evaluate.sprt]\nat_limit = \"llr\"\n").unwrap();
    assert_eq!(t.evaluate.sprt.map(|s| s.at_limit), Some(junqi_loop::AtLimit::Llr));
    assert!(err("[evaluate.sprt]\nat_limit = \"maybe\"").contains("at_limit"));
    assert_eq!(LoopConfig::from_toml(&g.to_toml()).unwrap(), g);
    assert!(g.eval_bot(std::path::Path::new("n.safetensors")).to_string().contains(",search=gumbel,k=16,gscale=0,"));
    assert!(LoopConfig::from_toml("").is_ok());
    // Resignation: keys left out take their defaults; the config round-trips.
    let c = LoopConfig::from_toml("[selfplay.resign]\nthreshold = -0.8\n").unwrap();
    assert_eq!(c.selfplay.resign, Some(Resign { threshold: -0.8, ..Resign::default() }));
    assert_eq!(LoopConfig::from_toml(&c.to_toml()).unwrap(), c);
    assert_eq!(LoopConfig::from_toml("").unwrap().selfplay.resign, None);
}

#[test]
fn a_loop_stopped_in_a_stage_resumes_without_redoing_finished_ones() {
    let _serial = one_loop_at_a_time();
    register_net_bots();
    let out = temp_dir("loop-stop");
    let saved_minutes = || -> f64 {
        let text = std::fs::read_to_string(out.join("state.json")).unwrap_or_default();
        serde_json::from_str::<junqi_loop::LoopState>(&text).map(|s| s.minutes).unwrap_or(0.0)
    };
    for at in ["gen 1: training", "gen 1: net 1 vs best", "gen 1: net 1 vs random"] {
        let options = RunOptions { threads: 2, ..Default::default() };
        let mut stopper = StopAt(at, options.stop.clone(), Vec::new());
        let before = saved_minutes();
        let clock = Instant::now();
        match run_loop(&tiny(), &out, &options, &mut stopper) {
            Err(LoopError::Interrupted(m)) => assert!(m.contains("resume"), "{m}"),
            other => panic!("stopping at `{at}`: {other:?}"),
        }
        // Resumed by the same build: nothing to say about versions.
        assert!(!stopper.2.iter().any(|l| l.contains("resuming a loop")), "{:?}", stopper.2);
        // The stopped stage's time (the observer's second) counts too.
        let counted = (saved_minutes() - before) * 60.0;
        let unsaved = clock.elapsed().as_secs_f64() - counted;
        assert!(unsaved < STOPPED_STAGE.as_secs_f64() / 2.0, "stopping at `{at}`: {unsaved:.2} s not in state.minutes");
    }
    // As if an older build had run the loop so far: the resume says so, the
    // finished generation keeps its version, the one finished now records this build's.
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    saved["code_version"] = "0.0.0+older".into();
    saved["generations"][0]["code_version"] = "0.0.0+older".into();
    // Generation 1 was started by the older build too: it records the build that finishes it.
    saved["generations"][1]["code_version"] = "0.0.0+older".into();
    std::fs::write(out.join("state.json"), serde_json::to_string_pretty(&saved).unwrap()).unwrap();
    let mut log = Lines(Vec::new());
    let state = run_loop(&tiny(), &out, &RunOptions { threads: 2, ..Default::default() }, &mut log).unwrap();
    let now = junqi_selfplay::code_version();
    assert!(log.0.iter().any(|l| l.contains("code version 0.0.0+older") && l.contains(&now)), "{:?}", log.0);
    assert_eq!(state.generations[0].code_version, "0.0.0+older");
    assert_eq!(state.generations[1].code_version, now);
    assert_eq!(state.code_version, now);
    assert_eq!(state.generations.len(), 2);
    assert_eq!(state.generations[1].train_step, 12);
    assert_eq!(state.generations[1].selfplay_games, 4, "self-play counted once");
    // Only the interrupted evaluation against the anchor was left to do.
    let stages: Vec<&String> = log.0.iter().filter(|l| l.starts_with("stage")).collect();
    assert_eq!(stages.len(), 1, "{stages:?}");
    assert!(stages[0].contains("vs random"), "{stages:?}");
}

/// Every shipped loop config parses and passes the checks, and the one-hour
/// runs' recorded configs (`data/nets/*/loop.toml`) are the configs shipped
/// under their name, so the BENCHMARKS.md commands reproduce them.
#[test]
fn shipped_loop_configs_are_valid_and_match_the_recorded_runs() {
    register_net_bots(); // configs whose bots search with a shipped net (checked without relying on other tests)
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("configs/loop")).unwrap() {
        let path = entry.unwrap().path();
        let config = LoopConfig::from_toml(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        config.check().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        seen += 1;
    }
    assert!(seen >= 3, "{seen} loop configs");
    // The quick config says, when it runs, that its Elo measures nothing.
    let quick = LoopConfig::from_toml(&std::fs::read_to_string(root.join("configs/loop/quickstart.toml")).unwrap());
    assert!(quick.unwrap().about.contains("only demonstrates the cycle"));
    for name in ["fanqi-1h", "fanqi-1h-bilinear", "fanqi-gumbel", "anqi", "anqi-q", "siguo"] {
        let read = |p: std::path::PathBuf| LoopConfig::from_toml(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let shipped = read(root.join(format!("configs/loop/{name}.toml")));
        let mut recorded = read(root.join(format!("data/nets/{name}/loop.toml")));
        // The record keeps the name the starting net had then.
        if recorded.train.init.as_deref() == Some(std::path::Path::new("data/nets/default.safetensors")) {
            recorded.train.init = Some("data/nets/fanqi-1h-bilinear.safetensors".into());
        }
        assert_eq!(shipped, recorded, "{name}");
    }
}

/// 暗棋 end to end: a net with a belief head learns from the samples' hidden
/// kinds, each generation's net file carries a deployment model fitted to
/// the window's games, and the net bots deploy with it (legally, and not
/// always the same way).
#[test]
fn an_anqi_loop_trains_the_belief_head_and_learns_deployments() {
    let _serial = one_loop_at_a_time();
    register_net_bots();
    let out = temp_dir("anqi-loop");
    let options = RunOptions { threads: 2, ..Default::default() };
    let mut c = tiny();
    c.mode = "anqi".into();
    c.rules_set = vec!["max_plies=400".into()]; // some games end (all draws would teach the fit nothing)
    c.train.model.belief = true;
    c.selfplay.resign = None;
    let mut log = Lines(Vec::new());
    let state = run_loop(&c, &out, &options, &mut log).unwrap();
    for g in &state.generations {
        let belief = g.belief_loss.expect("a belief loss");
        assert!(belief > 0.0 && belief < 3.0, "gen {}: belief loss {belief}", g.index);
        let deploy = g.deploy_loss.expect("a deployment fit");
        assert!(deploy > 0.0 && deploy <= std::f64::consts::LN_2 + 1e-3, "gen {}: deployment loss {deploy}", g.index);
    }
    assert!(log.0.iter().any(|l| l.contains("belief loss") && l.contains("deployments fitted to 16")), "{:?}", log.0);
    let net = out.join("nets/net-001.safetensors");
    let file = junqi_net::NetFile::read(&net).unwrap();
    assert!(file.model.belief);
    let model = file.deployment_model().unwrap().expect("a deployment model in the net file");
    assert!(model.weights.iter().any(|&w| w != 0.0));
    let mut bot = junqi_bots::from_spec(&format!("net:{}", net.display())).unwrap();
    let rules = junqi_core::Rules::preset(junqi_core::Mode::Anqi);
    let mut rng = junqi_core::rng_from_seed(1);
    let deployments: Vec<_> = (0..10).map(|_| bot.deploy(junqi_core::Colour::Black, &rules, &mut rng)).collect();
    assert!(deployments.iter().all(|d| d.validate().is_ok()));
    assert!(deployments.windows(2).any(|w| w[0] != w[1]));
    // In 翻棋 there is nothing to deploy: no fit.
    assert!(!LoopConfig::default().learns_deployments().unwrap());
    let _ = std::fs::remove_dir_all(&out);
}
