//! §10.12: the perft table, from the fast generator and the reference; and
//! §10.4's example position.

use crate::common::*;
use crate::reference::Reference;
use junqi_siguo::{parse, perft, Mode, Position, Rules};

/// (seed, rules, counts at depths 1–4) from the table of §10.12.
fn table() -> Vec<(u64, Rules, Vec<u64>)> {
    let rows = table_rows(subsection(12));
    assert_eq!(rows[0][..2], ["seed", "options"]);
    rows.iter()
        .skip(1)
        .map(|r| {
            let options: Vec<String> = backticked(&r[1])
                .iter()
                .flat_map(|c| c.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect();
            let rules = Rules::preset_with("anqi", &options).unwrap();
            (r[0].parse().unwrap(), rules, r[2..].iter().map(|c| c.parse().unwrap()).collect())
        })
        .collect()
}

/// Every depth of the table, from both generators (a few seconds in the test profile).
#[test]
fn s10_12_perft_depths_1_to_4_from_both_generators() {
    let rows = table();
    assert_eq!(rows.len(), 3);
    assert_ne!(rows[2].1, Rules::preset(Mode::Anqi), "the third row sets options");
    for (seed, rules, counts) in rows {
        let reference = Reference::new(rules.palace_arcs);
        assert_eq!(counts.len(), 4);
        let pos = Position::new_game(rules, seed);
        for depth in 1..=4 {
            let expected = counts[depth as usize - 1];
            assert_eq!(perft(&pos, depth), expected, "seed {seed} depth {depth}");
            assert_eq!(reference.perft(&pos, depth), expected, "reference, seed {seed} depth {depth}");
        }
    }
}

#[test]
fn s10_4_the_example_position_is_the_start_of_seed_1() {
    let example = subsection(4).split("```").nth(3).expect("the example block").trim();
    let rules = Rules::preset(Mode::Anqi);
    let pos = Position::new_game(rules, 1);
    assert_eq!(pos.to_string(), example);
    assert_eq!(parse(example, rules).unwrap(), pos);
}
