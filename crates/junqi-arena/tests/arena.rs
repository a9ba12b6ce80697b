//! Arenas, tests and studies end to end on tiny game counts: pairing, resume,
//! the statistics against the games on disk.

use junqi_arena::arena::{run_arena, ArenaConfig, Schedule};
use junqi_arena::sprt::{run_sprt, SprtConfig};
use junqi_arena::study::{run_study, to_csv, StudyConfig, Variant};
use junqi_arena::{matchup_config, play_matchup};
use junqi_core::{Mode, Rules};
use junqi_selfplay::{read_games_file, shard_files, RunOptions, GAMES_DIR};
use junqi_stats::Decision;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-arena-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn options() -> RunOptions {
    RunOptions { threads: 2, ..Default::default() }
}

/// The two games of a pair share their seed and start position and swap the seats.
#[test]
fn paired_games_share_their_deal_and_swap_seats() {
    for mode in [Mode::Fanqi, Mode::Anqi] {
        let dir = temp_dir(&format!("pairs-{mode:?}"));
        let config = matchup_config(Rules::preset(mode), ["random", "greedy"], 12, 5).unwrap();
        let results = play_matchup(config, &dir, &options()).unwrap().results;
        assert_eq!(results.len(), 12);
        let mut games: Vec<_> =
            shard_files(&dir.join(GAMES_DIR)).unwrap().iter().flat_map(|f| read_games_file(f).unwrap()).collect();
        games.sort_by_key(|g| g.game_id);
        let mut starts = std::collections::HashSet::new();
        for pair in games.chunks_exact(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert_eq!(a.seed, b.seed);
            // Both bots deploy uniformly at random from their seat's stream of the seed: the same start.
            assert_eq!(a.start_jfen, b.start_jfen, "{mode:?} game {}", a.game_id);
            assert_eq!(a.bots, [b.bots[1].clone(), b.bots[0].clone()]);
            starts.insert(a.start_jfen.clone());
        }
        assert_eq!(starts.len(), 6, "each pair has its own deal");
        // Seat 1 alternates between the players; scores are the players' from the stored result.
        assert!(results.iter().all(|r| r.seat1 == (r.game_id % 2) as usize));
        for (r, g) in results.iter().zip(&games) {
            let expected = match g.result.as_str() {
                "1-0" => 1.0,
                "0-1" => 0.0,
                _ => 0.5,
            };
            assert_eq!(r.seat1_score, expected);
        }
    }
}

#[test]
fn an_arena_reports_what_its_games_say_and_resumes_without_replaying() {
    let dir = temp_dir("arena");
    let bots: Vec<String> = ["random", "greedy", "heuristic"].map(String::from).to_vec();
    let config = ArenaConfig::new(Rules::preset(Mode::Fanqi), &bots, Schedule::RoundRobin, 8, 3).unwrap();
    assert_eq!(config.matchups(), vec![(0, 1), (0, 2), (1, 2)]);
    let opts = options();
    let report = run_arena(&config, &dir, &opts, |_, _| {}).unwrap();
    assert_eq!(opts.progress.games.load(Ordering::Relaxed), 24);
    assert_eq!(report.anchor, "random");
    assert_eq!(report.bots[0].elo.value, 0.0);
    for (i, line) in report.bots.iter().enumerate() {
        assert_eq!(line.games, 16);
        // The crosstable's points agree with the bot's score.
        let points: f64 = report.crosstable[i].iter().flatten().map(|c| c.wins as f64 + 0.5 * c.draws as f64).sum();
        assert!((points / 16.0 - line.score).abs() < 1e-12);
        assert!(line.elo.low <= line.elo.value && line.elo.value <= line.elo.high);
        assert!(line.moves_per_s.is_some_and(|v| v > 0.0));
    }
    for m in &report.matchups {
        assert_eq!(m.penta.iter().sum::<u64>(), 4);
    }
    // The better score gets the higher Elo.
    let (g, h) = (&report.bots[1], &report.bots[2]);
    assert_eq!(g.score < h.score, g.elo.value < h.elo.value);
    // The ladder runs from the strongest to the weakest, leads from the same fit.
    assert_eq!(report.ladder.len(), 2);
    for step in &report.ladder {
        let elo = |b: &str| report.bots.iter().find(|l| l.bot == b).unwrap().elo.value;
        assert!((step.lead.value - (elo(&step.stronger) - elo(&step.weaker))).abs() < 1e-9);
        assert!(step.lead.value >= 0.0 && step.lead.low < step.lead.value);
    }
    let md = report.to_markdown();
    assert!(md.contains("| heuristic |") && md.contains("anchored at 0"), "{md}");
    assert!(!md.contains('†'), "no cheating bot, no cheat mark: {md}");

    // Again: nothing is played, the same statistics come back.
    let again = RunOptions { threads: 2, ..Default::default() };
    let report2 = run_arena(&config, &dir, &again, |_, _| {}).unwrap();
    assert_eq!(again.progress.games.load(Ordering::Relaxed), 0);
    assert_eq!(again.progress.resumed.load(Ordering::Relaxed), 24);
    for (a, b) in report.bots.iter().zip(&report2.bots) {
        assert_eq!((a.elo, a.score), (b.elo, b.score));
    }
    assert_eq!(report.crosstable, report2.crosstable);
    // Another arena in the same directory is refused.
    let other = ArenaConfig::new(Rules::preset(Mode::Fanqi), &bots, Schedule::Gauntlet, 8, 3).unwrap();
    let err = run_arena(&other, &dir, &options(), |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("holds other work"), "{err}");
}

