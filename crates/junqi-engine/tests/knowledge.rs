//! A seat's information set survives the trip through protocol text exactly,
//! on every ply of random games in every mode (so an engine behind the
//! protocol knows exactly what our bots know, and nothing more).

use junqi_core::{rng_from_seed, Game, Mode, MoveList, Position, Rules, Seat};
use junqi_engine::{decode_position, encode_position};
use rand::seq::IndexedRandom;

fn rules_variants() -> Vec<Rules> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        out.push(Rules::preset(mode));
    }
    for extra in ["engineer_scout=true", "first_player=black", "reveal_flag_on_commander_loss=false"] {
        let mut r = Rules::preset(Mode::Anqi);
        r.apply_override(extra).unwrap();
        out.push(r);
    }
    for extra in ["color_rule=two_in_a_row", "attack_hidden=true"] {
        let mut r = Rules::preset(Mode::Fanqi);
        r.apply_override(extra).unwrap();
        out.push(r);
    }
    out
}

#[test]
fn every_information_set_round_trips_through_a_position_line() {
    let mut checked = 0usize;
    let mut narrowed = 0usize; // 暗棋 sets that say more than "any kind"
    for rules in rules_variants() {
        for seed in 0..6u64 {
            let mut rng = rng_from_seed(seed);
            let mut game = Game::new(Position::new_game(rules, seed));
            let mut moves = MoveList::new();
            for _ in 0..400 {
                for seat in Seat::BOTH {
                    let info = game.infoset(seat);
                    let text = encode_position(info);
                    let back = decode_position(&text, rules, seat)
                        .unwrap_or_else(|e| panic!("{rules:?} seed {seed} seat {seat}: `{text}`: {e}"));
                    assert_eq!(&back, info, "{text}");
                    assert_eq!(encode_position(&back), text);
                    narrowed += text.matches('=').count();
                    checked += 1;
                }
                game.truth().legal_moves(&mut moves);
                if game.truth().outcome_given(moves.len()).is_some() {
                    break;
                }
                let mv = *moves.as_slice().choose(&mut rng).unwrap();
                game.play(mv).unwrap();
            }
        }
    }
    assert!(checked > 5_000, "{checked}");
    assert!(narrowed > 1_000, "{narrowed}");
}

#[test]
fn a_position_line_never_holds_a_kind_the_seat_cannot_see() {
    // Two 暗棋 deals that differ only in Black's army: Red's line is the same.
    let rules = Rules::preset(Mode::Anqi);
    let a = Position::new_game(rules, 1);
    let b = Position::new_game(rules, 2);
    let red_only = |p: &Position| {
        let red = junqi_core::Deployment::from_position(p, junqi_core::Colour::Red);
        let black = junqi_core::Deployment::from_position(&a, junqi_core::Colour::Black);
        Position::from_deployments(rules, &red, &black).unwrap()
    };
    let (same_red_a, _) = (red_only(&a), red_only(&b));
    let black_of_b = junqi_core::Deployment::from_position(&b, junqi_core::Colour::Black);
    let red_of_a = junqi_core::Deployment::from_position(&a, junqi_core::Colour::Red);
    let other_black = Position::from_deployments(rules, &red_of_a, &black_of_b).unwrap();
    assert_ne!(same_red_a, other_black, "the deals differ in Black's army");
    let red_seat = Seat::First;
    let line = |p: &Position| encode_position(Game::new(p.clone()).infoset(red_seat));
    assert_eq!(line(&same_red_a), line(&other_black));
    assert!(line(&same_red_a).contains('?'));
}

#[test]
fn malformed_position_lines_are_errors_not_panics() {
    let fanqi = Rules::preset(Mode::Fanqi);
    let anqi = Rules::preset(Mode::Anqi);
    let start = encode_position(Game::new(Position::new_game(fanqi, 3)).infoset(Seat::First));
    let anqi_start = encode_position(Game::new(Position::new_game(anqi, 3)).infoset(Seat::First));
    let cases: Vec<(String, Rules, &str)> = vec![
        (String::new(), fanqi, "6 fields"),
        (start.replace(" pool ", " pool K "), fanqi, "pool"),
        (start.split(" pool").next().unwrap().to_string(), fanqi, "pool"),
        (format!("{start} kinds a1=K"), fanqi, "anqi only"),
        (format!("{start} bogus"), fanqi, "unexpected"),
        (start.replacen("fanqi", "anqi", 1), fanqi, "rules are for"),
        (format!("{anqi_start} kinds a1=K"), anqi, "no piece of unknown kind"),
        (format!("{anqi_start} kinds a12=Q"), anqi, "kind letter"),
        (format!("{anqi_start} kinds z9=K"), anqi, "not a node"),
        (format!("{} kinds a12=F b12=F d12=F", anqi_start.split(" kinds").next().unwrap()), anqi, "no army fits"),
        (anqi_start.replacen('?', "~?", 1), anqi, "face-down"),
    ];
    for (text, rules, expect) in cases {
        let err = decode_position(&text, rules, Seat::First).expect_err(&text).to_string();
        assert!(err.contains(expect), "`{text}`: {err}");
    }
}

