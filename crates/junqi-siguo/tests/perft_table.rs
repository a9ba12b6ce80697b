//! §10.12: the perft table, from the fast generator and the reference.

use crate::common::*;
use crate::reference::Reference;
use junqi_siguo::{perft, Mode, Position, Rules};

/// (seed, counts at depths 1–4) from the table of §10.12.
fn table() -> Vec<(u64, Vec<u64>)> {
    let rows = table_rows(subsection(12));
    assert_eq!(rows[0][0], "seed");
    rows.iter().skip(1).map(|r| (r[0].parse().unwrap(), r[1..].iter().map(|c| c.parse().unwrap()).collect())).collect()
}

/// Every depth of the table, from both generators (about 2 s in the test profile).
#[test]
fn s10_12_perft_depths_1_to_4_from_both_generators() {
    let reference = Reference::new(false);
    let rows = table();
    assert_eq!(rows.len(), 2);
    for (seed, counts) in rows {
        assert_eq!(counts.len(), 4);
        let pos = Position::new_game(Rules::preset(Mode::Anqi), seed);
        for depth in 1..=4 {
            let expected = counts[depth as usize - 1];
            assert_eq!(perft(&pos, depth), expected, "seed {seed} depth {depth}");
            assert_eq!(reference.perft(&pos, depth), expected, "reference, seed {seed} depth {depth}");
        }
    }
}