#[test]
fn bad_arenas_are_refused() {
    let rules = Rules::preset(Mode::Fanqi);
    let one = vec!["random".to_string()];
    assert!(ArenaConfig::new(rules, &one, Schedule::RoundRobin, 8, 0).is_err());
    let twice = vec!["random".to_string(), "random".to_string()];
    assert!(ArenaConfig::new(rules, &twice, Schedule::RoundRobin, 8, 0).unwrap_err().to_string().contains("twice"));
    let two = vec!["random".to_string(), "greedy".to_string()];
    assert!(ArenaConfig::new(rules, &two, Schedule::RoundRobin, 7, 0).unwrap_err().to_string().contains("even"));
    assert!(ArenaConfig::new(rules, &["nope".to_string(), "random".to_string()], Schedule::RoundRobin, 8, 0).is_err());
}

#[test]
fn an_sprt_of_a_much_stronger_bot_accepts_h1_and_resumes_to_the_same_verdict() {
    let dir = temp_dir("sprt");
    let config = SprtConfig {
        rules: Rules::preset(Mode::Mingqi),
        candidate: "heuristic".parse().unwrap(),
        baseline: "random".parse().unwrap(),
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        batch_games: 8,
        max_games: 400,
        seed: 1,
        openings: None,
        timeouts: None,
    };
    let mut checks = 0;
    let outcome = run_sprt(&config, &dir, &options(), |_, _| checks += 1).unwrap();
    assert_eq!(outcome.summary.decision, Decision::AcceptH1);
    assert!(outcome.summary.llr > outcome.summary.bounds.upper);
    assert_eq!(outcome.games, 8 * checks);
    assert_eq!(outcome.summary.pairs * 2, outcome.games);
    let again = RunOptions { threads: 1, ..Default::default() };
    let resumed = run_sprt(&config, &dir, &again, |_, _| {}).unwrap();
    assert_eq!(again.progress.games.load(Ordering::Relaxed), 0);
    assert_eq!((resumed.games, resumed.summary.llr), (outcome.games, outcome.summary.llr));

    // Equal bots never accept H1 within a few batches; the limit stops the test.
    let dir = temp_dir("sprt-equal");
    let equal = SprtConfig {
        candidate: "greedy".parse().unwrap(),
        baseline: "greedy:epsilon=0.5".parse().unwrap(),
        max_games: 16,
        ..config
    };
    let out = run_sprt(&equal, &dir, &options(), |_, _| {}).unwrap();
    assert!(out.games <= 16);
}

