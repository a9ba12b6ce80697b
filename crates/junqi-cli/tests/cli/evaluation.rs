//! `junqi arena`, `sprt`, `study first-move` and `regress` from the command line.

use crate::common::{assert_clean_error, stderr, stdout};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn junqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junqi")).args(args).stdin(Stdio::null()).output().expect("run junqi")
}
fn temp_dir(name: &str) -> PathBuf {
    crate::common::temp_dir("eval", name, false)
}

#[test]
fn sprt_on_given_counts_gives_fishtests_llr() {
    let o = junqi(&["sprt", "--penta", "39,8843,26675,9240,44", "--elo0", "0.5", "--elo1", "2.5"]);
    // No decision yet: exit 3 (sprt_verdicts.rs tests every verdict's code).
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("LLR 2.9416752 (bounds [-2.9444390, 2.9444390])"), "{text}");
    assert!(text.contains("pentanomial [39, 8843, 26675, 9240, 44] over 44841 pairs"), "{text}");
    assert!(text.contains("no decision yet"), "{text}");
    assert_clean_error(&junqi(&["sprt", "--penta", "1,2,3"]), "five counts");
    // Counts whose sum would wrap are refused, not read as a 250% score.
    let max = u64::MAX.to_string();
    assert_clean_error(&junqi(&["sprt", "--penta", &format!("1,2,3,{max},{max}")]), "at most 2^50");
    // The sum is told exactly (2·(2^64 − 1) + 6), not rounded through a float.
    assert_clean_error(
        &junqi(&["sprt", "--penta", &format!("1,2,3,{max},{max}")]),
        "sum to 36893488147419103236 pairs",
    );
    assert_clean_error(
        &junqi(&["sprt", "--penta", &format!("0,0,0,0,{}", (1u64 << 50) + 1)]),
        "1125899906842625 pairs",
    );
    assert_clean_error(&junqi(&["sprt", "--penta", "1,2,x,4,5"]), "`x` is not a count");
    assert_clean_error(&junqi(&["sprt", "--penta", "1,2,3,4,5", "--alpha", "2"]), "alpha");
    assert_clean_error(&junqi(&["sprt", "--candidate", "greedy"]), "--baseline");
}

