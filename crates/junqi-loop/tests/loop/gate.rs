//! The loop's SPRT gate: a net against a copy of itself is promoted no more
//! often than the test's error rate allows (also when an undecided test is
//! settled by its log-likelihood ratio), and a clearly stronger bot is.

use crate::common::temp_dir;
use junqi_bots::BotSpec;
use junqi_core::{Mode, Rules};
use junqi_loop::{sprt_gate, AtLimit, SprtGate};
use junqi_net::{register_net_bots, ModelConfig, NetFile};
use junqi_selfplay::RunOptions;

#[test]
fn a_net_against_its_copy_is_rarely_promoted_and_a_stronger_bot_is() {
    // The loops' tests count the shared services' work: not beside them.
    let _loops = crate::training_loop::one_loop_at_a_time();
    register_net_bots();
    let dir = temp_dir("gate");
    let model = ModelConfig { blocks: 1, channels: 8, value_planes: 1, value_hidden: 8, ..ModelConfig::default() };
    let net = NetFile::random(&model, 7);
    let (a, b) = (dir.join("a.safetensors"), dir.join("b.safetensors"));
    net.write(&a).unwrap();
    std::fs::copy(&a, &b).unwrap();
    let mut rules = Rules::preset(Mode::Fanqi);
    rules.apply_override("max_plies=200").unwrap();
    // Sampled from the policy, so the games of a pair differ.
    let net = |path: &std::path::Path| BotSpec::new("net").with("path", path.display()).with("temp", 1);
    let (bot_a, bot_b) = (net(&a), net(&b));
    let gate = SprtGate { elo0: 0.0, elo1: 80.0, alpha: 0.05, beta: 0.1, max_games: 240, at_limit: AtLimit::Keep };
    // The same games decide the truncated gate too (the rule only reads the record).
    let truncated = SprtGate { at_limit: AtLimit::Llr, ..gate };
    let options = RunOptions { threads: 2, ..RunOptions::default() };
    let runs = 40;
    let (mut promoted, mut promoted_truncated, mut at_limit) = (0, 0, 0);
    let mut games = 0;
    for run in 0..runs {
        let (record, _) =
            sprt_gate(&rules, [&bot_a, &bot_b], 24, &gate, run, &dir.join(format!("copy-{run}")), &options).unwrap();
        assert!(["H0", "H1", "limit"].contains(&record.verdict.as_str()));
        assert_eq!(gate.promotes(&record.verdict, record.llr), record.verdict == "H1");
        promoted += (record.verdict == "H1") as u32;
        promoted_truncated += truncated.promotes(&record.verdict, record.llr) as u32;
        at_limit += (record.verdict == "limit") as u32;
        games += record.games;
    }
    eprintln!(
        "copy promoted in {promoted} of {runs} tests ({promoted_truncated} truncated), {at_limit} undecided, {games} games"
    );
    // Equal strength: each test accepts H1 with probability at most about
    // alpha = 5%, so 2 of 40 on average; 8 or more has probability 0.1%.
    assert!(promoted < 8, "a copy was promoted {promoted} times in {runs} tests ({games} games)");
    // Settling the undecided ones by the sign of the LLR adds few: past the
    // middle (+40 Elo) after 240 games is about a 2-sigma event for a copy.
    assert!(promoted_truncated < 10, "truncated: a copy was promoted {promoted_truncated} times in {runs} tests");
    assert!(promoted_truncated >= promoted);

    // The gate can pass: greedy against random.
    let (record, score) = sprt_gate(
        &rules,
        [&BotSpec::new("greedy"), &BotSpec::new("random")],
        24,
        &gate,
        99,
        &dir.join("strong"),
        &options,
    )
    .unwrap();
    assert_eq!(record.verdict, "H1", "{record:?} score {score:?}");
    assert!(truncated.promotes(&record.verdict, record.llr));
    assert!(score[0] > 0.6, "{score:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rule for a test that reached its limit, case by case.
#[test]
fn an_undecided_gate_promotes_only_when_told_to_and_the_llr_favours_h1() {
    let keep = SprtGate::default();
    let llr = SprtGate { at_limit: AtLimit::Llr, ..keep };
    for gate in [keep, llr] {
        assert!(gate.promotes("H1", 3.0));
        assert!(!gate.promotes("H0", -3.0));
        assert!(!gate.promotes("limit", -0.5));
        assert!(!gate.promotes("limit", 0.0));
    }
    assert!(!keep.promotes("limit", 2.8));
    assert!(llr.promotes("limit", 2.8));
    assert!(llr.promotes("limit", 0.01));
}