#[test]
fn a_study_counts_every_game_once() {
    let dir = temp_dir("study");
    let mut trade = Rules::preset(Mode::Anqi);
    trade.apply_override("mine_rule=trade").unwrap();
    let config = StudyConfig {
        variants: vec![
            Variant { name: "anqi".into(), rules: Rules::preset(Mode::Anqi) },
            Variant { name: "anqi-trade".into(), rules: trade },
        ],
        bot: "greedy".parse().unwrap(),
        games: 20,
        seed: 2,
        precision: None,
        factorial: None,
    };
    let lines = run_study(&config, &dir, &options(), |_| {}).unwrap().lines;
    assert_eq!(lines.len(), 2);
    assert!(lines[0].changes.is_empty());
    assert_eq!(lines[1].changes, vec!["mine_rule=trade"]);
    for l in &lines {
        assert_eq!(l.wins.count + l.draws.count + l.losses.count, 20);
        assert_eq!(l.terminations.values().sum::<u64>(), 20);
        let score = (l.wins.count as f64 + 0.5 * l.draws.count as f64) / 20.0;
        assert_eq!(l.score.value, score);
        assert!(l.wins.low <= l.wins.rate && l.wins.rate <= l.wins.high);
        assert_eq!(l.significant, l.elo.low > 0.0 || l.elo.high < 0.0);
        assert!(l.median_plies > 0.0 && l.mean_plies > 0.0);
        // Corrections only ever raise a p-value; BH never above Holm.
        assert!(l.p_value <= l.p_bh && l.p_bh <= l.p_holm && l.p_holm <= 1.0, "{l:?}");
    }
    // The preset is the reference of the other variant, on the same seeds.
    assert!(lines[0].vs_preset.is_none());
    let d = lines[1].vs_preset.as_ref().expect("compared with the preset");
    assert_eq!(d.reference, "anqi");
    assert!((d.score.value - (lines[1].score.value - lines[0].score.value)).abs() < 1e-9);
    assert!(d.elo.low <= d.elo.value && d.elo.value <= d.elo.high);
    assert_eq!((d.p_holm, d.p_bh), (d.p_value, d.p_value), "one comparison: nothing to correct");
    let csv = to_csv(&lines);
    assert_eq!(csv.lines().count(), 3);
    assert_eq!(csv.lines().next().unwrap().split(',').count(), csv.lines().nth(1).unwrap().split(',').count());
}

/// `precision`: rounds until each variant's first-mover Elo interval is at
/// most ±E wide or the cap is reached, and no round more: without its last
/// round a variant was still short of the target. Resuming replays nothing.
#[test]
fn a_precision_study_stops_each_variant_at_its_target() {
    use junqi_arena::read_results;
    use junqi_arena::study::{variant_line, Precision};
    let dir = temp_dir("precision");
    let mut hidden = Rules::preset(Mode::Fanqi);
    hidden.apply_override("attack_hidden=true").unwrap();
    let variants = vec![
        Variant { name: "fanqi".into(), rules: Rules::preset(Mode::Fanqi) },
        Variant { name: "fanqi-hidden".into(), rules: hidden },
    ];
    let (round, target, cap) = (40, 90.0, 400);
    let config = StudyConfig {
        variants: variants.clone(),
        bot: "greedy".parse().unwrap(),
        games: round,
        seed: 4,
        precision: Some(Precision { elo: target, max_games: cap }),
        factorial: None,
    };
    let lines = run_study(&config, &dir, &options(), |_| {}).unwrap().lines;
    let mut rounds_played = Vec::new();
    for (k, (v, l)) in variants.iter().zip(&lines).enumerate() {
        let half = (l.elo.high - l.elo.low) / 2.0;
        assert!(half <= target || l.games + round > cap, "{}: ±{half:.0} after {} games", v.name, l.games);
        assert_eq!(l.games % round, 0);
        let rounds = l.games / round;
        rounds_played.push(rounds);
        if rounds > 1 {
            // Its results without the last round: still short of the target.
            let mut earlier = Vec::new();
            for r in 0..rounds - 1 {
                let seed = junqi_selfplay::game_seed(config.seed, r);
                let c = matchup_config(v.rules, ["greedy", "greedy"], round, seed).unwrap();
                let d = dir.join("variants").join(format!("{k:02}-{}", v.name)).join(format!("round-{r:05}"));
                earlier.extend(read_results(&c, &d).unwrap());
            }
            assert_eq!(earlier.len() as u64, (rounds - 1) * round, "{}: the earlier rounds on disk", v.name);
            let before = variant_line(v, &earlier).unwrap();
            assert!((before.elo.high - before.elo.low) / 2.0 > target, "{}: played a round too many", v.name);
        }
    }
    assert!(rounds_played.iter().any(|&r| r > 1), "the target needs more than one round: {rounds_played:?}");
    let again = run_study(&config, &dir, &options(), |_| {}).unwrap().lines;
    assert_eq!(again, lines);
}

