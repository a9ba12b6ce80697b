//! §10.11: the four-player presets and option files in configs/rules/siguo/
//! load, and each is the mode's preset plus the one option its name gives.

use super::common::subsection;
use junqi_siguo::{Mode, Rules, RulesError, OPTION_NAMES};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/rules/siguo"))
}

fn files() -> Vec<(String, Rules)> {
    let mut out: Vec<(String, Rules)> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let rules = Rules::load(p.to_str().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (stem, rules)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn section_10_11_every_file_is_its_preset_plus_its_option() {
    let files = files();
    for mode in Mode::ALL {
        let (_, rules) = files.iter().find(|(n, _)| n == mode.name()).unwrap_or_else(|| panic!("no {mode}.toml"));
        assert_eq!(*rules, Rules::preset(mode), "{mode}.toml is the §10.11 default column");
    }
    let mut options = Vec::new();
    for (name, rules) in &files {
        if name.parse::<Mode>().is_ok() {
            continue;
        }
        // <mode>-<option>-<value>
        let (mode, rest) = name.split_once('-').unwrap();
        let (option, value) = rest.rsplit_once('-').unwrap();
        let expected = Rules::preset_with(mode, [format!("{option}={value}")]).unwrap();
        assert_eq!(*rules, expected, "{name}.toml");
        assert_ne!(*rules, Rules::preset(rules.mode), "{name}.toml changes its option");
        options.push(option.to_string());
    }
    // One file per option of the source's list (every §10.11 option but the two counters).
    let listed: Vec<&str> = OPTION_NAMES.iter().copied().filter(|o| !o.ends_with("plies")).collect();
    options.sort();
    let mut want: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(options, want);
    // The section names where they are.
    assert!(subsection(11).contains("configs/rules/siguo/"), "§10.11 names the files");
}

#[test]
fn section_10_11_a_rules_file_is_read_through_preset_with_and_round_trips() {
    let path = dir().join("anqi-hq_locked-false.toml");
    let path = path.to_str().unwrap();
    let r = Rules::preset_with(path, ["mine_rule=trade"]).unwrap();
    assert!(!r.hq_locked);
    assert_eq!(r.mine_rule, junqi_core::rules::MineRule::Trade);
    for (name, rules) in files() {
        let text = rules.to_toml_string();
        assert_eq!(Rules::from_toml_str(&text).unwrap(), rules, "{name}: {text}");
    }
    let mut all = Rules::preset(Mode::Shuangming);
    for o in ["turn_order=clockwise", "rail_turns=one_turn", "palace_arcs=true", "max_plies=9"] {
        all.apply_override(o).unwrap();
    }
    assert_eq!(Rules::from_toml_str(&all.to_toml_string()).unwrap(), all);
}

#[test]
fn section_10_11_bad_rules_files_are_clear_errors() {
    let two_player = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/rules/anqi.toml");
    assert_eq!(Rules::from_toml_str(&std::fs::read_to_string(two_player).unwrap()), Err(RulesError::NotFourPlayer));
    let err = Rules::preset_with(two_player, Vec::<String>::new()).unwrap_err();
    assert!(err.to_string().contains("game = \"siguo\""), "{err}");
    let cases = [
        ("game = \"siguo\"\n", "no `mode`"),
        ("game = \"siguo\"\nmode = \"fanqi\"\n", "unknown four-player mode"),
        ("game = \"siguo\"\nmode = 3\n", "unknown four-player mode"),
        ("game = \"siguo\"\nmode = \"anqi\"\nfirst_player = \"red\"\n", "unknown four-player rule option"),
        ("game = \"siguo\"\nmode = \"anqi\"\npalace_arcs = \"true\"\n", "needs a boolean"),
        ("game = \"siguo\"\nmode = \"anqi\"\nmax_plies = \"9\"\n", "needs a integer"),
        ("game = \"siguo\"\nmode = \"anqi\"\nmax_plies = -1\n", "bad value"),
        ("game = \"siguo\"\nmode = \"anqi\"\nmine_rule = true\n", "needs a string"),
        ("game = \"siguo\"\nmode = \"anqi\"\nmine_rule = \"boom\"\n", "bad value"),
        ("game = \"siguo\"\nmode = \"anqi\"\nturn_order = [1]\n", "needs a string"),
        ("game = \"siguo\"\nmode = ", "invalid TOML"),
        ("mode = \"anqi\"\n", "game = \"siguo\""),
    ];
    for (text, needle) in cases {
        let err = Rules::from_toml_str(text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text:?}: {err}");
    }
    let missing = Rules::preset_with("/nonexistent/siguo.toml", Vec::<String>::new()).unwrap_err();
    assert!(matches!(missing, RulesError::File { .. }), "{missing}");
    assert!(matches!(Rules::preset_with("anqi2", Vec::<String>::new()), Err(RulesError::UnknownMode(_))));
}