/// Issue 41, item 3: positions no game can reach are refused by the check
/// every referee set passes (`InfoSet::inconsistency`), not answered.
#[test]
fn contradictory_positions_are_refused() {
    let anqi = Rules::preset(Mode::Anqi);
    let mingqi = Rules::preset(Mode::Mingqi);
    let anqi_start = encode_position(Game::new(Position::new_game(anqi, 3)).infoset(Seat::First));
    // An enemy piece off the headquarters that can only be the flag.
    let flag_off_hq: String =
        anqi_start.split(' ').map(|t| if t.starts_with("a11=") { "a11=F" } else { t }).collect::<Vec<_>>().join(" ");
    assert!(flag_off_hq.contains("a11=F"), "{anqi_start}");
    // A red mine swapped onto Red's front rank (rank 6) in 明棋.
    let truth = Position::new_game(mingqi, 3).to_jfen();
    let (board, rest) = truth.split_once(' ').unwrap();
    let mut ranks: Vec<Vec<char>> = board.split('/').map(|r| r.chars().collect()).collect();
    let back = (10..12).find(|&i| ranks[i].contains(&'M')).expect("a red mine on ranks 1-2");
    let m = ranks[back].iter().position(|&c| c == 'M').unwrap();
    let front = ranks[6][0];
    ranks[6][0] = 'M';
    ranks[back][m] = front;
    let board: Vec<String> = ranks.iter().map(|r| r.iter().collect()).collect();
    let mine_in_front = format!("{} {rest}", board.join("/"));
    // Two removed 司令, from a 暗棋 game in which Black has lost two pieces.
    let mut game = Game::new(Position::new_game(anqi, 5));
    let mut rng = junqi_core::rng_from_seed(5);
    let mut moves = MoveList::new();
    while game.infoset(Seat::First).removed_enemy().len() < 2 {
        game.truth().legal_moves(&mut moves);
        assert!(!moves.is_empty(), "the game ended before Black lost two pieces");
        game.play(*moves.as_slice().choose(&mut rng).unwrap()).unwrap();
    }
    let later = encode_position(game.infoset(Seat::First));
    let two_commanders = format!("{} removed K K", later.split(" removed").next().unwrap());
    let cases: Vec<(String, Rules, &str)> = vec![
        (flag_off_hq, anqi, "flag never moves"),
        (mine_in_front, mingqi, "mine never moves"),
        (format!("{anqi_start} removed {}", vec!["KGD"; 30].join(" ")), anqi, "an army has 25"),
        (two_commanders, anqi, "no army of 25 fits"),
        (
            format!("{} pool -", encode_position(Game::new(Position::new_game(mingqi, 3)).infoset(Seat::First))),
            mingqi,
            "fanqi only",
        ),
    ];
    for (text, rules, expect) in cases {
        let err = decode_position(&text, rules, Seat::First).expect_err(&text).to_string();
        assert!(err.contains(expect), "`{text}`: {err}");
    }
}

/// What the seat remembers travels too: the last actions and how often the
/// board was seen before (rules §5.4), and a line that says too much is refused.
#[test]
fn the_history_rides_on_the_position_line() {
    let rules = Rules::preset(Mode::Mingqi);
    let mut game = Game::new(Position::from_jfen("kf3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 0 0", rules).unwrap());
    for _ in 0..2 {
        for mv in ["e1e2", "a12a11", "e2e1", "a11a12"] {
            game.play(mv.parse().unwrap()).unwrap();
        }
    }
    let info = game.infoset(Seat::First);
    let line = encode_position(info);
    assert!(line.ends_with(" last a11a12 e2e1 a12a11 e1e2 seen 2"), "{line}");
    let back = decode_position(&line, rules, Seat::First).unwrap();
    assert_eq!(&back, info);
    assert_eq!(back.history().repetitions(), 2);
    // Without the extras the same board is a fresh one: not the same information set.
    let bare = line.split(" last ").next().unwrap();
    assert_ne!(&decode_position(bare, rules, Seat::First).unwrap(), info);
    // Refused: too many actions, not an action, not a count, a bare `seen`,
    // more returns than the quiet plies allow (8 here: at most 2), returns without 4 last actions.
    let last = " last a11a12 e2e1 a12a11 e1e2";
    for bad in [
        " last a1a2 a1a2 a1a2 a1a2 a1a2".to_string(),
        " last z9z9".into(),
        " seen -1".into(),
        " seen many".into(),
        " seen 10001".into(),
        format!("{last} seen"),
        format!("{last} seen 3"),
        " last e2e1 e1e2 seen 1".into(),
    ] {
        assert!(decode_position(&format!("{bare}{bad}"), rules, Seat::First).is_err(), "{bad}");
    }
}