/// A factorial study in precision rounds: the design's cells are the
/// variants, each plays until its target, and the effects are fitted on every
/// game played (the terms, the game count, and the seeds as clusters).
#[test]
fn a_factorial_study_in_rounds_fits_its_effects_on_every_game() {
    use junqi_arena::factorial::{design, Factor};
    use junqi_arena::study::{to_markdown, Precision};
    let dir = temp_dir("factorial");
    let base = Variant { name: "fanqi".into(), rules: Rules::preset(Mode::Fanqi) };
    let factors =
        vec![Factor::parse("attack_hidden=false,true").unwrap(), Factor::parse("no_progress_plies=40,70").unwrap()];
    let (factorial, variants) = design(&base, factors, false).unwrap();
    let config = StudyConfig {
        variants,
        bot: "greedy".parse().unwrap(),
        games: 20,
        seed: 6,
        precision: Some(Precision { elo: 120.0, max_games: 60 }),
        factorial: Some(factorial),
    };
    let result = run_study(&config, &dir, &options(), |_| {}).unwrap();
    assert_eq!(result.lines.len(), 4);
    let e = result.factorial.as_ref().expect("the effects");
    assert!(e.error.is_none(), "{e:?}");
    assert_eq!(e.games, result.lines.iter().map(|l| l.games).sum::<u64>());
    // Pair j of round r is one seed in every cell: the longest cell's pairs.
    assert_eq!(e.clusters as u64, result.lines.iter().map(|l| l.games).max().unwrap() / 2);
    let terms: Vec<&str> = e.lines.iter().map(|l| l.term.as_str()).collect();
    assert_eq!(
        terms,
        [
            "intercept (mean first-mover advantage)",
            "attack_hidden=true",
            "no_progress_plies=70",
            "attack_hidden=true × no_progress_plies=70"
        ]
    );
    for l in &e.lines {
        assert!(l.elo.low <= l.elo.value && l.elo.value <= l.elo.high, "{l:?}");
    }
    assert!(to_markdown(&config, &result).contains("## Factorial effects"));
    // Resumed: the same effects.
    let again = run_study(&config, &dir, &options(), |_| {}).unwrap();
    assert_eq!(again.factorial, result.factorial);
}

/// A variant whose option never comes into play (no greedy game nears 1,999
/// plies) plays every game exactly as the preset: flagged as never applied,
/// left out of the corrections, and said so in the report; a variant that
/// changes games is measured. The count is checked against the moves on disk.
#[test]
fn a_variant_that_never_applies_is_flagged_not_measured() {
    use junqi_arena::study::to_markdown;
    let dir = temp_dir("never-applied");
    let variant = |name: &str, set: Option<&str>| {
        let mut rules = Rules::preset(Mode::Anqi);
        if let Some(s) = set {
            rules.apply_override(s).unwrap();
        }
        Variant { name: name.into(), rules }
    };
    let config = StudyConfig {
        variants: vec![
            variant("anqi", None),
            variant("anqi-long", Some("max_plies=1999")),
            variant("anqi-trade", Some("mine_rule=trade")),
        ],
        bot: "greedy".parse().unwrap(),
        games: 20,
        seed: 3,
        precision: None,
        factorial: None,
    };
    let result = run_study(&config, &dir, &options(), |_| {}).unwrap();
    let moves = |k: usize| -> Vec<Vec<String>> {
        let mut games: Vec<_> = shard_files(&config.variant_dir(&dir, k).join(GAMES_DIR))
            .unwrap()
            .iter()
            .flat_map(|f| read_games_file(f).unwrap())
            .collect();
        games.sort_by_key(|g| g.game_id);
        games.into_iter().map(|g| g.moves).collect()
    };
    let preset = moves(0);
    for k in [1, 2] {
        let d = result.lines[k].vs_preset.as_ref().expect("compared with the preset");
        let differ = moves(k).iter().zip(&preset).filter(|(a, b)| a != b).count() as u64;
        assert_eq!((d.compared_games, d.changed_games), (20, Some(differ)), "{}", result.lines[k].variant);
    }
    let long = result.lines[1].vs_preset.as_ref().unwrap();
    let trade = result.lines[2].vs_preset.as_ref().unwrap();
    assert!(long.never_applied() && (long.p_holm, long.p_bh) == (1.0, 1.0), "{long:?}");
    assert!(!trade.never_applied(), "mine_rule=trade changes greedy's 暗棋 games: {trade:?}");
    // The one measured comparison is the whole family: nothing to correct.
    assert_eq!((trade.p_holm, trade.p_bh), (trade.p_value, trade.p_value));
    let md = to_markdown(&config, &result);
    let row = |name: &str| md.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap().to_string();
    assert!(row("anqi-long").contains("| option never applied in 20 games | — |"), "{md}");
    assert!(row("anqi-trade").contains(&trade.elo.show()), "{md}");
    assert!(row("anqi").contains("| (reference) |"), "{md}");
    assert!(md.contains("The answer depends on the bot: these are `greedy`'s games"), "{md}");
}