#[test]
fn arena_writes_its_tables_and_resumes() {
    let dir = temp_dir("arena");
    let out = dir.to_str().unwrap();
    let args =
        ["arena", "--bots", "random,greedy:epsilon=0.5,greedy", "--games-per-pair", "6", "--out", out, "--seed", "4"];
    let o = junqi(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("| greedy:epsilon=0.5 |") && text.contains("anchored at 0"), "{text}");
    for f in ["arena.json", "results.json", "results.md"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["bots"].as_array().unwrap().len(), 3);
    assert_eq!(json["bots"][0]["elo"]["value"], 0.0);
    // Again: the same tables from the stored games.
    let again = junqi(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    let table = |t: &str| t.lines().filter(|l| l.starts_with("| ")).map(str::to_string).collect::<Vec<_>>();
    // Moves/s too: each shard's footer keeps its games' thinking time.
    assert_eq!(table(&text), table(&stdout(&again)));
    assert!(!table(&text)[1].ends_with("| – |"), "{text}");
    // Another arena into the same directory is refused; bad input is one line.
    assert_clean_error(
        &junqi(&["arena", "--bots", "random,greedy", "--games-per-pair", "6", "--out", out]),
        "holds other work",
    );
    assert_clean_error(&junqi(&["arena", "--bots", "random", "--out", out]), "at least two bots");
    assert_clean_error(&junqi(&["arena", "--bots", "random,nope", "--out", out]), "unknown bot `nope`");
    assert_clean_error(&junqi(&["arena", "--bots", "random,greedy", "--games-per-pair", "5", "--out", out]), "even");
    assert_clean_error(&junqi(&["arena", "--bots", "random,greedy", "--schedule", "swiss", "--out", out]), "swiss");
}

#[test]
fn study_writes_table_csv_and_chart() {
    let dir = temp_dir("study");
    let out = dir.to_str().unwrap();
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/variants/anqi-mine_rule-trade.toml");
    let o = junqi(&[
        "study",
        "first-move",
        "--variants",
        variants,
        "--variant",
        "fanqi:attack_hidden=true",
        "--games",
        "10",
        "--out",
        out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("| anqi-mine_rule-trade | mine_rule=trade |"), "{text}");
    assert!(text.contains("| fanqi:attack_hidden=true | attack_hidden=true |"), "{text}");
    // The two modes' presets were added (study_rules.rs tests that): four rows.
    let csv = std::fs::read_to_string(dir.join("first-move.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5);
    // The chart: the two variants' differences from their presets.
    let svg = std::fs::read_to_string(dir.join("first-move.svg")).unwrap();
    assert_eq!(svg.matches("<circle").count(), 2);
    assert_clean_error(&junqi(&["study", "first-move", "--out", out]), "no variants");
    // A bad game count is refused before anything is written, so the fixed command runs.
    let fresh = temp_dir("study-odd");
    let fresh_out = fresh.to_str().unwrap();
    assert_clean_error(
        &junqi(&["study", "first-move", "--variant", "mingqi", "--games", "3", "--out", fresh_out]),
        "even",
    );
    assert!(!fresh.exists());
    let o = junqi(&[
        "study",
        "first-move",
        "--variant",
        "mingqi:rail_turns=none,hq_locked=false",
        "--games",
        "2",
        "--out",
        fresh_out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("rail_turns=none") && stdout(&o).contains("hq_locked=false"), "{}", stdout(&o));
    assert_clean_error(&junqi(&["study", "first-move", "--variant", "chess", "--out", out]), "chess");
    assert_clean_error(&junqi(&["study", "first-move", "--variant", "anqi:mine_rule=boom", "--out", out]), "boom");
}

/// `--factor`: a 2×2 factorial over one base variant, each combination a
/// variant of the study, and the effects table (intercept, two main effects,
/// their interaction) in the Markdown, a CSV and the JSON.
#[test]
fn study_factorial_fits_the_effects() {
    let dir = temp_dir("factorial");
    let out = dir.to_str().unwrap();
    let args = [
        "study",
        "first-move",
        "--variant",
        "fanqi",
        "--factor",
        "attack_hidden=false,true",
        "--factor",
        "mine_rule=spring,trade",
        "--bot",
        "random",
        "--games",
        "40",
        "--seed",
        "3",
        "--out",
        out,
    ];
    let o = junqi(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for v in [
        "fanqi:attack_hidden=false,mine_rule=spring",
        "fanqi:attack_hidden=false,mine_rule=trade",
        "fanqi:attack_hidden=true,mine_rule=spring",
        "fanqi:attack_hidden=true,mine_rule=trade",
    ] {
        assert!(text.contains(&format!("| {v} |")), "{v}: {text}");
    }
    assert_eq!(std::fs::read_to_string(dir.join("first-move.csv")).unwrap().lines().count(), 5);
    assert!(text.contains("## Factorial effects") && text.contains("2×2 full factorial (4 cells)"), "{text}");
    for term in [
        "| intercept (mean first-mover advantage) |",
        "| attack_hidden=true |",
        "| mine_rule=trade |",
        "| attack_hidden=true × mine_rule=trade |",
    ] {
        assert!(text.contains(term), "{term}: {text}");
    }
    let effects = std::fs::read_to_string(dir.join("first-move-effects.csv")).unwrap();
    assert_eq!(effects.lines().count(), 5, "{effects}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("first-move.json")).unwrap()).unwrap();
    assert_eq!(json["lines"].as_array().unwrap().len(), 4);
    assert_eq!(json["factorial"]["lines"].as_array().unwrap().len(), 4);
    // Again: resumed from the stored games, the same tables.
    let again = junqi(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(dir.join("first-move-effects.csv")).unwrap(), effects);
    // Bad designs are one-line errors, refused before anything is written.
    let fresh = temp_dir("factorial-bad");
    let bad = |extra: &[&str], mentions: &str| {
        let mut args = vec!["study", "first-move", "--bot", "random", "--games", "2", "--out", fresh.to_str().unwrap()];
        args.extend_from_slice(extra);
        assert_clean_error(&junqi(&args), mentions);
        assert!(!fresh.exists(), "{extra:?} wrote {}", fresh.display());
    };
    bad(&["--variant", "fanqi", "--factor", "nonsense"], "--factor nonsense: expected OPTION=v1,v2");
    bad(&["--variant", "fanqi", "--factor", "no_such=1,2"], "unknown rule option `no_such`");
    bad(&["--variant", "fanqi", "--factor", "mine_rule=spring,boom"], "boom");
    bad(&["--variant", "fanqi", "--factor", "first_player=red,black"], "does not apply");
    bad(&["--variant", "fanqi", "--factor", "attack_hidden=true"], "at least two levels");
    bad(&["--variant", "fanqi", "--factor", "max_plies=500,500"], "the same rules");
    bad(&["--variant", "fanqi", "--variant", "anqi", "--factor", "hq_locked=false,true"], "one base variant");
    bad(
        &[
            "--variant",
            "fanqi",
            "--factor",
            "hq_locked=false,true",
            "--factor",
            "bomb_flies=false,true",
            "--fraction",
            "half",
        ],
        "at least three factors",
    );
}

/// Several `--bot`s: one study per bot in `bots/BOT/`, and the bot ×
/// variant table.
#[test]
fn study_with_several_bots_writes_the_bot_table() {
    let dir = temp_dir("study-bots");
    let out = dir.to_str().unwrap();
    let args = [
        "study",
        "first-move",
        "--variant",
        "fanqi",
        "--variant",
        "fanqi:attack_hidden=true",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--games",
        "10",
        "--out",
        out,
    ];
    let o = junqi(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("| variant | random | greedy | holds across bots |"), "{text}");
    assert!(text.contains("| fanqi:attack_hidden=true | "), "{text}");
    for d in ["bots/random", "bots/greedy"] {
        assert!(dir.join(d).join("first-move.md").is_file(), "{d}");
        assert_eq!(std::fs::read_to_string(dir.join(d).join("first-move.csv")).unwrap().lines().count(), 3);
    }
    let table = std::fs::read_to_string(dir.join("first-move-bots.md")).unwrap();
    assert!(table.contains("Minus the preset"), "{table}");
    // One row per bot and variant.
    assert_eq!(std::fs::read_to_string(dir.join("first-move-bots.csv")).unwrap().lines().count(), 5);
    // Resumed: the same table.
    let again = junqi(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(dir.join("first-move-bots.md")).unwrap(), table);
    // A one-bot study into a directory of several is refused, not mixed in.
    let one = junqi(&["study", "first-move", "--variant", "fanqi", "--bot", "random", "--games", "10", "--out", out]);
    assert_clean_error(&one, "several bots");
    let fresh = temp_dir("study-bots-bad");
    let fresh_out = fresh.to_str().unwrap();
    assert_clean_error(
        &junqi(&[
            "study",
            "first-move",
            "--variant",
            "fanqi",
            "--bot",
            "random",
            "--bot",
            "random",
            "--out",
            fresh_out,
        ]),
        "given twice",
    );
    assert_clean_error(
        &junqi(&["study", "first-move", "--variant", "fanqi", "--bot", "random", "--bot", "nope", "--out", fresh_out]),
        "nope",
    );
    assert!(!fresh.exists());
}

#[test]
fn regress_fails_on_a_drop_beyond_the_margin() {
    let dir = temp_dir("regress");
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        "version = 7\nmargin_elo = 30.0\ngames_per_pair = 20\nseed = 1\n[[arena]]\nrules = \"mingqi\"\nbots = [\"random\", \"heuristic\"]\n",
    )
    .unwrap();
    let (s, run1) = (suite.to_str().unwrap(), dir.join("run1"));
    let o = junqi(&["regress", "--suite", s, "--out", run1.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = run1.join("regress.json");
    // Compared with itself: no change, exit 0.
    let o = junqi(&["regress", "--suite", s, "--out", run1.to_str().unwrap(), "--baseline", result.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("| mingqi | heuristic |") && stdout(&o).contains("| ok |"), "{}", stdout(&o));
    // A baseline where heuristic was 500 Elo stronger: exit 1, the bot flagged.
    let mut base: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let elo = &mut base["arenas"][0]["bots"][1]["elo"]["value"];
    *elo = serde_json::json!(elo.as_f64().unwrap() + 500.0);
    let inflated = dir.join("inflated.json");
    std::fs::write(&inflated, base.to_string()).unwrap();
    let o =
        junqi(&["regress", "--suite", s, "--out", run1.to_str().unwrap(), "--baseline", inflated.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("FAIL"), "{}", stdout(&o));
    assert_clean_error(
        &junqi(&["regress", "--suite", "/nonexistent.toml", "--out", run1.to_str().unwrap()]),
        "nonexistent",
    );
}

/// A bot that scores the same in every pair (every game drawn at the ply
/// limit) has no spread in its counts: the run, the power analysis from it
/// and the comparison with itself all give an answer (not `variance = 0`
/// after the games were played).
#[test]
fn regress_takes_a_bot_that_scores_the_same_in_every_pair() {
    let dir = temp_dir("regress-even");
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        "version = 1\ngames_per_pair = 6\nseed = 2\n[[arena]]\nrules = \"mingqi\"\nset = [\"max_plies=1\"]\nbots = [\"random\", \"greedy\"]\n",
    )
    .unwrap();
    let (s, run) = (suite.to_str().unwrap(), dir.join("run"));
    let o = junqi(&["regress", "--suite", s, "--out", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = run.join("regress.json");
    let text = std::fs::read_to_string(&result).unwrap();
    assert!(text.contains("\"1/2-1/2\"") || stdout(&o).contains("50.0%"), "every game a draw: {}", stdout(&o));
    let base = result.to_str().unwrap();
    let o = junqi(&["regress", "--suite", s, "--out", run.to_str().unwrap(), "--baseline", base]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("| ok |"), "{}", stdout(&o));
    let o = junqi(&["regress", "--suite", s, "--power", "50", "--baseline", base]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("| mingqi | random |"), "{}", stdout(&o));
}

/// `--power ELO` plays nothing and prints, per bot, the games per pair that
/// catch the drop: with no stored result, against an even opponent with
/// variance 1/4, 2 · (z_{1−0.05/2} + z_0.95)² · ¼ / Δs² with
/// Δs = ½ − 1/(1 + 10^(D/400)): 1272.25 games at D = 50 (Δs = 0.0714631),
/// 331.19 at D = 100 (Δs = 0.1400650). A run prints the same table from its own
/// scores, and compared with itself every bot's change is exactly 0.
#[test]
fn regress_power_says_how_many_games_each_bot_needs() {
    let dir = temp_dir("regress-power");
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(
        &suite,
        "version = 3\ngames_per_pair = 20\nseed = 5\n[[arena]]\nrules = \"mingqi\"\nbots = [\"random\", \"greedy\"]\n",
    )
    .unwrap();
    let s = suite.to_str().unwrap();
    let o = junqi(&["regress", "--suite", s, "--power", "50"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("catch a 50 Elo drop of one bot with 95% power"), "{text}");
    assert!(text.contains("α = 0.05 / 2 bots = 0.0250"), "{text}");
    assert!(text.contains("| mingqi | random | greedy assumed 50% (1 273) | 1 273 | 6.6% | SHORT |"), "{text}");
    assert!(text.contains("| mingqi | greedy | random assumed 50% (1 273) | 1 273 | 6.6% | SHORT |"), "{text}");
    assert!(text.contains("every bot has the power from 1274 games per pair (1274 games)"), "{text}");
    assert!(!dir.join("out").exists());
    let o = junqi(&["regress", "--suite", s, "--power", "100"]);
    assert!(stdout(&o).contains("| mingqi | greedy | random assumed 50% (332) | 332 |"), "{}", stdout(&o));
    assert!(stdout(&o).contains("from 332 games per pair"), "{}", stdout(&o));
    assert_clean_error(&junqi(&["regress", "--suite", s, "--power", "0"]), "drop");
    let o = junqi(&["regress", "--suite", s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
    // Played: the table from the run's own scores; against itself nothing moves.
    let run = dir.join("run");
    let o = junqi(&["regress", "--suite", s, "--out", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("| power at 20 |") && text.contains("this run ("), "{text}");
    assert!(!text.contains("assumed"), "{text}");
    let result = run.join("regress.json");
    let stored: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(stored["timing"]["games"], 20, "{stored}");
    assert_eq!(stored["suite"]["detect_elo"], 50.0, "{stored}");
    let r = result.to_str().unwrap();
    let o = junqi(&["regress", "--suite", s, "--out", run.to_str().unwrap(), "--baseline", r]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("α = 0.0250 per bot, z < −1.96"), "{text}");
    assert_eq!(text.matches("| +0.00 | ok |").count(), 2, "{text}");
    // The stored result's scores and speed size the suite.
    let o = junqi(&["regress", "--suite", s, "--power", "50", "--baseline", r, "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains("assumed") && text.contains("On 1 thread(s), at the stored run's speed"), "{text}");
}

/// The shipped suite has the power its file promises, by its stored baseline's scores.
#[test]
fn regress_shipped_suite_has_its_power() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let o = junqi(&[
        "regress",
        "--suite",
        &format!("{root}/configs/regress/v2.toml"),
        "--baseline",
        &format!("{root}/data/regress/baseline-v2.json"),
        "--power",
        "50",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.matches("| enough |").count(), 8, "{text}");
    assert!(!text.contains("SHORT") && !text.contains("assumed"), "{text}");
    assert!(text.contains("α = 0.05 / 8 bots = 0.0063"), "{text}");
}

/// `--bot SPEC` (repeatable) names the same bots as the comma list, each
/// spec whole, and the two forms cannot be mixed.
#[test]
fn arena_and_selfplay_take_repeated_bot_flags() {
    let dir = temp_dir("bot-flags");
    let (a, b) = (dir.join("list"), dir.join("flags"));
    let list =
        junqi(&["arena", "--bots", "random,greedy:epsilon=0.5", "--games-per-pair", "4", "--out", a.to_str().unwrap()]);
    assert!(list.status.success(), "{}", stderr(&list));
    let flags = junqi(&[
        "arena",
        "--bot",
        "random",
        "--bot",
        "greedy:epsilon=0.5",
        "--games-per-pair",
        "4",
        "--out",
        b.to_str().unwrap(),
    ]);
    assert!(flags.status.success(), "{}", stderr(&flags));
    let results = |d: &PathBuf| std::fs::read_to_string(d.join("results.md")).unwrap();
    // The table rows without their last column (the bots' speed).
    let table = |t: String| {
        t.lines()
            .filter(|l| l.starts_with("| "))
            .map(|l| l.rsplitn(3, '|').last().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(table(results(&a)), table(results(&b)), "the same games either way");
    assert!(results(&b).contains("greedy:epsilon=0.5"), "{}", results(&b));
    let mixed =
        junqi(&["arena", "--bots", "random,greedy", "--bot", "random", "--out", dir.join("x").to_str().unwrap()]);
    assert!(!mixed.status.success());
    let sp = dir.join("selfplay");
    let o = junqi(&[
        "selfplay",
        "--games",
        "2",
        "--bot",
        "greedy:epsilon=0.5",
        "--bot",
        "random",
        "--out",
        sp.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let three =
        junqi(&["selfplay", "--games", "2", "--bot", "random", "--bot", "random", "--bot", "greedy", "--no-write"]);
    assert_clean_error(&three, "one or two bot specs");
    let _ = std::fs::remove_dir_all(&dir);
}
