//! §10.6 Movement: steps, rail runs along every line and round the arcs,
//! engineer flight through the centre, allies, camps, headquarters; and the
//! movement options of §10.11.

use crate::common::*;
use junqi_siguo::{tables, Mode, Rules};

fn rules() -> Rules {
    Rules::preset(Mode::Anqi)
}

/// Flags for everyone far away, so no army is out of the game.
const FLAGS: [(&str, usize, char); 4] = [("sb1", 0, 'F'), ("eb1", 1, 'F'), ("nb1", 2, 'F'), ("wb1", 3, 'F')];

fn with(pieces: &[(&'static str, usize, char)], rules: Rules) -> junqi_siguo::Position {
    let mut all = FLAGS.to_vec();
    all.extend_from_slice(pieces);
    build(rules, &all, pieces.first().map_or(0, |p| p.1))
}

/// §10.6 Rail run along every line of §10.3, both ways, on an empty board:
/// a 团长 at one end reaches the other end.
#[test]
fn s10_6_a_rail_run_covers_every_line_both_ways() {
    for line in &tables(false).lines {
        let names: Vec<String> = line.nodes.iter().map(|n| n.to_string()).collect();
        for (from, to) in
            [(names.first().unwrap(), names.last().unwrap()), (names.last().unwrap(), names.first().unwrap())]
        {
            let from: &'static str = Box::leak(from.clone().into_boxed_str());
            let pos = with(&[(from, 0, 'O')], rules());
            for n in &names[1..names.len() - 1] {
                assert!(reaches(&pos, from, n) || n == from, "{}: {from} → {n}", line.name);
            }
            assert!(reaches(&pos, from, to), "{}: {from} → {to}", line.name);
        }
    }
}

#[test]
fn s10_6_a_run_crosses_the_centre_straight_but_does_not_turn_there() {
    let pos = with(&[("sa3", 0, 'O')], rules());
    for n in ["sa6", "mws", "mw", "mnw", "ne6", "ne2", "we6", "we2"] {
        assert!(reaches(&pos, "sa3", n), "sa3 → {n}");
    }
    // Turning at a junction (onto rank 6, into the middle, onto north's front rank): not a run.
    for n in ["sb6", "ms", "m", "mn", "nd6", "ne1", "wd6"] {
        assert!(!reaches(&pos, "sa3", n), "sa3 → {n}");
    }
}

#[test]
fn s10_6_a_run_goes_round_a_corner_arc() {
    let pos = with(&[("se3", 0, 'O')], rules());
    // se3 up file e, round the arc se6–ea6, down east's file a.
    for n in ["se6", "ea6", "ea4", "ea2", "mse", "me", "na2"] {
        assert!(reaches(&pos, "se3", n), "se3 → {n}");
    }
    // From rank 6 onto the arc would be a right-angle turn.
    let pos = with(&[("sc6", 0, 'O')], rules());
    assert!(reaches(&pos, "sc6", "se6"));
    assert!(!reaches(&pos, "sc6", "ea6") && !reaches(&pos, "sc6", "ea5"));
}

#[test]
fn s10_6_engineer_flies_through_the_centre_and_round_the_arcs() {
    let pos = with(&[("sa2", 0, 'E')], rules());
    let d = dests(&pos, "sa2");
    for n in ["m", "mn", "nc6", "nc2", "ea2", "ee2", "wc2", "se2", "ec6", "men"] {
        assert!(d.iter().any(|x| x == n), "sa2 → {n}");
    }
    // Flight never leaves the railway, and never lands on a camp.
    assert!(!d.iter().any(|x| x == "nc3" || x == "sc3"));
    // Blocked on every route round: sa6 and sa3 held by its own pieces.
    let pos = with(&[("sa2", 0, 'E'), ("sa3", 0, 'L'), ("sb2", 0, 'L')], rules());
    assert_eq!(dests(&pos, "sa2"), ["sa1", "sb3"]);
    // Round the arc through the east: with se6 blocked, via the centre.
    let pos = with(&[("se2", 0, 'E'), ("se6", 0, 'L')], rules());
    assert!(reaches(&pos, "se2", "ea2"));
    assert!(reaches(&pos, "se2", "mse"));
    let pos = with(&[("se2", 0, 'E'), ("se5", 0, 'L'), ("sd2", 0, 'L')], rules());
    assert!(!reaches(&pos, "se2", "ea2"));
}

#[test]
fn s10_6_allied_pieces_block_and_are_never_attacked() {
    // Army 2 is army 0's ally; army 1 an enemy.
    let pos = with(&[("sa3", 0, 'K'), ("mws", 2, 'L'), ("sa2", 2, 'L')], rules());
    assert!(reaches(&pos, "sa3", "sa6"));
    assert!(!reaches(&pos, "sa3", "mws"), "no attack on an ally");
    assert!(!reaches(&pos, "sa3", "mw"), "no passing an ally");
    assert!(!reaches(&pos, "sa3", "sa2"), "no step onto an ally");
    let pos = with(&[("sa3", 0, 'K'), ("mws", 1, 'L')], rules());
    assert!(reaches(&pos, "sa3", "mws"), "an enemy may be attacked");
    assert!(!reaches(&pos, "sa3", "mw"), "but not passed");
    // Engineers too.
    let pos = with(&[("sa2", 0, 'E'), ("sa6", 2, 'L'), ("sb2", 2, 'L')], rules());
    assert_eq!(dests(&pos, "sa2"), ["sa1", "sa3", "sb3", "sa4", "sa5"]);
}

#[test]
fn s10_6_camps_are_safe_and_entered_only_by_a_step() {
    // An enemy in army 1's camp eb3 cannot be attacked; an empty camp can be stepped into.
    let pos = with(&[("ea2", 0, 'K'), ("eb3", 1, 'L')], rules());
    assert!(!reaches(&pos, "ea2", "eb3"));
    let pos = with(&[("ea2", 0, 'K')], rules());
    assert!(reaches(&pos, "ea2", "eb3"));
    // A piece in a camp may attack out of it.
    let pos = with(&[("eb3", 0, 'K'), ("ea2", 1, 'L')], rules());
    assert!(reaches(&pos, "eb3", "ea2"));
}

#[test]
fn s10_6_headquarters_lock_any_piece_in_any_army_headquarters() {
    let pos = with(&[("nd1", 0, 'K'), ("sd1", 0, 'G'), ("sc3", 0, 'L')], rules());
    assert!(dests(&pos, "nd1").is_empty());
    assert!(dests(&pos, "sd1").is_empty());
    let mut open = rules();
    open.apply_override("hq_locked=false").unwrap();
    let pos = with(&[("nd1", 0, 'K')], open);
    assert!(reaches(&pos, "nd1", "nd2"));
    // Flags and mines never move.
    let pos = with(&[("sa2", 0, 'M'), ("sc1", 0, 'K')], rules());
    assert!(dests(&pos, "sa2").is_empty() && dests(&pos, "sb1").is_empty());
}

#[test]
fn s10_11_rail_turns_one_turn_lets_any_piece_turn_once() {
    let mut one = rules();
    one.apply_override("rail_turns=one_turn").unwrap();
    let plain = with(&[("sa3", 0, 'O')], rules());
    let turned = with(&[("sa3", 0, 'O')], one);
    // One turn: up file a, then along rank 6, or along a row of the centre.
    for n in ["sb6", "se6", "ms", "mse", "ea6", "m", "me", "ec6", "mn", "men", "ee6", "nd6", "nc6", "nd2", "wd2"] {
        assert!(!reaches(&plain, "sa3", n), "plain sa3 → {n}");
        assert!(reaches(&turned, "sa3", n), "one_turn sa3 → {n}");
    }
    // Two turns are too many: east's rank 2 lies on no line that crosses sa3's lines.
    for n in ["ec2", "eb2", "ed6"] {
        assert!(!reaches(&turned, "sa3", n), "one_turn sa3 → {n}");
    }
    // The engineer is unchanged.
    let e1 = with(&[("sa3", 0, 'E')], rules());
    let e2 = with(&[("sa3", 0, 'E')], one);
    assert_eq!(dests(&e1, "sa3"), dests(&e2, "sa3"));
}

#[test]
fn s10_11_bomb_flies() {
    let mut flying = rules();
    flying.apply_override("bomb_flies=true").unwrap();
    let plain = with(&[("sa3", 0, 'B')], rules());
    let flies = with(&[("sa3", 0, 'B')], flying);
    assert!(!reaches(&plain, "sa3", "m"));
    assert!(reaches(&flies, "sa3", "m"));
    assert!(reaches(&flies, "sa3", "ec2"));
}

#[test]
fn s10_11_palace_arcs_join_opposite_corner_palaces() {
    let mut arcs = rules();
    arcs.apply_override("palace_arcs=true").unwrap();
    let plain = with(&[("mse", 0, 'O')], rules());
    let joined = with(&[("mse", 0, 'O')], arcs);
    assert!(!reaches(&plain, "mse", "mnw"));
    assert!(reaches(&joined, "mse", "mnw"));
    // The arc is a line of its own: a run does not continue beyond it.
    assert!(!reaches(&joined, "mse", "ne6") && !reaches(&joined, "mse", "wa6"));
    // It is crossed even when the middle palace is held.
    let joined = with(&[("mse", 0, 'O'), ("m", 0, 'L')], arcs);
    assert!(reaches(&joined, "mse", "mnw"));
    let e = with(&[("se2", 0, 'E'), ("me", 0, 'L'), ("ms", 0, 'L')], arcs);
    assert!(reaches(&e, "se2", "mnw") && reaches(&e, "se2", "nc6"));
}
