//! §10.5 turns and deployment, §10.7 combat, §10.8 an army's end and the
//! team result, §10.9 draws, §10.10–§10.11 modes and options, §10.4 notation.

use crate::common::*;
use junqi_core::piece::Kind;
use junqi_core::position::CombatOutcome;
use junqi_core::setup::{rng_from_seed, Deployment, DeploymentError};
use junqi_siguo::setup::{random_deployment, validate};
use junqi_siguo::{
    parse, Army, Effect, EndCause, Mode, Move, Node, NotationError, Position, Rules, RulesError, SetupError, Team,
    Termination, OPTION_NAMES,
};

fn rules() -> Rules {
    Rules::preset(Mode::Anqi)
}

fn mv(text: &str) -> Move {
    text.parse().unwrap()
}

/// Four armies, each with a flag in its headquarters and a 排长 on its rank 6.
fn four_armies(extra: &[(&'static str, usize, char)], rules: Rules, turn: usize) -> Position {
    let mut pieces = vec![
        ("sb1", 0, 'F'),
        ("eb1", 1, 'F'),
        ("nb1", 2, 'F'),
        ("wb1", 3, 'F'),
        ("sb6", 0, 'L'),
        ("eb6", 1, 'L'),
        ("nb6", 2, 'L'),
        ("wb6", 3, 'L'),
    ];
    pieces.extend_from_slice(extra);
    build(rules, &pieces, turn)
}

#[test]
fn s10_5_turns_go_counterclockwise_by_default_and_clockwise_as_an_option() {
    let mut pos = four_armies(&[], rules(), 0);
    let mut order = vec![pos.turn().index()];
    for m in ["sb6-sb5", "eb6-eb5", "nb6-nb5", "wb6-wb5"] {
        pos.play(mv(m)).unwrap();
        order.push(pos.turn().index());
    }
    assert_eq!(order, [0, 1, 2, 3, 0]);
    let mut cw = rules();
    cw.apply_override("turn_order=clockwise").unwrap();
    let mut pos = four_armies(&[], cw, 0);
    let mut order = vec![pos.turn().index()];
    for m in ["sb6-sb5", "wb6-wb5", "nb6-nb5", "eb6-eb5"] {
        pos.play(mv(m)).unwrap();
        order.push(pos.turn().index());
    }
    assert_eq!(order, [0, 3, 2, 1, 0]);
    // Moving out of turn is illegal.
    let mut pos = four_armies(&[], rules(), 0);
    assert!(pos.play(mv("eb6-eb5")).is_err());
}

#[test]
fn s10_5_teams_are_the_opposite_armies() {
    assert_eq!(army(0).team(), Team::A);
    assert_eq!(army(2).team(), Team::A);
    assert_eq!(army(1).team(), Team::B);
    assert_eq!(army(3).team(), Team::B);
    assert_eq!(army(1).ally(), army(3));
}

#[test]
fn s10_5_deployment_uses_the_two_player_rules_in_each_zone() {
    let mut rng = rng_from_seed(3);
    let d = random_deployment(&rules(), &mut rng);
    assert_eq!(validate(army(2), &d, &rules()), Ok(()));
    // A bomb moved onto rank 6: illegal unless bomb_front_rank.
    let mut bad = d.clone();
    let bomb = bad.pieces.iter().position(|p| p.1 == Kind::Bomb).unwrap();
    let front = bad.pieces.iter().position(|p| p.0.rank() == 6 && p.1 != Kind::Bomb).unwrap();
    let (a, b) = (bad.pieces[bomb].1, bad.pieces[front].1);
    bad.pieces[bomb].1 = b;
    bad.pieces[front].1 = a;
    let err = validate(army(2), &bad, &rules()).unwrap_err();
    assert!(matches!(err, SetupError::Deployment { source: DeploymentError::BombOnFrontRank { .. }, .. }), "{err}");
    let mut front_ok = rules();
    front_ok.apply_override("bomb_front_rank=true").unwrap();
    assert_eq!(validate(army(2), &bad, &front_ok), Ok(()));
    // The flag outside a headquarters is refused under every option.
    let mut bad = d.clone();
    let flag = bad.pieces.iter().position(|p| p.1 == Kind::Flag).unwrap();
    let other = bad.pieces.iter().position(|p| p.0.rank() == 3 && p.1 != Kind::Flag).unwrap();
    let (a, b) = (bad.pieces[flag].1, bad.pieces[other].1);
    bad.pieces[flag].1 = b;
    bad.pieces[other].1 = a;
    assert!(validate(army(0), &bad, &front_ok).is_err());
    // A deployment written on Black's half is refused.
    let black = Deployment { colour: junqi_core::Colour::Black, pieces: d.pieces.clone() };
    assert_eq!(validate(army(1), &black, &rules()), Err(SetupError::NotRedHalf { army: army(1) }));
}

#[test]
fn s10_5_random_starts_are_legal_and_bombs_reach_rank_6_only_with_the_option() {
    let mut front_ok = rules();
    front_ok.apply_override("bomb_front_rank=true").unwrap();
    let mut front_bombs = [0, 0];
    for seed in 0..300 {
        for (i, r) in [rules(), front_ok].into_iter().enumerate() {
            let pos = Position::new_game(r, seed);
            assert_eq!(pos.piece_count(), 100);
            for (n, p) in pos.pieces() {
                assert_eq!(n.zone(), Some(p.army), "{n}");
                if p.kind == Kind::Bomb && n.square().unwrap().rank() == 6 {
                    front_bombs[i] += 1;
                }
                if p.kind == Kind::Flag {
                    assert_eq!(n.kind(), junqi_siguo::NodeKind::Headquarters);
                }
                if p.kind == Kind::Mine {
                    assert!(n.square().unwrap().rank() <= 2);
                }
            }
        }
    }
    assert_eq!(front_bombs[0], 0);
    assert!(front_bombs[1] > 0);
}

#[test]
fn s10_7_combat_is_the_two_player_table() {
    // 司令 takes 军长; a bomb trades; an engineer takes a mine.
    let mut pos = four_armies(&[("sa3", 0, 'K'), ("sa4", 1, 'G')], rules(), 0);
    let e = pos.play(mv("sa3-sa4")).unwrap();
    assert!(matches!(e, Effect::Attack { outcome: CombatOutcome::AttackerWon, .. }));
    assert_eq!(pos.piece_at(node("sa4")).unwrap().kind, Kind::Commander);
    let mut pos = four_armies(&[("sa3", 0, 'K'), ("sa4", 3, 'B')], rules(), 0);
    pos.play(mv("sa3-sa4")).unwrap();
    assert!(pos.piece_at(node("sa4")).is_none() && pos.piece_at(node("sa3")).is_none());
    let mut pos = four_armies(&[("ea3", 0, 'E'), ("ea2", 1, 'M')], rules(), 0);
    pos.play(mv("ea3-ea2")).unwrap();
    assert_eq!(pos.piece_at(node("ea2")).unwrap().kind, Kind::Engineer);
    // spring: a 团长 on a mine is removed; trade: both go.
    let mut pos = four_armies(&[("ea3", 0, 'O'), ("ea2", 1, 'M')], rules(), 0);
    pos.play(mv("ea3-ea2")).unwrap();
    assert!(pos.piece_at(node("ea3")).is_none() && pos.piece_at(node("ea2")).is_some());
    let mut trade = rules();
    trade.apply_override("mine_rule=trade").unwrap();
    let mut pos = four_armies(&[("ea3", 0, 'O'), ("ea2", 1, 'M')], trade, 0);
    pos.play(mv("ea3-ea2")).unwrap();
    assert!(pos.piece_at(node("ea3")).is_none() && pos.piece_at(node("ea2")).is_none());
}

#[test]
fn s10_11_commander_hits_mine_false_stops_the_commander() {
    let mut stop = rules();
    stop.apply_override("commander_hits_mine=false").unwrap();
    let mut pos = four_armies(&[("ea3", 0, 'K'), ("ea2", 1, 'M')], stop, 0);
    let e = pos.play(mv("ea3-ea2")).unwrap();
    assert!(matches!(e, Effect::Attack { outcome: CombatOutcome::Bounced, .. }));
    assert_eq!(pos.piece_at(node("ea3")).unwrap().kind, Kind::Commander);
    assert_eq!(pos.piece_at(node("ea2")).unwrap().kind, Kind::Mine);
    assert_eq!(pos.quiet(), 1, "nothing was lost");
    assert_eq!(pos.turn(), army(1));
    // Default: the 司令 runs into the mine and is removed (spring).
    let mut pos = four_armies(&[("ea3", 0, 'K'), ("ea2", 1, 'M')], rules(), 0);
    pos.play(mv("ea3-ea2")).unwrap();
    assert!(pos.piece_at(node("ea3")).is_none());
    assert_eq!(pos.quiet(), 0);
    // Other pieces are not stopped.
    let mut pos = four_armies(&[("ea3", 0, 'G'), ("ea2", 1, 'M')], stop, 0);
    pos.play(mv("ea3-ea2")).unwrap();
    assert!(pos.piece_at(node("ea3")).is_none());
}

#[test]
fn s10_8_a_captured_flag_ends_the_army_and_its_pieces_leave() {
    let mut pos = four_armies(&[("eb2", 0, 'O'), ("ea2", 1, 'K'), ("nc3", 1, 'G')], rules(), 0);
    assert_eq!(pos.count(army(1), Kind::Flag), 1);
    pos.play(mv("eb2-eb1")).unwrap();
    assert_eq!(pos.ended(army(1)), Some(EndCause::FlagCaptured));
    assert!(pos.pieces().all(|(_, p)| p.army != army(1)), "army 1's pieces all left");
    assert_eq!(pos.piece_at(node("eb1")).unwrap().kind, Kind::Regiment, "the capturer stands on the headquarters");
    assert_eq!(pos.quiet(), 0);
    // Its turn is skipped: army 2 moves next.
    assert_eq!(pos.turn(), army(2));
    assert!(pos.outcome().is_none(), "army 3 still plays for team B");
    pos.play(mv("nb6-nb5")).unwrap();
    assert_eq!(pos.turn(), army(3));
    pos.play(mv("wb6-wb5")).unwrap();
    assert_eq!(pos.turn(), army(0));
    assert_eq!(pos.ply(), 3, "skipped turns are not plies");
}

#[test]
fn s10_8_a_bomb_that_captures_a_flag_goes_with_it() {
    let mut pos = four_armies(&[("eb2", 0, 'B')], rules(), 0);
    pos.play(mv("eb2-eb1")).unwrap();
    assert_eq!(pos.ended(army(1)), Some(EndCause::FlagCaptured));
    assert!(pos.piece_at(node("eb1")).is_none());
}

#[test]
fn s10_8_a_team_loses_when_both_its_armies_have_ended() {
    let mut pos = four_armies(&[("eb2", 0, 'O'), ("wb2", 2, 'O')], rules(), 0);
    pos.play(mv("eb2-eb1")).unwrap();
    assert!(pos.outcome().is_none());
    pos.play(mv("nb6-nb5")).unwrap(); // army 2
    pos.play(mv("wb6-wb5")).unwrap(); // army 3
    pos.play(mv("sb6-sb5")).unwrap(); // army 0
    pos.play(mv("nb5-nb4")).unwrap(); // army 2 (army 1 skipped)
    pos.play(mv("wb5-wb4")).unwrap(); // army 3
    pos.play(mv("sb5-sb4")).unwrap();
    assert_eq!(pos.turn(), army(2));
    pos.play(mv("wb2-wb1")).unwrap();
    let o = pos.outcome().unwrap();
    assert_eq!(o.winner, Some(Team::A));
    assert_eq!(o.termination, Termination::TeamEliminated);
    assert_eq!(o.result_str(), "1-0");
    assert_eq!(o.score(Team::B), 0.0);
    assert!(pos.play(mv("sb4-sb3")).is_err(), "no moves after the end");
}

#[test]
fn s10_8_an_army_without_a_legal_move_ends_when_its_turn_comes() {
    // Army 1 has only its flag and a mine: when its turn comes it ends.
    let pieces = [
        ("sb1", 0, 'F'),
        ("sb6", 0, 'L'),
        ("eb1", 1, 'F'),
        ("ea2", 1, 'M'),
        ("nb1", 2, 'F'),
        ("nb6", 2, 'L'),
        ("wb1", 3, 'F'),
        ("wb6", 3, 'L'),
    ];
    let mut pos = build(rules(), &pieces, 0);
    assert!(pos.ended(army(1)).is_none(), "not before its turn");
    assert_eq!(pos.count(army(1), Kind::Mine), 1);
    pos.play(mv("sb6-sb5")).unwrap();
    assert_eq!(pos.ended(army(1)), Some(EndCause::NoLegalMove));
    assert_eq!(pos.count(army(1), Kind::Flag) + pos.count(army(1), Kind::Mine), 0);
    assert_eq!(pos.turn(), army(2));
    assert_eq!(pos.quiet(), 0, "its pieces left the board");
    // A piece locked in a headquarters has no move either.
    let pieces = [
        ("sb1", 0, 'F'),
        ("sb6", 0, 'L'),
        ("eb1", 1, 'F'),
        ("ed1", 1, 'K'),
        ("nb1", 2, 'F'),
        ("nb6", 2, 'L'),
        ("wb1", 3, 'F'),
        ("wb6", 3, 'L'),
    ];
    let mut pos = build(rules(), &pieces, 0);
    pos.play(mv("sb6-sb5")).unwrap();
    assert_eq!(pos.ended(army(1)), Some(EndCause::NoLegalMove));
}

#[test]
fn s10_8_the_second_army_of_a_team_ending_by_no_move_loses_the_game() {
    let pieces = [("sb1", 0, 'F'), ("sb6", 0, 'L'), ("eb1", 1, 'F'), ("nb1", 2, 'F'), ("nb6", 2, 'L'), ("wb1", 3, 'F')];
    let mut pos = build(rules(), &pieces, 0);
    pos.play(mv("sb6-sb5")).unwrap();
    // Army 1 ends, army 2 moves, army 3 ends: team B has lost.
    assert_eq!(pos.turn(), army(2));
    pos.play(mv("nb6-nb5")).unwrap();
    let o = pos.outcome().unwrap();
    assert_eq!((o.winner, o.termination), (Some(Team::A), Termination::TeamEliminated));
    assert_eq!(pos.ended(army(3)), Some(EndCause::NoLegalMove));
    // The turn stays with the army that moved last, and the finished
    // position reads back from its notation (§10.4).
    assert_eq!(pos.turn(), army(2));
    let text = pos.to_string();
    assert!(text.ends_with(" n exwx 0 2"), "{text}");
    assert_eq!(parse(&text, rules()).unwrap(), pos);
}

#[test]
fn s10_8_nobody_can_move_is_a_draw() {
    // Every army has only its flag left after army 0's last piece trades.
    let pieces = [("sb1", 0, 'F'), ("sa3", 0, 'B'), ("sa4", 1, 'L'), ("eb1", 1, 'F'), ("nb1", 2, 'F'), ("wb1", 3, 'F')];
    let mut pos = build(rules(), &pieces, 0);
    pos.play(mv("sa3-sa4")).unwrap();
    let o = pos.outcome().unwrap();
    assert_eq!((o.winner, o.termination), (None, Termination::NoLegalMoveAnywhere));
    assert_eq!(o.result_str(), "1/2-1/2");
}

#[test]
fn s10_8_commander_loss_reveals_the_flag() {
    let mut pos = four_armies(&[("sa3", 0, 'B'), ("sa4", 1, 'K'), ("ea2", 1, 'G')], rules(), 0);
    assert_eq!(pos.revealed_flag(army(1)), None);
    pos.play(mv("sa3-sa4")).unwrap();
    assert_eq!(pos.revealed_flag(army(1)), Some(node("eb1")));
    assert_eq!(pos.revealed_flag(army(0)), Some(node("sb1")), "army 0 has no 司令 in this position");
}

#[test]
fn s10_9_quiet_counts_plies_since_a_loss_anywhere_and_draws_at_the_limit() {
    let mut r = rules();
    r.apply_override("no_progress_plies=6").unwrap();
    let mut pos = four_armies(&[("sa3", 0, 'K'), ("sa4", 1, 'L')], r, 0);
    pos.play(mv("sa3-sa4")).unwrap();
    assert_eq!(pos.quiet(), 0);
    let moves = ["eb6-eb5", "nb6-nb5", "wb6-wb5", "sa4-sa3", "eb5-eb4"];
    for (i, m) in moves.iter().enumerate() {
        assert!(pos.outcome().is_none());
        pos.play(mv(m)).unwrap();
        assert_eq!(pos.quiet(), i as u32 + 1);
    }
    assert!(pos.outcome().is_none());
    pos.play(mv("nb5-nb4")).unwrap();
    assert_eq!(pos.outcome().unwrap().termination, Termination::QuietPlies);
    assert_eq!(pos.outcome().unwrap().winner, None);
}

#[test]
fn s10_9_a_skipped_turn_is_not_a_ply() {
    let mut r = rules();
    r.apply_override("max_plies=5").unwrap();
    let mut pos = four_armies(&[("eb2", 0, 'O')], r, 0);
    pos.play(mv("eb2-eb1")).unwrap(); // army 1 ends
    for m in ["nb6-nb5", "wb6-wb5", "sb6-sb5"] {
        pos.play(mv(m)).unwrap();
    }
    assert_eq!(pos.ply(), 4);
    assert_eq!(pos.turn(), army(2));
    assert!(pos.outcome().is_none());
    pos.play(mv("nb5-nb4")).unwrap();
    assert_eq!(pos.outcome().unwrap().termination, Termination::MaxPlies);
}

#[test]
fn s10_10_modes_and_s10_11_options_are_named_as_in_the_tables() {
    let rows = table_rows(subsection(10));
    let names: Vec<String> = rows.iter().skip(1).map(|r| backticked(&r[1]).join("")).collect();
    assert_eq!(names, Mode::ALL.map(|m| m.name().to_string()));
    let rows = table_rows(subsection(11));
    let preset = rules();
    let mut listed = Vec::new();
    for row in rows.iter().skip(1) {
        let name = backticked(&row[0]).join("");
        let default = row[2].trim_matches('`').to_string();
        assert_eq!(preset.value(&name), Some(default.clone()), "{name}: the table says {default}");
        listed.push(name);
    }
    assert_eq!(listed, OPTION_NAMES);
    // Every option can be set to a second value and read back.
    for (name, value) in [
        ("turn_order", "clockwise"),
        ("rail_turns", "one_turn"),
        ("palace_arcs", "true"),
        ("bomb_flies", "true"),
        ("bomb_front_rank", "true"),
        ("mine_rule", "trade"),
        ("commander_hits_mine", "false"),
        ("hq_locked", "false"),
        ("no_progress_plies", "10"),
        ("max_plies", "99"),
    ] {
        let mut r = rules();
        r.apply_override(&format!("{name}={value}")).unwrap();
        assert_eq!(r.value(name).unwrap(), value);
        assert_ne!(r, rules());
    }
    let mut r = rules();
    assert!(matches!(r.apply_override("nope=1"), Err(RulesError::UnknownOption { .. })));
    assert!(matches!(r.apply_override("hq_locked=maybe"), Err(RulesError::BadValue { .. })));
    assert!(matches!(r.apply_override("max_plies=0"), Err(RulesError::BadValue { .. })));
    assert!(matches!(r.apply_override("max_plies"), Err(RulesError::BadOverride(_))));
    assert!(Rules::preset_with("fanqi", ["max_plies=3"]).is_err());
    assert_eq!(Rules::preset_with("quanming", ["max_plies=3"]).unwrap().max_plies, 3);
}

#[test]
fn s10_4_notation_of_a_start_position_and_errors_naming_the_field() {
    let pos = Position::new_game(rules(), 1);
    let text = pos.to_string();
    assert!(text.ends_with("/9 anqi s - 0 0"), "{text}");
    assert_eq!(parse(&text, rules()).unwrap(), pos);
    let ended = four_armies(&[("eb2", 0, 'O')], rules(), 0);
    let mut ended = ended;
    ended.play(mv("eb2-eb1")).unwrap();
    let t = ended.to_string();
    assert!(t.contains(" n ef 0 1"), "{t}");
    assert_eq!(parse(&t, rules()).unwrap(), ended);
    let bad = |s: &str| parse(s, rules()).unwrap_err();
    assert_eq!(bad("x"), NotationError::Fields(1));
    assert!(matches!(bad(&text.replace(" anqi ", " fanqi ")), NotationError::Mode(_)));
    assert!(matches!(bad(&text.replace(" s - ", " q - ")), NotationError::Turn(_)));
    assert!(matches!(bad(&text.replace(" s - ", " s zz ")), NotationError::Ended(_)));
    assert!(matches!(bad(&text.replace(" s - ", " s sf ")), NotationError::Ended(_)));
    assert!(matches!(bad(&text.replace("/9 ", "/8 ")), NotationError::Board(_)));
    assert!(matches!(bad(&text.replace("/9 ", "/9Ks ")), NotationError::Board(_)));
    assert!(matches!(bad(&text.replacen('s', "x", 1)), NotationError::Board(_)));
    assert!(matches!(bad(&text.replace(" 0 0", " -1 0")), NotationError::Number { field: "quiet", .. }));
    // An ended army cannot be to move.
    let t2 = t.replace(" n ef ", " e ef ");
    assert_eq!(parse(&t2, rules()).unwrap_err(), NotationError::TurnEnded('e'));
    // A move's notation.
    assert_eq!(mv("sc6-ms"), Move::new(node("sc6"), Node::edge_palace(Army::new(0).unwrap())));
    assert_eq!(mv("sc6-ms").to_string(), "sc6-ms");
    assert!("sc6ms".parse::<Move>().is_err());
}

/// §10.5 with `bomb_front_rank`: the draw stays uniform, so a front-rank node
/// holds a bomb with probability 2/21 (2 bombs among the 21 nodes left after
/// the flag and the 3 mines), and a mid-zone post as often (5-sigma bounds).
#[test]
fn s10_11_bomb_front_rank_deployments_stay_uniform() {
    let mut r = rules();
    r.apply_override("bomb_front_rank=true").unwrap();
    let mut rng = rng_from_seed(21);
    let n = 20_000;
    let (c6, c3) = ("c6".parse().unwrap(), "c3".parse().unwrap());
    let (mut at_c6, mut at_c3) = (0u32, 0u32);
    for _ in 0..n {
        let d = random_deployment(&r, &mut rng);
        assert_eq!(validate(army(0), &d, &r), Ok(()));
        for &(sq, kind) in &d.pieces {
            if kind == Kind::Bomb {
                at_c6 += u32::from(sq == c6);
                at_c3 += u32::from(sq == c3);
            }
        }
    }
    let p: f64 = 2.0 / 21.0;
    let sigma = (n as f64 * p * (1.0 - p)).sqrt();
    for count in [at_c6, at_c3] {
        assert!((count as f64 - n as f64 * p).abs() < 5.0 * sigma, "{count} of {n}, expected about {}", n as f64 * p);
    }
}
