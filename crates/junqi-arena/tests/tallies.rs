//! A precision study's tallies: they say what its games say, a study resumed
//! from them alone ends as one that was never interrupted, the parts of each
//! round sum to the round one process plays, and tallies of another study or
//! build are refused by name.

use junqi_arena::study::{
    compare, run_study, run_study_from, run_study_part, to_markdown, variant_line, Precision, Resume, StudyConfig,
    StudyResult, Variant,
};
use junqi_arena::tallies::{merge_parts, Tallies, PLIES_BIN, TALLIES_FILE};
use junqi_arena::{matchup_config, read_results};
use junqi_core::{Mode, Rules};
use junqi_selfplay::{Part, RunOptions};
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-tallies-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn options() -> RunOptions {
    RunOptions { threads: 2, ..Default::default() }
}

/// Three 暗棋 variants of `random` against itself, in rounds of 20 games
/// until ±250 Elo or 80 games: some variants stop after one round, some
/// play more (checked where it matters).
fn config() -> StudyConfig {
    let variant = |name: &str, set: &[&str]| {
        let mut rules = Rules::preset(Mode::Anqi);
        for s in set {
            rules.apply_override(s).unwrap();
        }
        Variant { name: name.into(), rules }
    };
    StudyConfig {
        variants: vec![
            variant("anqi", &[]),
            variant("anqi:mine_rule=trade", &["mine_rule=trade"]),
            variant("anqi:max_plies=600", &["max_plies=600"]),
        ],
        bot: "random".parse().unwrap(),
        games: 20,
        seed: 3,
        precision: Some(Precision { elo: 250.0, max_games: 80 }),
        factorial: None,
    }
}

/// The study played whole in one process, once per test binary.
fn whole() -> &'static (PathBuf, StudyResult) {
    static WHOLE: std::sync::OnceLock<(PathBuf, StudyResult)> = std::sync::OnceLock::new();
    WHOLE.get_or_init(|| {
        let dir = temp_dir("whole");
        let result = run_study(&config(), &dir, &options(), |_| {}).unwrap();
        (dir, result)
    })
}

fn tallies_of(dir: &Path) -> Tallies {
    Tallies::read(&dir.join(TALLIES_FILE)).unwrap().0
}

/// The lines of the report from the tallies equal those from the games
/// (read back from every round's directory), but for the median game
/// length, which the tallies know to its bin.
#[test]
fn tallies_give_the_statistics_of_the_games() {
    let (dir, result) = whole();
    let c = config();
    let tallies = tallies_of(dir);
    assert!(tallies.finished);
    assert!(tallies.rounds.len() > 1, "the study needs more than one round");
    let mut games = Vec::new();
    for (k, v) in c.variants.iter().enumerate() {
        let mut all = Vec::new();
        for (r, round) in tallies.rounds.iter().enumerate() {
            if round.variants.iter().any(|t| t.variant == k) {
                let seed = junqi_selfplay::game_seed(c.seed, r as u64);
                let m = matchup_config(v.rules, [&c.bot, &c.bot], c.games, seed).unwrap();
                all.extend(read_results(&m, &c.variant_dir(dir, k).join(format!("round-{r:05}"))).unwrap());
            }
        }
        games.push(all);
    }
    let mut lines: Vec<_> = c.variants.iter().zip(&games).map(|(v, g)| variant_line(v, g).unwrap()).collect();
    compare(&c.variants, &mut lines, &games).unwrap();
    assert!(lines.iter().any(|l| l.vs_preset.is_some()));
    for (from_games, from_tallies) in lines.iter_mut().zip(&result.lines) {
        let bin = f64::from(PLIES_BIN);
        assert!(
            (from_games.median_plies - from_tallies.median_plies).abs() <= bin,
            "{}: median {} from the games, {} from the tallies",
            from_games.variant,
            from_games.median_plies,
            from_tallies.median_plies
        );
        from_games.median_plies = from_tallies.median_plies;
        // The difference from the preset: the same sums in another order.
        if let (Some(a), Some(b)) = (&mut from_games.vs_preset, &from_tallies.vs_preset) {
            for (x, y) in [(&mut a.score, &b.score), (&mut a.elo, &b.elo)] {
                for (p, q) in [(&mut x.value, y.value), (&mut x.low, y.low), (&mut x.high, y.high)] {
                    assert!((*p - q).abs() < 1e-9, "{}: {p} vs {q}", from_games.variant);
                    *p = q;
                }
            }
            for (p, q) in [(&mut a.p_value, b.p_value), (&mut a.p_holm, b.p_holm), (&mut a.p_bh, b.p_bh)] {
                assert!((*p - q).abs() < 1e-9);
                *p = q;
            }
        }
        assert_eq!(from_games, from_tallies);
    }
}

/// A study continued from its tallies after each round, in a new directory
/// without any of the games, ends with the report of the study played
/// through; the rounds it was given are not played again.
#[test]
fn a_study_resumed_from_its_tallies_alone_reports_as_one_uninterrupted() {
    let (dir, result) = whole();
    let all = tallies_of(dir);
    let c = config();
    // After each round, and after the last (nothing left to play).
    for after in 1..=all.rounds.len() {
        let mut cut = Tallies::new(&c);
        for round in &all.rounds[..after] {
            cut.push(round.clone());
        }
        let file = temp_dir(&format!("cut-{after}.json"));
        cut.write(&file).unwrap();
        let (read, path) = Tallies::read(&file).unwrap();
        assert_eq!(read, cut);
        let out = temp_dir(&format!("resumed-{after}"));
        let resume = Resume { tallies: Some((read, path)), allow_code_change: false };
        let resumed = run_study_from(&c, &out, &options(), &resume, |_| {}).unwrap();
        assert_eq!(&resumed, result, "resumed after round {after}");
        assert_eq!(to_markdown(&c, &resumed), to_markdown(&c, result));
        assert_eq!(tallies_of(&out), all);
        for k in 0..c.variants.len() {
            for r in 0..after {
                let round = c.variant_dir(&out, k).join(format!("round-{r:05}"));
                assert!(!round.exists(), "{}: a tallied round played again", round.display());
            }
        }
        // Resumed again from its own directory: nothing to play, the same report.
        assert_eq!(&run_study(&c, &out, &options(), |_| {}).unwrap(), result);
        let _ = std::fs::remove_dir_all(&out);
        let _ = std::fs::remove_file(&file);
    }
}

/// Each round played as three parts, each part from the tallies merged after
/// the round before, sums to the tallies of one process, round by round.
#[test]
fn parts_of_each_round_merge_into_the_tallies_of_one_process() {
    let (dir, result) = whole();
    let all = tallies_of(dir);
    let c = config();
    let root = temp_dir("parts");
    std::fs::create_dir_all(&root).unwrap();
    let mut merged = Tallies::new(&c);
    let mut rounds = 0;
    while !merged.finished {
        let mut parts = Vec::new();
        for i in 0..3 {
            let out = root.join(format!("round-{rounds}-part-{i}"));
            let file = root.join(format!("round-{rounds}.json"));
            merged.write(&file).unwrap();
            let resume = Resume { tallies: Some((merged.clone(), file)), allow_code_change: false };
            run_study_part(&c, &out, &options(), Part::new(i, 3).unwrap(), &resume, |_| {}).unwrap();
            parts.push(Tallies::read(&out).unwrap());
        }
        parts.reverse();
        merged = merge_parts(&parts).unwrap();
        rounds += 1;
        assert_eq!(merged.rounds[..], all.rounds[..rounds], "round {rounds}");
        // Without one part, or with one twice, a round is not whole.
        assert!(merge_parts(&parts[1..]).unwrap_err().to_string().contains("missing"));
        let twice = [parts[0].clone(), parts[0].clone(), parts[1].clone()];
        assert!(merge_parts(&twice).unwrap_err().to_string().contains("again"));
    }
    assert_eq!(merged, all);
    assert_eq!(merged.lines().unwrap(), result.lines);
    // A finished study has no part left to play.
    let resume = Resume { tallies: Some((merged, root.join("last.json"))), allow_code_change: false };
    let err = run_study_part(&c, &root.join("after"), &options(), Part::new(0, 2).unwrap(), &resume, |_| {});
    assert!(err.unwrap_err().to_string().contains("no round is left"));
    let _ = std::fs::remove_dir_all(root);
}

/// Tallies of another study config, or played by another build, are refused
/// with the field that differs; `allow_code_change` takes the latter.
#[test]
fn tallies_of_another_config_or_code_version_are_refused_by_name() {
    let (dir, _) = whole();
    let c = config();
    let text = std::fs::read_to_string(dir.join(TALLIES_FILE)).unwrap();
    let root = temp_dir("refused");
    std::fs::create_dir_all(&root).unwrap();
    let refused = |file: &Path, config: &StudyConfig, allow: bool| -> Option<String> {
        let (t, path) = match Tallies::read(file) {
            Ok(t) => t,
            Err(e) => return Some(e.to_string()),
        };
        let resume = Resume { tallies: Some((t, path)), allow_code_change: allow };
        let out = root.join("out");
        let _ = std::fs::remove_dir_all(&out);
        run_study_from(config, &out, &options(), &resume, |_| {}).err().map(|e| e.to_string())
    };
    let same = root.join("same.json");
    std::fs::write(&same, &text).unwrap();
    assert_eq!(refused(&same, &c, false), None);
    for (field, edit) in [
        ("seed", &(|c: &mut StudyConfig| c.seed = 4) as &dyn Fn(&mut StudyConfig)),
        ("bot", &|c: &mut StudyConfig| c.bot = "greedy".parse().unwrap()),
        ("games", &|c: &mut StudyConfig| c.games = 40),
        ("precision.elo", &|c: &mut StudyConfig| c.precision = Some(Precision { elo: 200.0, max_games: 80 })),
        ("variants", &|c: &mut StudyConfig| c.variants.truncate(2)),
    ] {
        let mut other = c.clone();
        edit(&mut other);
        let err = refused(&same, &other, true).unwrap_or_else(|| panic!("{field}: accepted"));
        assert!(err.contains("another study config") && err.contains(field), "{field}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let version = junqi_selfplay::code_version();
    let old = root.join("old.json");
    std::fs::write(&old, text.replacen(&format!("\"{version}\""), "\"0.0.1+0123456789ab\"", 1)).unwrap();
    let err = refused(&old, &c, false).expect("another code version accepted");
    assert!(err.contains("code_version") && err.contains("0.0.1+0123456789ab") && err.contains(&version), "{err}");
    assert!(err.contains("--allow-code-change"), "{err}");
    assert_eq!(refused(&old, &c, true), None);
    // Damaged or edited counts are no tallies of this study.
    let damaged = root.join("damaged.json");
    std::fs::write(&damaged, text.replacen("\"wdl\":[", "\"wdl\":[1", 1)).unwrap();
    assert!(refused(&damaged, &c, false).unwrap().contains("do not add up"));
    let _ = std::fs::remove_dir_all(root);
}
