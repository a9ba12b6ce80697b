//! Clause-by-clause tests of `docs/rules.md` §1–§8 on hand-built positions.
//!
//! Every test is named after the clause it checks (`s3_…` for §3 and so on)
//! and names the clause of docs/rules.md it checks, quoting it where the
//! wording matters. Positions are written as JFEN (§7) and must be
//! canonical: [`pos`] checks that the engine prints them back unchanged.
//!
//! A common background keeps most positions legal and undecided: Red's flag on
//! b1 and a 排长 on e1, Black's flag on b12 and a 排长 on e12, i.e. rank 12 is
//! `1f2l` and rank 1 is `1F2L`.

use std::collections::BTreeSet;

use junqi_core::board::{Bitboard, ADJACENT, CAMPS, HEADQUARTERS, RAILWAY};
use junqi_core::jfen::peek_mode;
use junqi_core::piece::full_army;
use junqi_core::rules::{option_applies, ColorRule, FirstPlayer, FlagCapturer, MineRule, RailTurns};
use junqi_core::setup::deployment_zone;
use junqi_core::{
    rng_from_seed, Colour, CombatOutcome, Deployment, DeploymentError, Effect, Game, InfoSet, JfenError, Kind, Mode,
    Move, MoveList, Observation, ObservedEvent, Piece, PlayError, Position, Rules, RulesError, Seat, Square,
    Termination,
};

// ======================================================================
// Helpers
// ======================================================================

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("bad square {name}: {e}"))
}

fn mv(text: &str) -> Move {
    text.parse().unwrap_or_else(|e| panic!("bad move {text}: {e}"))
}

/// The preset of `mode` with `option=value` overrides applied.
fn rules(mode: Mode, overrides: &[&str]) -> Rules {
    let mut r = Rules::preset(mode);
    for o in overrides {
        r.apply_override(o).unwrap_or_else(|e| panic!("override {o}: {e}"));
    }
    r
}

/// Apply one override to a mode's preset.
fn rules_result(mode: Mode, o: &str) -> Result<(), RulesError> {
    Rules::preset(mode).apply_override(o)
}

/// Parse a JFEN position under its mode's preset plus `overrides`; the JFEN
/// must be canonical (printed back unchanged).
fn pos(jfen: &str, overrides: &[&str]) -> Position {
    let mode = peek_mode(jfen).unwrap_or_else(|e| panic!("{jfen}: {e}"));
    let p = Position::from_jfen(jfen, rules(mode, overrides)).unwrap_or_else(|e| panic!("{jfen}: {e}"));
    assert_eq!(p.to_jfen(), jfen, "test JFEN is not canonical");
    p
}

/// All legal actions, as sorted move strings.
fn legal(p: &Position) -> Vec<String> {
    let mut list = MoveList::new();
    p.legal_moves(&mut list);
    let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

/// Sorted destination names of the legal moves from `from` (flips excluded).
fn moves_from(p: &Position, from: &str) -> Vec<String> {
    let from = sq(from);
    let mut list = MoveList::new();
    p.legal_moves(&mut list);
    let mut v: Vec<String> = list.iter().filter(|m| m.from == from && !m.is_flip()).map(|m| m.to.to_string()).collect();
    v.sort();
    v
}

/// Sorted owned names, to compare with [`moves_from`].
fn names(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// Sorted names of the squares of a bitboard.
fn bb_names(bb: Bitboard) -> Vec<String> {
    let mut v: Vec<String> = junqi_core::board::squares(bb).map(|s| s.to_string()).collect();
    v.sort();
    v
}

fn bb(list: &[&str]) -> Bitboard {
    list.iter().fold(0, |acc, s| acc | sq(s).bit())
}

fn is_legal(p: &Position, m: &str) -> bool {
    legal(p).contains(&m.to_string())
}

/// Play a move that must be legal.
fn play(p: &mut Position, m: &str) -> Effect {
    p.play(mv(m)).unwrap_or_else(|e| panic!("{m} in {p}: {e}"))
}

/// What stands on a node: "" when empty, the letter, prefixed by `~` when face-down.
fn at(p: &Position, s: &str) -> String {
    let s = sq(s);
    match p.piece_at(s) {
        None => {
            assert!(!p.is_occupied(s));
            String::new()
        }
        Some(piece) => format!("{}{}", if p.is_face_down(s) { "~" } else { "" }, piece.letter()),
    }
}

fn attack_outcome(e: &Effect) -> CombatOutcome {
    match e {
        Effect::Attack { outcome, .. } => *outcome,
        other => panic!("expected an attack, got {other:?}"),
    }
}

/// (winner, termination, result string) of a finished position.
fn result(p: &Position) -> Option<(Option<Seat>, Termination, &'static str)> {
    p.outcome().map(|o| (o.winner, o.termination, o.result_str()))
}

/// Build the board field of a JFEN from (node, token) pairs, token like `D` or `~d`.
fn board_of(pieces: &[(&str, &str)]) -> String {
    junqi_tests::board_field(pieces)
}

fn red(k: Kind) -> Piece {
    Piece::new(Colour::Red, k)
}
fn black(k: Kind) -> Piece {
    Piece::new(Colour::Black, k)
}

/// Start a referee game on a JFEN position.
fn game(jfen: &str, overrides: &[&str]) -> Game {
    Game::new(pos(jfen, overrides))
}

fn gplay(g: &mut Game, m: &str) -> (Effect, [Observation; 2]) {
    g.play(mv(m)).unwrap_or_else(|e| panic!("{m} in {}: {e}", g.truth()))
}

/// The pieces an observation makes public.
fn revealed(o: &Observation) -> Vec<(Square, Piece)> {
    o.revealed.iter().flatten().copied().collect()
}

// ======================================================================
// Independent model of the board, written from the text of docs/rules.md §1
// ======================================================================

fn idx(file: usize, rank: usize) -> usize {
    (rank - 1) * 5 + file
}

/// §1 Railway edges, unordered (lo, hi).
fn rules_rail_edges() -> BTreeSet<(usize, usize)> {
    let mut e = BTreeSet::new();
    for rank in [2, 6, 7, 11] {
        for f in 0..4 {
            e.insert((idx(f, rank), idx(f + 1, rank)));
        }
    }
    for f in [0, 4] {
        for rank in 2..11 {
            e.insert((idx(f, rank), idx(f, rank + 1)));
        }
    }
    e.insert((idx(2, 6), idx(2, 7)));
    e
}

/// §1 camp diagonals, exactly as listed.
const CAMP_DIAGONALS: [(&str, [&str; 4]); 10] = [
    ("b3", ["a2", "c2", "a4", "c4"]),
    ("d3", ["c2", "e2", "c4", "e4"]),
    ("c4", ["b3", "d3", "b5", "d5"]),
    ("b5", ["a4", "c4", "a6", "c6"]),
    ("d5", ["c4", "e4", "c6", "e6"]),
    ("b8", ["a7", "c7", "a9", "c9"]),
    ("d8", ["c7", "e7", "c9", "e9"]),
    ("c9", ["b8", "d8", "b10", "d10"]),
    ("b10", ["a9", "c9", "a11", "c11"]),
    ("d10", ["c9", "e9", "c11", "e11"]),
];

/// §1 every edge (rail or road), unordered.
fn rules_all_edges() -> BTreeSet<(usize, usize)> {
    let mut e = rules_rail_edges();
    // Every orthogonal neighbour pair within one half.
    for rank in 1..=12 {
        for f in 0..5 {
            let half = rank <= 6;
            if f + 1 < 5 {
                e.insert((idx(f, rank), idx(f + 1, rank)));
            }
            if rank + 1 <= 12 && ((rank + 1) <= 6) == half {
                e.insert((idx(f, rank), idx(f, rank + 1)));
            }
        }
    }
    for (camp, diag) in CAMP_DIAGONALS {
        for d in diag {
            let (a, b) = (sq(camp).index(), sq(d).index());
            e.insert((a.min(b), a.max(b)));
        }
    }
    e
}

fn rules_neighbours(s: Square) -> Bitboard {
    rules_all_edges()
        .into_iter()
        .filter_map(|(a, b)| {
            if a == s.index() {
                Some(1u64 << b)
            } else if b == s.index() {
                Some(1u64 << a)
            } else {
                None
            }
        })
        .fold(0, |x, y| x | y)
}

/// §1 straight railway lines.
fn rules_rail_lines() -> Vec<Vec<Square>> {
    let mut lines = Vec::new();
    for rank in [2, 6, 7, 11] {
        lines.push((0..5).map(|f| Square::from_coords(f, rank).unwrap()).collect());
    }
    for f in [0, 4] {
        lines.push((2..=11).map(|r| Square::from_coords(f, r).unwrap()).collect());
    }
    lines.push(vec![sq("c6"), sq("c7")]);
    lines
}

// ======================================================================
// §1 Board
// ======================================================================

/// §1: "Each node also has an index from 0 to 59:
/// `index = (rank - 1) * 5 + file`, where the file counts `a` as 0 up to `e`
/// as 4. Thus `a1` is 0 and `e12` is 59."
#[test]
fn s1_node_index_formula() {
    for rank in 1..=12usize {
        for (file, letter) in "abcde".chars().enumerate() {
            let name = format!("{letter}{rank}");
            let s: Square = name.parse().unwrap();
            assert_eq!(s.index(), (rank - 1) * 5 + file, "{name}");
            assert_eq!((s.file(), s.rank()), (file, rank));
            assert_eq!(s.to_string(), name);
            assert_eq!(Square::from_coords(file, rank), Some(s));
        }
    }
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("e12").index(), 59);
    for bad in ["f1", "a13", "a0", "A1", "c"] {
        assert!(bad.parse::<Square>().is_err(), "{bad}");
    }
}

/// §1 (table of node kinds): the headquarters (大本营) are `b1 d1` (Red's) and
/// `b12 d12` (Black's).
#[test]
fn s1_headquarters_are_b1_d1_b12_d12() {
    assert_eq!(bb_names(HEADQUARTERS), names(&["b1", "d1", "b12", "d12"]));
}

/// §1 (table of node kinds): the camps (行营) are `b3 d3 c4 b5 d5` (Red's) and
/// `b8 d8 c9 b10 d10` (Black's).
#[test]
fn s1_camps_are_listed_nodes() {
    assert_eq!(bb_names(CAMPS), names(&["b3", "d3", "c4", "b5", "d5", "b8", "d8", "c9", "b10", "d10"]));
}

/// §1: "Ranks 1–6 are Red's half and ranks 7–12 are Black's; the two halves are
/// mirror images. Every half holds 30 nodes of three kinds": 23 posts (兵站),
/// 5 camps (行营) and 2 headquarters (大本营).
#[test]
fn s1_each_half_has_23_posts_5_camps_2_headquarters() {
    for (colour, ranks) in [(Colour::Red, 1..=6usize), (Colour::Black, 7..=12usize)] {
        let half: Bitboard = ranks.flat_map(|r| (0..5).map(move |f| 1u64 << idx(f, r))).fold(0, |a, b| a | b);
        assert_eq!(half.count_ones(), 30);
        assert_eq!((half & CAMPS).count_ones(), 5, "{colour:?}");
        assert_eq!((half & HEADQUARTERS).count_ones(), 2, "{colour:?}");
        assert_eq!((half & !CAMPS & !HEADQUARTERS).count_ones(), 23, "{colour:?}");
        // Deployment zone: 23 posts + 2 HQs.
        assert_eq!(deployment_zone(colour), half & !CAMPS);
    }
    // Mirror image: rotating the board maps camps to camps and HQs to HQs.
    for s in Square::all() {
        assert_eq!(CAMPS & s.bit() != 0, CAMPS & s.rotated().bit() != 0);
        assert_eq!(HEADQUARTERS & s.bit() != 0, HEADQUARTERS & s.rotated().bit() != 0);
    }
}

/// §1 Railway lines (table): ranks 2, 6, 7 and 11 (5 nodes each), file `a`
/// (`a2`…`a11`, 10 nodes), file `e` (`e2`…`e11`, 10 nodes) and the file `c`
/// crossing (`c6`, `c7`).
#[test]
fn s1_railway_nodes_are_the_lines() {
    let expected = rules_rail_lines().into_iter().flatten().fold(0u64, |a, s| a | s.bit());
    assert_eq!(bb_names(RAILWAY), bb_names(expected));
    assert_eq!(RAILWAY.count_ones(), 32);
    assert_eq!(RAILWAY & sq("a1").bit(), 0, "a1 is not on file a's line");
    assert_eq!(RAILWAY & sq("a12").bit(), 0);
}

/// §1 Edges: railway edges along ranks 2, 6, 7, 11, files a and e (a2…a11,
/// e2…e11, including a6–a7 and e6–e7) and c6–c7; road edges join "every
/// remaining pair of orthogonal neighbours that lie in the same half"; "In
/// addition, every camp has road edges to its four diagonal neighbours";
/// "Nothing else is connected: `b6` and `d6` have no edge to `b7` and `d7`
/// (the mountains), and the only diagonal edges are those of the camps."
#[test]
fn s1_edges_are_exactly_the_listed_ones() {
    let all = rules_all_edges();
    let rail = rules_rail_edges();
    for a in 0..60 {
        for b in 0..60 {
            if a == b {
                continue;
            }
            let key = (a.min(b), a.max(b));
            let (sa, sb) = (Square::new(a).unwrap(), Square::new(b).unwrap());
            assert_eq!(ADJACENT[a] >> b & 1 == 1, all.contains(&key), "edge {sa}-{sb}");
            assert_eq!(junqi_core::board::is_rail_edge(a, b), rail.contains(&key), "rail edge {sa}-{sb}");
        }
    }
    // The mountains.
    for (x, y) in [("b6", "b7"), ("d6", "d7")] {
        assert_eq!(ADJACENT[sq(x).index()] & sq(y).bit(), 0, "{x}-{y} is a mountain");
    }
    // The three crossings.
    for (x, y) in [("a6", "a7"), ("c6", "c7"), ("e6", "e7")] {
        assert_ne!(ADJACENT[sq(x).index()] & sq(y).bit(), 0, "{x}-{y} crosses");
    }
    // No diagonal except camp diagonals.
    for a in Square::all() {
        for b in Square::all() {
            let diagonal = a.file().abs_diff(b.file()) == 1 && a.rank().abs_diff(b.rank()) == 1;
            if diagonal {
                let camp = (a.bit() | b.bit()) & CAMPS != 0;
                assert_eq!(ADJACENT[a.index()] & b.bit() != 0, camp, "diagonal {a}-{b}");
            }
        }
    }
}

/// §1 "every camp has road edges to its four diagonal neighbours", and a §3
/// Step goes "one edge, road or railway" (via move generation): a 排长 in
/// camp c4 steps to b3 d3 b5 d5 as
/// well as its orthogonal neighbours; a 排长 on b4 (not a camp) has no diagonal.
#[test]
fn s1_camp_diagonals_are_steps_no_other_diagonals() {
    let p = pos("1f2l/5/5/5/5/5/5/5/2L2/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "c4"), names(&["b3", "d3", "b5", "d5", "c3", "c5", "b4", "d4"]));
    let p = pos("1f2l/5/5/5/5/5/5/5/1L3/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "b4"), names(&["a4", "b3", "b5", "c4"]));
    // Black's mirror: camp b8 reaches a7 c7 a9 c9.
    let p = pos("1f2l/5/5/5/1l3/5/5/5/5/5/5/1F2L mingqi 2 r 0 1", &[]);
    assert_eq!(moves_from(&p, "b8"), names(&["a7", "c7", "a9", "c9", "a8", "c8", "b7", "b9"]));
}

/// §1 + §3 Step / Rail run on a nearly empty board, for every node: a 连长
/// steps along every edge and runs along every straight railway line through
/// its node; an 工兵 on a railway node reaches every railway node.
#[test]
fn s1_every_node_steps_and_runs_as_the_rules_describe() {
    let background = [("b1", "F"), ("e1", "L"), ("b12", "f"), ("e12", "l")];
    let own = bb(&["b1", "e1"]);
    for s in Square::all() {
        let name = s.to_string();
        if background.iter().any(|(b, _)| *b == name) {
            continue;
        }
        for piece in ["C", "E"] {
            let mut pieces = background.to_vec();
            pieces.push((name.as_str(), piece));
            let jfen = format!("{} mingqi 1 r 0 0", board_of(&pieces));
            let p = pos(&jfen, &["hq_locked=false"]);
            let mut expected = rules_neighbours(s);
            if RAILWAY & s.bit() != 0 {
                if piece == "E" {
                    expected |= RAILWAY & !s.bit();
                } else {
                    for line in rules_rail_lines() {
                        if line.contains(&s) {
                            expected |= line.iter().fold(0, |a, x| a | x.bit()) & !s.bit();
                        }
                    }
                }
            }
            expected &= !own;
            assert_eq!(moves_from(&p, &name), bb_names(expected), "{piece} on {name}: {jfen}");
        }
    }
}

// ======================================================================
// §2 Pieces
// ======================================================================

/// §2: "Both sides start with the same 25 pieces"; the table gives 司令
/// Commander ×1, 军长 General ×1, 师长 Division commander ×2, 旅长 Brigade
/// commander ×2, 团长 Regiment commander ×2, 营长 Battalion commander ×2, 连长
/// Company commander ×3, 排长 Platoon commander ×3, 工兵 Engineer ×3, 炸弹
/// Bomb ×2, 地雷 Mine ×3, 军旗 Flag ×1.
#[test]
fn s2_army_of_25() {
    let expected = [
        (Kind::Commander, 1),
        (Kind::General, 1),
        (Kind::Division, 2),
        (Kind::Brigade, 2),
        (Kind::Regiment, 2),
        (Kind::Battalion, 2),
        (Kind::Company, 3),
        (Kind::Platoon, 3),
        (Kind::Engineer, 3),
        (Kind::Bomb, 2),
        (Kind::Mine, 3),
        (Kind::Flag, 1),
    ];
    for (k, n) in expected {
        assert_eq!(k.count(), n, "{k:?}");
        assert_eq!(full_army().filter(|&x| x == k).count(), n as usize, "{k:?}");
    }
    assert_eq!(full_army().count(), 25);
}

/// §2: "A piece is written as a letter: upper case for Red, lower case for
/// Black"; the table's letters are K G D R O J C L E B M F.
#[test]
fn s2_letters() {
    let table = [
        (Kind::Commander, 'K'),
        (Kind::General, 'G'),
        (Kind::Division, 'D'),
        (Kind::Brigade, 'R'),
        (Kind::Regiment, 'O'),
        (Kind::Battalion, 'J'),
        (Kind::Company, 'C'),
        (Kind::Platoon, 'L'),
        (Kind::Engineer, 'E'),
        (Kind::Bomb, 'B'),
        (Kind::Mine, 'M'),
        (Kind::Flag, 'F'),
    ];
    for (k, c) in table {
        assert_eq!(k.letter(), c);
        assert_eq!(red(k).letter(), c);
        assert_eq!(black(k).letter(), c.to_ascii_lowercase());
        assert_eq!(Piece::from_letter(c), Some(red(k)));
        assert_eq!(Piece::from_letter(c.to_ascii_lowercase()), Some(black(k)));
    }
    assert_eq!(Piece::from_letter('x'), None);
}

/// §2: "The first nine rows are ranked, strongest first", 司令 > 军长 > … >
/// 工兵, and Chinese players call the ranked pieces by the numbers 40 down to
/// 32 (司令 = 40, 工兵 = 32).
#[test]
fn s2_officer_numbers() {
    let order = [
        Kind::Commander,
        Kind::General,
        Kind::Division,
        Kind::Brigade,
        Kind::Regiment,
        Kind::Battalion,
        Kind::Company,
        Kind::Platoon,
        Kind::Engineer,
    ];
    for (i, k) in order.iter().enumerate() {
        assert_eq!(k.number(), Some(40 - i as u8), "{k:?}");
    }
    assert_eq!(Kind::Bomb.number(), None);
}

/// §2: "Flags and mines stay on the node where they started for the whole
/// game." A mine on railway node a3, a mine in HQ b1
/// (with `hq_locked` off) and the flag on c3 have no moves, in 明棋 and 翻棋.
#[test]
fn s2_flag_and_mines_never_move() {
    for mode in ["mingqi", "fanqi"] {
        let p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/M1F2/5/1M2L {mode} 1 r 0 0"), &["hq_locked=false"]);
        for s in ["a3", "b1", "c3"] {
            assert!(moves_from(&p, s).is_empty(), "{mode}: {s} moved");
        }
        assert!(legal(&p).iter().all(|m| m.starts_with("e1")), "{mode}: {:?}", legal(&p));
    }
}

// ======================================================================
// §3 Movement
// ======================================================================

/// §3 Rail run: "A piece that stands on a railway node may travel any distance
/// in one direction along a single straight railway line"; §1 "Passing from a
/// file line to a rank line, as in `a3 → a2 → b2`, is therefore a right-angle
/// turn": a 师长 on a5 runs down file a to a2 (and up to a11, across the frontier) but can
/// not continue along rank 2 or turn onto rank 6.
#[test]
fn s3_division_runs_down_file_a_to_a2_but_cannot_turn() {
    let p = pos("1f2l/5/5/5/5/5/5/D4/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "a5"), names(&["a2", "a3", "a4", "a6", "a7", "a8", "a9", "a10", "a11", "b5"]));
    for turned in ["b2", "c2", "e2", "b6", "e6", "b11"] {
        assert!(!is_legal(&p, &format!("a5{turned}")), "a5{turned} turns a corner");
    }
}

/// §3 Rail run: "The first occupied node blocks the line: the piece can go no
/// further, and it may land there only as an attack, when that node holds an
/// enemy piece and the attack is permitted"; "A piece can never move onto a
/// node held by its own side".
#[test]
fn s3_rail_run_stops_at_first_occupied_node() {
    // Red 师长 a5, own 连长 a3, Black 连长 a9.
    let p = pos("1f2l/5/5/c4/5/5/5/D4/5/C4/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "a5"), names(&["a4", "a6", "a7", "a8", "a9", "b5"]));
}

/// §3 Rail run along rank 6 and across c6–c7 (file c's crossing is a 2-node line).
#[test]
fn s3_rail_run_along_rank_and_c_crossing() {
    let p = pos("1f2l/5/5/5/5/5/2D2/5/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "c6"), names(&["a6", "b6", "d6", "e6", "c7", "c5", "b5", "d5"]));
}

/// §3 Engineer flight: "A 工兵 on a railway node may go to any railway node it
/// can reach over railway edges through nodes that are all empty, changing
/// direction at junctions as often as it likes". With its own 连长 on a5 blocking the way
/// up, the 工兵 on a4 reaches e4 only by a4→a2 (corner) →e2 (corner) →e4; the
/// Black 地雷 on e5 stops the flight (and can be attacked).
#[test]
fn s3_engineer_turns_two_corners() {
    let mut p = pos("1f2l/5/5/5/5/5/5/C3m/E4/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "a4"), names(&["a3", "a2", "b2", "c2", "d2", "e2", "e3", "e4", "e5", "b3", "b4", "b5"]));
    assert!(matches!(play(&mut p, "a4e4"), Effect::Move { .. }));
    assert_eq!(at(&p, "e4"), "E");
    assert_eq!(at(&p, "a4"), "");
    // The same spot, a 师长 instead: no corners.
    let p = pos("1f2l/5/5/5/5/5/5/C3m/D4/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "a4"), names(&["a2", "a3", "b3", "b4", "b5"]));
}

/// §3 Engineer flight: "through nodes that are all empty"; "The node it ends
/// on must be empty or hold an enemy piece, which it attacks": an 工兵 on a2 between its own
/// 连长 (a3) and a Black 连长 (b2) can only attack b2 or step.
#[test]
fn s3_engineer_flight_needs_empty_intermediate_nodes() {
    let p = pos("1f2l/5/5/5/5/5/5/5/5/C4/Ec3/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "a2"), names(&["a1", "b2", "b3"]));
}

/// §1 mountains via move generation: "`b6` and `d6` have no edge to `b7` and
/// `d7` (the mountains)"; the frontier is crossed by rail on files a, c and e
/// only.
#[test]
fn s3_no_move_across_mountains_b6_b7_d6_d7() {
    let p = pos("1f2l/5/5/5/5/5/1L3/5/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "b6"), names(&["a6", "b5", "c6", "d6", "e6"]));
    let p = pos("1f2l/5/5/5/5/5/3L1/5/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "d6"), names(&["a6", "b6", "c6", "d5", "e6"]));
    // From Black's side: d7 cannot go down to d6, b7 not to b6.
    let p = pos("1f2l/5/5/5/5/3l1/5/5/5/5/5/1F2L mingqi 2 r 0 1", &[]);
    assert_eq!(moves_from(&p, "d7"), names(&["a7", "b7", "c7", "d8", "e7"]));
    let p = pos("1f2l/5/5/5/5/1l3/5/5/5/5/5/1F2L mingqi 2 r 0 1", &[]);
    assert_eq!(moves_from(&p, "b7"), names(&["a7", "b8", "c7", "d7", "e7"]));
}

/// §1: files a and e "cross the frontier (`a6–a7`, `e6–e7`)", and "`c6` and
/// `c7`, the third crossing of the frontier": pieces on a6, c6
/// and e6 cross the frontier.
#[test]
fn s3_a6_a7_c6_c7_e6_e7_cross() {
    let p = pos("1f2l/5/5/5/5/5/L1L1D/5/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert!(moves_from(&p, "a6").contains(&"a7".to_string()));
    assert!(moves_from(&p, "c6").contains(&"c7".to_string()));
    assert!(moves_from(&p, "e6").contains(&"e7".to_string()));
    // The file-a and file-e lines run on into Black's half.
    assert!(moves_from(&p, "a6").contains(&"a11".to_string()));
    assert!(moves_from(&p, "e6").contains(&"e11".to_string()));
}

/// §3 Camps: "A piece in a camp (行营) is safe: nothing may attack it, although
/// it may attack from there."
/// Black 军长 in camp b8, Red 师长 on a7 (a7–b8 is a camp diagonal).
#[test]
fn s3_camp_piece_cannot_be_attacked_but_may_attack_out() {
    for mode in ["mingqi", "anqi"] {
        let p = pos(&format!("1f2l/5/5/5/1g3/D4/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &[]);
        let m = moves_from(&p, "a7");
        assert!(!m.contains(&"b8".to_string()), "{mode}: attacked into a camp");
        assert_eq!(m, names(&["a2", "a3", "a4", "a5", "a6", "a8", "a9", "a10", "a11", "b7", "c7", "d7", "e7"]));
        let mut p = pos(&format!("1f2l/5/5/5/1g3/D4/5/5/5/5/5/1F2L {mode} 2 r 0 1"), &[]);
        assert!(moves_from(&p, "b8").contains(&"a7".to_string()));
        let e = play(&mut p, "b8a7");
        assert_eq!(attack_outcome(&e), CombatOutcome::AttackerWon);
        assert_eq!(at(&p, "a7"), "g");
        assert_eq!(at(&p, "b8"), "");
    }
    // 翻棋: a face-up piece in a camp is safe too, even from an 工兵 or 炸弹.
    for attacker in ["D", "E", "B"] {
        let p = pos(&format!("1f2l/5/5/5/1g3/{attacker}4/5/5/5/5/5/1F2L fanqi 1 r 0 0"), &["attack_hidden=true"]);
        assert!(!moves_from(&p, "a7").contains(&"b8".to_string()), "fanqi {attacker}");
    }
}

/// §3 Camps: "a piece gets into or out of a camp only by a step": an 工兵 in
/// camp b5
/// only steps (no flight from a camp); a rail run or flight never ends in a
/// camp (camps are not railway nodes), so the only camp a flier on a6 reaches
/// is b5, one step away.
#[test]
fn s3_camps_entered_and_left_only_by_steps() {
    let p = pos("1f2l/5/5/5/5/5/5/1E3/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "b5"), names(&["a4", "a5", "a6", "b4", "b6", "c4", "c5", "c6"]));
    // Even when every piece flies.
    let p = pos("1f2l/5/5/5/5/5/5/1K3/5/5/5/1F2L mingqi 1 r 0 0", &["rail_turns=all"]);
    assert_eq!(moves_from(&p, "b5"), names(&["a4", "a5", "a6", "b4", "b6", "c4", "c5", "c6"]));
    for (jfen, from) in [
        ("1f2l/5/5/5/5/5/E4/5/5/5/5/1F2L mingqi 1 r 0 0", "a6"),
        ("1f2l/5/5/5/5/5/4D/5/5/5/5/1F2L mingqi 1 r 0 0", "e6"),
        ("1f2l/4E/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 0 0", "e11"),
    ] {
        let p = pos(jfen, &[]);
        let camps: Vec<String> = moves_from(&p, from).into_iter().filter(|d| CAMPS & sq(d).bit() != 0).collect();
        let step_camps = bb_names(ADJACENT[sq(from).index()] & CAMPS);
        assert_eq!(camps, step_camps, "{from}");
    }
}

/// §3 Camps: "A camp never holds more than one piece." Own piece in camp c4 blocks
/// the 排长 on c3; an enemy in a camp can't be entered either (see above).
#[test]
fn s3_camp_holds_one_piece() {
    let p = pos("1f2l/5/5/5/5/5/5/5/2C2/2L2/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "c3"), names(&["b3", "c2", "d3"]));
    // Nothing ever moves into an occupied camp.
    let p = pos("1f2l/5/5/5/5/5/5/1C1c1/2L2/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "c4"), names(&["b4", "c3", "c5", "d4", "b3", "d3"]));
}

/// §3 Headquarters: "A piece in a headquarters (大本营) can be attacked."
#[test]
fn s3_headquarters_may_be_attacked() {
    let mut p = pos("1f1jl/3D1/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert!(moves_from(&p, "d11").contains(&"d12".to_string()));
    assert_eq!(attack_outcome(&play(&mut p, "d11d12")), CombatOutcome::AttackerWon);
    assert_eq!(at(&p, "d12"), "D");
}

/// §3 Headquarters: "When `hq_locked` is on, a piece that is in a
/// headquarters, including one placed there at the start, can never move
/// again"; §6 hq_locked default true in
/// 暗棋/明棋, **off** in 翻棋.
#[test]
fn s3_hq_locked_on_and_off() {
    // 暗棋/明棋 default: locked.
    for mode in ["anqi", "mingqi"] {
        let p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F1DL {mode} 1 r 0 0"), &[]);
        assert!(moves_from(&p, "d1").is_empty(), "{mode}");
        let p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F1DL {mode} 1 r 0 0"), &["hq_locked=false"]);
        assert_eq!(moves_from(&p, "d1"), names(&["c1", "d2"]), "{mode}");
    }
    // A piece that enters a headquarters never leaves it.
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/3D1/1F2L mingqi 1 r 0 0", &[]);
    play(&mut p, "d2d1");
    play(&mut p, "e12e11");
    assert!(moves_from(&p, "d1").is_empty());
    // 翻棋 default: not locked.
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F1DL fanqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "d1"), names(&["c1", "d2"]));
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F1DL fanqi 1 r 0 0", &["hq_locked=true"]);
    assert!(moves_from(&p, "d1").is_empty());
    // Black's headquarters too.
    let p = pos("1f1dl/5/5/5/5/5/5/5/5/5/5/1F2L mingqi 2 r 0 1", &[]);
    assert!(moves_from(&p, "d12").is_empty());
}

/// §3: "A piece can never move onto a node held by its own side, and a player
/// cannot pass."
#[test]
fn s3_no_move_onto_own_piece_and_no_pass() {
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/C4/L4/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(moves_from(&p, "a2"), names(&["a1", "b2", "c2", "d2", "e2", "b3"]));
    for m in legal(&p) {
        let m = mv(&m);
        assert_ne!(m.from, m.to, "pass/flip in mingqi");
        let target = p.piece_at(m.to);
        assert!(target.map_or(true, |t| t.colour == Colour::Black), "{m} lands on own piece");
    }
    assert_eq!(p.play(mv("a2a3")), Err(PlayError::Illegal(mv("a2a3"))));
    assert_eq!(p.play(mv("e1e1")), Err(PlayError::Illegal(mv("e1e1"))));
    assert_eq!(p.play(mv("a3a3")), Err(PlayError::Illegal(mv("a3a3"))));
}

// ======================================================================
// §4 Combat
// ======================================================================

const RANKED: [Kind; 9] = [
    Kind::Commander,
    Kind::General,
    Kind::Division,
    Kind::Brigade,
    Kind::Regiment,
    Kind::Battalion,
    Kind::Company,
    Kind::Platoon,
    Kind::Engineer,
];

/// Red `att` on b4 attacks Black `def` on a4 (b4–a4 is a road edge).
fn duel(mode: &str, att: Kind, def: Kind, overrides: &[&str]) -> (CombatOutcome, Position) {
    let jfen = format!("1f2l/5/5/5/5/5/5/5/{}{}3/5/5/1F2L {mode} 1 r 0 0", black(def).letter(), red(att).letter());
    let mut p = pos(&jfen, overrides);
    let e = play(&mut p, "b4a4");
    match e {
        Effect::Attack { attacker, defender, .. } => {
            assert_eq!((attacker, defender), (red(att), black(def)));
        }
        other => panic!("{other:?}"),
    }
    (attack_outcome(&e), p)
}

/// Check the board after a duel matches the outcome.
fn check_duel_board(p: &Position, att: Kind, def: Kind, o: CombatOutcome) {
    let (a4, b4) = (p.piece_at(sq("a4")), p.piece_at(sq("b4")));
    assert_eq!(b4, None, "the attacker left b4 in every case");
    match o {
        CombatOutcome::AttackerWon => assert_eq!(a4, Some(red(att)), "attacker moves in"),
        CombatOutcome::DefenderWon => assert_eq!(a4, Some(black(def)), "defender stays"),
        CombatOutcome::BothRemoved => assert_eq!(a4, None, "both removed"),
        other => panic!("{other:?}"),
    }
}

fn position_in_order(k: Kind) -> usize {
    RANKED.iter().position(|&x| x == k).unwrap()
}

/// §4: when "a bomb (炸弹) is the attacker or the defender", "both pieces are
/// removed".
#[test]
fn s4_bomb_vs_anything_both_removed() {
    for mode in ["mingqi", "anqi"] {
        let targets = RANKED.iter().copied().chain([Kind::Bomb, Kind::Mine]);
        for def in targets {
            let (o, p) = duel(mode, Kind::Bomb, def, &[]);
            assert_eq!(o, CombatOutcome::BothRemoved, "{mode}: bomb attacks {def:?}");
            check_duel_board(&p, Kind::Bomb, def, o);
        }
        for att in RANKED {
            let (o, p) = duel(mode, att, Kind::Bomb, &[]);
            assert_eq!(o, CombatOutcome::BothRemoved, "{mode}: {att:?} attacks a bomb");
            check_duel_board(&p, att, Kind::Bomb, o);
        }
    }
}

/// §4: when "the defender is a mine, the attacker an engineer", "the mine is
/// removed and the engineer takes its node".
#[test]
fn s4_engineer_takes_mine_and_moves_in() {
    for mode in ["mingqi", "anqi"] {
        for rule in ["mine_rule=spring", "mine_rule=trade"] {
            let (o, p) = duel(mode, Kind::Engineer, Kind::Mine, &[rule]);
            assert_eq!(o, CombatOutcome::AttackerWon, "{mode} {rule}");
            check_duel_board(&p, Kind::Engineer, Kind::Mine, o);
        }
    }
}

/// §4: when the defender is a mine and "the attacker any other piece", it is
/// "decided by `mine_rule`: `spring` (弹簧雷) removes the attacker and leaves
/// the mine; `trade` (炸弹雷) removes both". Default is spring.
#[test]
fn s4_other_attacker_vs_mine_spring_and_trade() {
    for mode in ["mingqi", "anqi"] {
        for att in RANKED.iter().copied().filter(|&k| k != Kind::Engineer) {
            for (overrides, expected) in [
                (&[][..], CombatOutcome::DefenderWon),
                (&["mine_rule=spring"][..], CombatOutcome::DefenderWon),
                (&["mine_rule=trade"][..], CombatOutcome::BothRemoved),
            ] {
                let (o, p) = duel(mode, att, Kind::Mine, overrides);
                assert_eq!(o, expected, "{mode} {att:?} {overrides:?}");
                check_duel_board(&p, att, Kind::Mine, o);
            }
        }
    }
}

/// §4: for "two ranked pieces (officers or engineers) of different rank", "the
/// higher one survives: a winning attacker moves onto the node, a losing
/// attacker is taken off"; for "two ranked pieces of the same rank (对子)",
/// "both are removed". §2 "The first nine rows are ranked, strongest first":
/// 司令 > 军长 > 师长 > 旅长 > 团长 > 营长 > 连长 > 排长 > 工兵.
#[test]
fn s4_officers_higher_wins_lower_loses_equal_both_removed() {
    for mode in ["mingqi", "anqi"] {
        for att in RANKED {
            for def in RANKED {
                let (o, p) = duel(mode, att, def, &[]);
                let expected = match position_in_order(att).cmp(&position_in_order(def)) {
                    std::cmp::Ordering::Less => CombatOutcome::AttackerWon,
                    std::cmp::Ordering::Greater => CombatOutcome::DefenderWon,
                    std::cmp::Ordering::Equal => CombatOutcome::BothRemoved,
                };
                assert_eq!(o, expected, "{mode}: {att:?} attacks {def:?}");
                check_duel_board(&p, att, def, o);
            }
        }
    }
}

/// §4: when "the defender is the flag", "the flag falls and the attacking side
/// wins on the spot"; results from seat 1's side (§8).
#[test]
fn s4_flag_captured_capturer_wins_at_once() {
    for mode in ["mingqi", "anqi"] {
        let mut p = pos(&format!("1f2l/1D3/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &[]);
        assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured);
        assert_eq!(at(&p, "b12"), "D", "the capturer moves in");
        assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
        assert!(legal(&p).is_empty());
        assert!(matches!(p.play(mv("e12e11")), Err(PlayError::GameOver(_))));
        // Black takes Red's flag.
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/1d3/1F2L {mode} 2 r 0 1"), &[]);
        assert_eq!(attack_outcome(&play(&mut p, "b2b1")), CombatOutcome::FlagCaptured);
        assert_eq!(result(&p), Some((Some(Seat::Second), Termination::FlagCaptured, "0-1")));
    }
}

/// §4: "a bomb that takes the flag disappears with it".
#[test]
fn s4_bomb_capturing_flag_is_removed_too() {
    for mode in ["mingqi", "anqi", "fanqi"] {
        let mut p = pos(&format!("1f2l/1B3/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &[]);
        assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured, "{mode}");
        assert_eq!(at(&p, "b12"), "");
        assert_eq!(at(&p, "b11"), "");
        assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    }
}

// ======================================================================
// §5.1 暗棋 anqi
// ======================================================================

/// A legal Red deployment written out by hand.
fn red_deployment() -> Deployment {
    let layout: [(Kind, &[&str]); 12] = [
        (Kind::Flag, &["b1"]),
        (Kind::Mine, &["a1", "c1", "a2"]),
        (Kind::Bomb, &["b2", "c2"]),
        (Kind::Commander, &["d1"]),
        (Kind::General, &["e1"]),
        (Kind::Division, &["d2", "e2"]),
        (Kind::Brigade, &["a3", "c3"]),
        (Kind::Regiment, &["e3", "a4"]),
        (Kind::Battalion, &["b4", "d4"]),
        (Kind::Company, &["e4", "a5", "c5"]),
        (Kind::Platoon, &["e5", "a6", "b6"]),
        (Kind::Engineer, &["c6", "d6", "e6"]),
    ];
    let pieces = layout.iter().flat_map(|(k, list)| list.iter().map(move |s| (sq(s), *k))).collect();
    Deployment { colour: Colour::Red, pieces }
}

/// The mirror image for Black.
fn black_deployment() -> Deployment {
    let red = red_deployment();
    Deployment { colour: Colour::Black, pieces: red.pieces.iter().map(|&(s, k)| (s.rotated(), k)).collect() }
}

/// Move the piece standing on `from` to `to` (nothing else changes).
fn moved(d: &Deployment, from: &str, to: &str) -> Deployment {
    let mut d = d.clone();
    let e = d.pieces.iter_mut().find(|(s, _)| *s == sq(from)).unwrap_or_else(|| panic!("nothing on {from}"));
    e.0 = sq(to);
    d
}

/// Swap the pieces on two nodes.
fn swapped(d: &Deployment, a: &str, b: &str) -> Deployment {
    let mut d = d.clone();
    for e in d.pieces.iter_mut() {
        if e.0 == sq(a) {
            e.0 = sq(b);
        } else if e.0 == sq(b) {
            e.0 = sq(a);
        }
    }
    d
}

/// §5.1 Deployment: "Each player places all 25 pieces of its army on the 25
/// non-camp nodes of its own half (its 23 posts and 2 headquarters), one piece
/// on each node": "the flag goes in one of the player's own headquarters";
/// "mines may stand only on the player's own two back ranks (ranks 1–2 for
/// Red, 11–12 for Black)"; "bombs may not stand on the player's own front rank
/// (rank 6 for Red, 7 for Black)"; "camps stay empty".
#[test]
fn s5_1_deployment_hand_built_is_valid() {
    assert_eq!(red_deployment().validate(), Ok(()));
    assert_eq!(black_deployment().validate(), Ok(()));
    // Flag in the other HQ is fine too.
    assert_eq!(swapped(&red_deployment(), "b1", "d1").validate(), Ok(()));
    // Mines in the HQ (rank 1) and anywhere on rank 2 are fine.
    assert_eq!(swapped(&red_deployment(), "a1", "d1").validate(), Ok(()));
    assert_eq!(swapped(&red_deployment(), "a1", "e2").validate(), Ok(()));
    let p = Position::from_deployments(Rules::preset(Mode::Anqi), &red_deployment(), &black_deployment()).unwrap();
    assert_eq!(p.piece_count(), 50);
    assert_eq!(Deployment::from_position(&p, Colour::Red).validate(), Ok(()));
}

/// §5.1 Deployment: "the flag goes in one of the player's own headquarters".
#[test]
fn s5_1_deployment_flag_outside_hq_rejected() {
    let d = swapped(&red_deployment(), "b1", "a3");
    assert_eq!(d.validate(), Err(DeploymentError::FlagOutsideHeadquarters { square: sq("a3") }));
    let d = swapped(&black_deployment(), "d12", "e10");
    assert_eq!(d.validate(), Err(DeploymentError::FlagOutsideHeadquarters { square: sq("e10") }));
}

/// §5.1 Deployment: "mines may stand only on the player's own two back ranks
/// (ranks 1–2 for Red, 11–12 for Black)".
#[test]
fn s5_1_deployment_mine_on_rank_3_rejected() {
    let d = swapped(&red_deployment(), "a2", "a3");
    assert_eq!(d.validate(), Err(DeploymentError::MineOutsideBackRanks { square: sq("a3") }));
    let d = swapped(&red_deployment(), "a2", "a6");
    assert_eq!(d.validate(), Err(DeploymentError::MineOutsideBackRanks { square: sq("a6") }));
    // Black: rank 10 is outside its last two ranks.
    let d = swapped(&black_deployment(), "e11", "e10");
    assert_eq!(d.validate(), Err(DeploymentError::MineOutsideBackRanks { square: sq("e10") }));
}

/// §5.1 Deployment: "bombs may not stand on the player's own front rank (rank
/// 6 for Red, 7 for Black)".
#[test]
fn s5_1_deployment_bomb_on_front_rank_rejected() {
    let d = swapped(&red_deployment(), "b2", "a6");
    assert_eq!(d.validate(), Err(DeploymentError::BombOnFrontRank { square: sq("a6") }));
    let d = swapped(&black_deployment(), "d11", "e7");
    assert_eq!(d.validate(), Err(DeploymentError::BombOnFrontRank { square: sq("e7") }));
    // A bomb on rank 5 is fine.
    assert_eq!(swapped(&red_deployment(), "b2", "a5").validate(), Ok(()));
}

/// §5.1 Deployment: "camps stay empty".
#[test]
fn s5_1_deployment_piece_in_camp_rejected() {
    for camp in ["b3", "d3", "c4", "b5", "d5"] {
        let d = moved(&red_deployment(), "c6", camp);
        assert_eq!(d.validate(), Err(DeploymentError::InCamp { square: sq(camp) }));
    }
    let d = moved(&black_deployment(), "c7", "c9");
    assert_eq!(d.validate(), Err(DeploymentError::InCamp { square: sq("c9") }));
}

/// §5.1 Deployment: "on the 25 non-camp nodes of its own half".
#[test]
fn s5_1_deployment_outside_half_rejected() {
    let d = moved(&red_deployment(), "c6", "c7");
    assert_eq!(d.validate(), Err(DeploymentError::OutsideHalf { square: sq("c7"), colour: "red" }));
    let d = moved(&black_deployment(), "c7", "c6");
    assert_eq!(d.validate(), Err(DeploymentError::OutsideHalf { square: sq("c6"), colour: "black" }));
}

/// §5.1 Deployment: "all 25 pieces of its army" (§2 counts).
#[test]
fn s5_1_deployment_wrong_counts_rejected() {
    // A second 司令 instead of a 排长.
    let mut d = red_deployment();
    d.pieces.iter_mut().find(|(s, _)| *s == sq("a6")).unwrap().1 = Kind::Commander;
    assert_eq!(d.validate(), Err(DeploymentError::Count { kind: "commander", expected: 1, found: 2 }));
    // Only 24 pieces.
    let mut d = red_deployment();
    d.pieces.retain(|(s, _)| *s != sq("e6"));
    assert_eq!(d.validate(), Err(DeploymentError::Count { kind: "engineer", expected: 3, found: 2 }));
    // A fourth mine instead of a 工兵.
    let mut d = red_deployment();
    d.pieces.iter_mut().find(|(s, _)| *s == sq("b1")).unwrap().1 = Kind::Mine;
    d.pieces.iter_mut().find(|(s, _)| *s == sq("d1")).unwrap().1 = Kind::Flag;
    d.pieces.iter_mut().find(|(s, _)| *s == sq("e1")).unwrap().1 = Kind::Commander;
    assert_eq!(d.validate(), Err(DeploymentError::Count { kind: "general", expected: 1, found: 0 }));
}

/// §5.1 Deployment: "one piece on each node".
#[test]
fn s5_1_deployment_duplicate_square_rejected() {
    let d = moved(&red_deployment(), "c6", "e6");
    assert_eq!(d.validate(), Err(DeploymentError::SameSquare { square: sq("e6") }));
}

/// §5.1 Deployment: a broken deployment can't start a game.
#[test]
fn s5_1_from_deployments_validates() {
    let bad = swapped(&red_deployment(), "a2", "a3");
    assert_eq!(
        Position::from_deployments(Rules::preset(Mode::Anqi), &bad, &black_deployment()),
        Err(DeploymentError::MineOutsideBackRanks { square: sq("a3") })
    );
}

/// §5.1 Deployment: `Deployment::random` is always legal, for both colours,
/// over many seeds, and uses both headquarters for the flag.
#[test]
fn s5_1_random_deployments_are_always_valid() {
    let mut flag_squares = BTreeSet::new();
    for seed in 0..400u64 {
        let mut rng = rng_from_seed(seed);
        for colour in Colour::ALL {
            let d = Deployment::random(colour, &mut rng);
            assert_eq!(d.colour, colour);
            assert_eq!(d.validate(), Ok(()), "seed {seed} {colour:?}");
            assert_eq!(d.pieces.len(), 25);
            let covered = d.pieces.iter().fold(0u64, |a, (s, _)| a | s.bit());
            assert_eq!(covered, deployment_zone(colour), "every non-camp node of the half is filled");
            let flag = d.pieces.iter().find(|(_, k)| *k == Kind::Flag).unwrap().0;
            flag_squares.insert(flag.to_string());
        }
        // A whole new game: both deployments valid, Red (seat 1) to move.
        let p = Position::new_game(Rules::preset(Mode::Anqi), seed);
        for colour in Colour::ALL {
            assert_eq!(Deployment::from_position(&p, colour).validate(), Ok(()), "seed {seed}");
        }
    }
    assert_eq!(flag_squares, ["b1", "d1", "b12", "d12"].iter().map(|s| s.to_string()).collect());
}

/// §5.1 First move: "Red moves first, unless `first_player` (§6) gives the
/// first move to Black."
#[test]
fn s5_1_red_moves_first() {
    for mode in [Mode::Anqi, Mode::Mingqi] {
        let p = Position::new_game(Rules::preset(mode), 3);
        assert_eq!(p.turn(), Seat::First);
        assert_eq!(p.seat1_colour(), Some(Colour::Red));
        assert!(p.to_jfen().ends_with(&format!(" {} 1 r 0 0", mode.name())));
        let moves = legal(&p);
        assert!(!moves.is_empty());
        for m in moves {
            assert_eq!(p.piece_at(mv(&m).from).unwrap().colour, Colour::Red);
        }
    }
}

/// §5.1 Information: "A player knows its own pieces and sees which nodes enemy
/// pieces occupy, but never which kinds they are."
#[test]
fn s5_1_information_own_pieces_and_enemy_locations_only() {
    let p = Position::new_game(Rules::preset(Mode::Anqi), 11);
    for seat in Seat::BOTH {
        let info = InfoSet::new(&p, seat);
        let own = p.colour_of(seat).unwrap();
        for s in Square::all() {
            let truth = p.piece_at(s);
            assert_eq!(info.view().is_occupied(s), p.is_occupied(s), "{s}");
            match truth {
                Some(t) if t.colour == own => assert_eq!(info.view().piece_at(s), Some(t)),
                Some(_) => assert_eq!(info.view().piece_at(s), None, "{seat}: enemy kind on {s} leaked"),
                None => {}
            }
        }
    }
}

/// §5.1 Information: "After an attack, both players are told only how it
/// ended: the attacker was removed, the defender was removed, both were
/// removed, or the flag was captured."
#[test]
fn s5_1_information_attack_reveals_only_the_outcome() {
    let mut g = game("1f2l/5/5/5/5/5/5/5/cD3/5/5/1F2L anqi 1 r 0 0", &[]);
    let (e, obs) = gplay(&mut g, "b4a4");
    assert_eq!(attack_outcome(&e), CombatOutcome::AttackerWon);
    assert_eq!(
        obs[0].event,
        ObservedEvent::Attack {
            attacker: Some(red(Kind::Division)),
            defender: None,
            outcome: CombatOutcome::AttackerWon
        }
    );
    assert_eq!(
        obs[1].event,
        ObservedEvent::Attack {
            attacker: None,
            defender: Some(black(Kind::Company)),
            outcome: CombatOutcome::AttackerWon
        }
    );
    assert!(revealed(&obs[0]).is_empty() && revealed(&obs[1]).is_empty());
    // Black still does not know what stands on a4 now.
    assert_eq!(g.infoset(Seat::Second).view().piece_at(sq("a4")), None);
    assert!(g.infoset(Seat::Second).view().is_occupied(sq("a4")));
}

/// §5.1 `reveal_flag_on_commander_loss` (on by default): "once a side's 司令
/// has been removed, the node of that side's flag is made public". Red's 司令 runs into a mine;
/// Red has pieces in both HQs, so the flag cannot be deduced otherwise.
#[test]
fn s5_1_reveal_flag_on_commander_loss_on() {
    let jfen = "1f2l/5/5/5/5/5/5/5/mK3/5/5/1F1OL anqi 1 r 0 0";
    for overrides in [&[][..], &["reveal_flag_on_commander_loss=true"][..]] {
        let mut g = game(jfen, overrides);
        assert_eq!(g.infoset(Seat::Second).view().piece_at(sq("b1")), None, "not known before");
        let (e, obs) = gplay(&mut g, "b4a4");
        assert_eq!(attack_outcome(&e), CombatOutcome::DefenderWon);
        for o in &obs {
            assert!(revealed(o).contains(&(sq("b1"), red(Kind::Flag))), "{:?}", o);
            assert!(o.commander_lost[Colour::Red.index()]);
        }
        assert_eq!(g.infoset(Seat::Second).view().piece_at(sq("b1")), Some(red(Kind::Flag)));
    }
}

/// §5.1 `reveal_flag_on_commander_loss` off: the flag stays hidden.
#[test]
fn s5_1_reveal_flag_on_commander_loss_off() {
    let mut g = game("1f2l/5/5/5/5/5/5/5/mK3/5/5/1F1OL anqi 1 r 0 0", &["reveal_flag_on_commander_loss=false"]);
    let (e, obs) = gplay(&mut g, "b4a4");
    assert_eq!(attack_outcome(&e), CombatOutcome::DefenderWon);
    for o in &obs {
        assert!(revealed(o).is_empty(), "{o:?}");
    }
    assert_eq!(g.infoset(Seat::Second).view().piece_at(sq("b1")), None);
    assert_eq!(g.infoset(Seat::Second).view().piece_at(sq("d1")), None);
}

/// §5.1 `reveal_flag_on_commander_loss`: "once a side's 司令 has been removed,
/// the node of that side's flag is made public" — also when both 司令 fall in one attack
/// (对子): then both flags become public, to both players.
#[test]
fn s5_1_reveal_flag_both_commanders_lost_in_one_attack() {
    let mut g = game("1f1jl/5/5/5/5/5/5/5/kK3/5/5/1F1OL anqi 1 r 0 0", &[]);
    let (e, obs) = gplay(&mut g, "b4a4");
    assert_eq!(attack_outcome(&e), CombatOutcome::BothRemoved);
    for o in &obs {
        let r = revealed(o);
        assert!(r.contains(&(sq("b1"), red(Kind::Flag))), "Red's flag not public: {o:?}");
        assert!(r.contains(&(sq("b12"), black(Kind::Flag))), "Black's flag not public: {o:?}");
    }
    assert_eq!(g.infoset(Seat::First).view().piece_at(sq("b12")), Some(black(Kind::Flag)));
    assert_eq!(g.infoset(Seat::Second).view().piece_at(sq("b1")), Some(red(Kind::Flag)));
}

/// §5.1 `engineer_scout` (工兵侦察, off by default): "when an engineer attacks
/// any piece, the engineer is removed, the defender stays where it is, and the
/// defender's kind is made public."
#[test]
fn s5_1_engineer_scout_on() {
    for (def, letter) in [(Kind::General, 'g'), (Kind::Mine, 'm'), (Kind::Platoon, 'l'), (Kind::Bomb, 'b')] {
        let mut g = game(&format!("1f2l/5/5/5/5/5/5/5/{letter}E3/5/5/1F2L anqi 1 r 7 7"), &["engineer_scout=true"]);
        let (e, obs) = gplay(&mut g, "b4a4");
        assert_eq!(attack_outcome(&e), CombatOutcome::Scouted, "{def:?}");
        assert_eq!(g.truth().piece_at(sq("b4")), None, "the engineer is removed");
        assert_eq!(g.truth().piece_at(sq("a4")), Some(black(def)), "the defender stays");
        assert_eq!(g.truth().quiet(), 0);
        for o in &obs {
            assert!(revealed(o).contains(&(sq("a4"), black(def))), "{o:?}");
        }
        assert_eq!(g.infoset(Seat::First).view().piece_at(sq("a4")), Some(black(def)));
    }
    // "any piece" includes the flag: the engineer is removed, the flag stays,
    // nothing is captured (docs/rules-notes.md).
    let mut g = game("1f2l/1E3/5/5/5/5/5/5/5/5/5/1F2L anqi 1 r 0 0", &["engineer_scout=true"]);
    let (e, obs) = gplay(&mut g, "b11b12");
    assert_eq!(attack_outcome(&e), CombatOutcome::Scouted);
    assert_eq!(g.truth().piece_at(sq("b12")), Some(black(Kind::Flag)));
    assert_eq!(g.truth().piece_at(sq("b11")), None);
    assert!(revealed(&obs[0]).contains(&(sq("b12"), black(Kind::Flag))));
    assert_eq!(g.outcome(), None);
    // It does not apply to 明棋 (§6 table: `—` outside anqi).
    let mut r = Rules::preset(Mode::Mingqi);
    assert!(matches!(r.apply_override("engineer_scout=true"), Err(RulesError::NotApplicable { .. })));
}

/// §5.1 `engineer_scout` off (default): an engineer fights normally and
/// nothing is made public.
#[test]
fn s5_1_engineer_scout_off() {
    let mut g = game("1f2l/5/5/5/5/5/5/5/gE3/5/5/1F2L anqi 1 r 0 0", &[]);
    let (e, obs) = gplay(&mut g, "b4a4");
    assert_eq!(attack_outcome(&e), CombatOutcome::DefenderWon);
    for o in &obs {
        assert!(revealed(o).is_empty());
    }
    assert_eq!(g.infoset(Seat::First).view().piece_at(sq("a4")), None);
    let mut g = game("1f2l/5/5/5/5/5/5/5/mE3/5/5/1F2L anqi 1 r 0 0", &["engineer_scout=false"]);
    let (e, _) = gplay(&mut g, "b4a4");
    assert_eq!(attack_outcome(&e), CombatOutcome::AttackerWon);
}

/// §5.1 Flag: "Any movable piece may capture the enemy flag; with
/// `bomb_captures_flag` (on by default) that includes a bomb".
#[test]
fn s5_1_any_movable_piece_may_capture_the_flag() {
    for mode in ["anqi", "mingqi"] {
        for letter in ['K', 'D', 'L', 'E', 'B'] {
            let mut p = pos(&format!("1f2l/1{letter}3/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &[]);
            assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured, "{mode} {letter}");
            assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
        }
    }
}

/// §5.1 End: "a side has no movable pieces left (no officer, engineer or
/// bomb): that side loses at once" — even when the other side is to move.
#[test]
fn s5_1_end_last_movable_piece_lost_loses_at_once() {
    for mode in ["anqi", "mingqi"] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/mD3/5/5/1F3 {mode} 1 r 0 0"), &[]);
        assert_eq!(result(&p), None);
        assert_eq!(attack_outcome(&play(&mut p, "b4a4")), CombatOutcome::DefenderWon);
        assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoMovablePieces, "0-1")), "{mode}");
        // Black loses its last movable piece attacking Red.
        let mut p = pos(&format!("1f3/5/5/5/5/5/5/5/5/5/2K2/1Fd2 {mode} 2 r 0 1"), &[]);
        assert_eq!(attack_outcome(&play(&mut p, "c1c2")), CombatOutcome::DefenderWon);
        assert_eq!(result(&p), Some((Some(Seat::First), Termination::NoMovablePieces, "1-0")), "{mode}");
    }
}

/// §5.1 End: "if one attack takes the last movable pieces of both sides the
/// game is a draw".
#[test]
fn s5_1_end_both_sides_lose_last_movable_in_one_attack_is_draw() {
    for mode in ["anqi", "mingqi"] {
        for (att, def) in [('D', 'd'), ('B', 'k'), ('K', 'b'), ('E', 'e')] {
            let mut p = pos(&format!("1f3/5/5/5/5/5/5/5/{def}{att}3/5/5/1F3 {mode} 1 r 0 0"), &[]);
            assert_eq!(attack_outcome(&play(&mut p, "b4a4")), CombatOutcome::BothRemoved);
            let o = p.outcome().unwrap();
            assert_eq!((o.winner, o.termination, o.result_str()), (None, Termination::NoMovablePieces, "1/2-1/2"));
        }
    }
}

/// §5.1 End: "the player to move has no legal move: that player loses": its
/// only movable
/// piece is locked in a headquarters, or boxed in by its own mine and flag.
#[test]
fn s5_1_end_no_legal_move_loses() {
    // 师长 locked in d1.
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F1D1 anqi 1 r 0 0", &[]);
    assert!(legal(&p).is_empty());
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoLegalMove, "0-1")));
    // 工兵 on a1 boxed in by its own mine a2 and flag b1.
    for mode in ["anqi", "mingqi"] {
        let p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/M4/EF3 {mode} 1 r 0 0"), &[]);
        assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoLegalMove, "0-1")), "{mode}");
    }
    // Black to move, its 排长 e12 boxed in by its flag d12 and mine e11.
    let p = pos("3fl/4m/5/5/5/5/5/5/5/5/5/1F2L mingqi 2 r 0 1", &[]);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::NoLegalMove, "1-0")));
    // Reached by play: Red's move leaves Black without a move.
    let mut p = pos("3fl/4m/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 0 0", &[]);
    assert_eq!(result(&p), None);
    play(&mut p, "e1e2");
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::NoLegalMove, "1-0")));
}

/// §5.1 End: "`no_progress_plies` plies (70 by default, the figure of source
/// text 001) have passed without a capture: draw".
#[test]
fn s5_1_end_seventy_quiet_plies_draw() {
    for mode in ["anqi", "mingqi"] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 69 100"), &[]);
        assert_eq!(result(&p), None);
        assert!(matches!(play(&mut p, "e1e2"), Effect::Move { .. }));
        assert_eq!(p.quiet(), 70);
        assert_eq!(result(&p), Some((None, Termination::QuietPlies, "1/2-1/2")), "{mode}");
        assert!(legal(&p).is_empty());
        // One ply earlier: not yet.
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 68 100"), &[]);
        play(&mut p, "e1e2");
        assert_eq!(p.quiet(), 69);
        assert_eq!(result(&p), None);
    }
}

/// §5.1 End: "the game reaches `max_plies` plies (2000 by default): draw".
#[test]
fn s5_1_end_max_plies_draw() {
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L anqi 1 r 0 1999", &[]);
    assert_eq!(result(&p), None);
    play(&mut p, "e1e2");
    assert_eq!(p.ply(), 2000);
    assert_eq!(result(&p), Some((None, Termination::MaxPlies, "1/2-1/2")));
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L anqi 1 r 0 1998", &[]);
    play(&mut p, "e1e2");
    assert_eq!(result(&p), None);
}

// ======================================================================
// §5.2 明棋 mingqi
// ======================================================================

/// §5.2: "明棋 is 暗棋 (§5.1) with nothing hidden: both players see every
/// piece's kind from the first move."
#[test]
fn s5_2_mingqi_everything_public() {
    let p = Position::new_game(Rules::preset(Mode::Mingqi), 5);
    for seat in Seat::BOTH {
        assert_eq!(InfoSet::new(&p, seat).view(), &p);
    }
    let mut g = game("1f2l/5/5/5/5/5/5/5/cD3/5/5/1F2L mingqi 1 r 0 0", &[]);
    let (_, obs) = gplay(&mut g, "b4a4");
    for o in &obs {
        assert_eq!(
            o.event,
            ObservedEvent::Attack {
                attacker: Some(red(Kind::Division)),
                defender: Some(black(Kind::Company)),
                outcome: CombatOutcome::AttackerWon
            }
        );
    }
    assert_eq!(g.infoset(Seat::Second).view(), g.truth());
}

// ======================================================================
// §5.3 翻棋 fanqi
// ======================================================================

/// §5.3 Setup: "The 50 pieces of both armies are shuffled and laid face-down,
/// one on each of the 50 non-camp nodes of the board (the 46 posts and the 4
/// headquarters). No camp holds a piece at the start." §7: "A 翻棋 game starts
/// with every non-camp node face-down and no colours given out"
/// (`… fanqi 1 - 0 0`).
#[test]
fn s5_3_setup_fifty_face_down_pieces_camps_empty() {
    for seed in 0..30u64 {
        let p = Position::new_game(Rules::preset(Mode::Fanqi), seed);
        assert_eq!(p.occupied(), junqi_core::board::ALL & !CAMPS);
        assert_eq!(p.face_down(), p.occupied());
        assert_eq!(p.occupied() & CAMPS, 0);
        for colour in Colour::ALL {
            for k in Kind::ALL {
                assert_eq!(p.count(colour, k), k.count(), "seed {seed} {colour:?} {k:?}");
            }
        }
        assert_eq!(p.seat1_colour(), None);
        assert_eq!(p.turn(), Seat::First);
        let jfen = p.to_jfen();
        assert!(jfen.ends_with(" fanqi 1 - 0 0"), "{jfen}");
        assert_eq!(jfen.matches('~').count(), 50);
        let moves = legal(&p);
        assert_eq!(moves.len(), 50);
        assert!(moves.iter().all(|m| mv(m).is_flip()));
    }
}

/// §5.3 Colours: "As long as nobody has a colour, flipping is the only legal
/// action" — even with a face-up piece on the board (`-r`, `two_in_a_row`).
#[test]
fn s5_3_colours_unassigned_only_flips() {
    let jfen = "~f4/~l4/5/5/5/5/2R2/5/5/5/~L4/~F4 fanqi 1 -r 1 1";
    let p = pos(jfen, &["color_rule=two_in_a_row"]);
    assert_eq!(p.last_flip(), Some(Colour::Red));
    assert_eq!(legal(&p), names(&["a12a12", "a11a11", "a2a2", "a1a1"]));
    let p = pos("~f4/~l4/5/5/5/5/2R2/5/5/5/~L4/~F4 fanqi 2 -r 1 1", &["color_rule=two_in_a_row"]);
    assert_eq!(legal(&p), names(&["a12a12", "a11a11", "a2a2", "a1a1"]));
    let p = pos("~f4/~l4/5/5/5/5/5/5/5/5/~L4/~F4 fanqi 1 - 0 0", &[]);
    assert_eq!(legal(&p), names(&["a12a12", "a11a11", "a2a2", "a1a1"]));
}

const FANQI_FOUR: &str = "~f4/~l4/5/5/5/5/5/5/5/5/~L4/~F4";

/// §5.3 `color_rule` = `first_flip` (default): "whoever turns up the very
/// first piece takes that piece's colour, and the opponent takes the other" —
/// seat 1 flipping.
/// §5.3 Turn: "A piece that has been turned up stays face-up on its node."
#[test]
fn s5_3_first_flip_from_seat_1() {
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 1 - 0 0"), &[]);
    assert!(matches!(play(&mut p, "a2a2"), Effect::Flip { piece } if piece == red(Kind::Platoon)));
    assert_eq!(p.colour_of(Seat::First), Some(Colour::Red));
    assert_eq!(p.colour_of(Seat::Second), Some(Colour::Black));
    assert_eq!(p.to_jfen(), "~f4/~l4/5/5/5/5/5/5/5/5/L4/~F4 fanqi 2 r 0 1");
    assert_eq!(at(&p, "a2"), "L");
    // Seat 1 flips a Black piece: seat 1 is Black.
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 1 - 0 0"), &["color_rule=first_flip"]);
    play(&mut p, "a11a11");
    assert_eq!(p.colour_of(Seat::First), Some(Colour::Black));
    assert_eq!(p.to_jfen(), "~f4/l4/5/5/5/5/5/5/5/5/~L4/~F4 fanqi 2 b 0 1");
    // Seat 2 (Red) now may move nothing face-up: flips only; seat 1 (Black) may move its 排长.
    assert!(legal(&p).iter().all(|m| mv(m).is_flip()));
    play(&mut p, "a1a1");
    assert!(moves_from(&p, "a11").contains(&"a10".to_string()));
}

/// §5.3 `first_flip` when seat 2 makes the first flip (`-` colours, seat 2 to move).
#[test]
fn s5_3_first_flip_from_seat_2() {
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 2 - 0 1"), &[]);
    play(&mut p, "a2a2"); // seat 2 flips Red
    assert_eq!(p.colour_of(Seat::Second), Some(Colour::Red));
    assert_eq!(p.colour_of(Seat::First), Some(Colour::Black));
    assert_eq!(p.to_jfen(), "~f4/~l4/5/5/5/5/5/5/5/5/L4/~F4 fanqi 1 b 0 2");
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 2 - 0 1"), &[]);
    play(&mut p, "a11a11"); // seat 2 flips Black
    assert_eq!(p.colour_of(Seat::Second), Some(Colour::Black));
    assert_eq!(p.to_jfen(), "~f4/l4/5/5/5/5/5/5/5/5/~L4/~F4 fanqi 1 r 0 2");
}

/// §5.3 `color_rule` = `two_in_a_row`: "a player takes a colour the first time
/// its flip reveals the colour that the preceding flip revealed"; §7 colours:
/// "under `two_in_a_row` it becomes `-r` or `-b` to record that the last flip
/// turned up a red or a black piece".
#[test]
fn s5_3_two_in_a_row_colour_assignment() {
    // Red, Black, Black: seat 1 makes the second Black flip and gets Black.
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 1 - 0 0"), &["color_rule=two_in_a_row"]);
    play(&mut p, "a2a2");
    assert_eq!(p.to_jfen(), "~f4/~l4/5/5/5/5/5/5/5/5/L4/~F4 fanqi 2 -r 0 1");
    assert_eq!(p.seat1_colour(), None);
    assert!(legal(&p).iter().all(|m| mv(m).is_flip()), "still unassigned: flips only");
    play(&mut p, "a11a11");
    assert_eq!(p.to_jfen(), "~f4/l4/5/5/5/5/5/5/5/5/L4/~F4 fanqi 1 -b 0 2");
    assert_eq!(p.seat1_colour(), None);
    play(&mut p, "a12a12");
    assert_eq!(p.colour_of(Seat::First), Some(Colour::Black));
    assert_eq!(p.to_jfen(), "f4/l4/5/5/5/5/5/5/5/5/L4/~F4 fanqi 2 b 0 3");
    // Seat 2 is Red and may move its 排长.
    assert!(moves_from(&p, "a2").contains(&"a3".to_string()));

    // Red, Red: seat 2 makes the second Red flip and gets Red.
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 1 - 0 0"), &["color_rule=two_in_a_row"]);
    play(&mut p, "a2a2");
    play(&mut p, "a1a1");
    assert_eq!(p.colour_of(Seat::Second), Some(Colour::Red));
    assert_eq!(p.to_jfen(), "~f4/~l4/5/5/5/5/5/5/5/5/L4/F4 fanqi 1 b 0 2");

    // From a JFEN with `-b`, seat 2 flips Black and gets Black.
    let mut p = pos("~f4/l4/5/5/5/5/5/5/5/5/~L4/~F4 fanqi 2 -b 0 1", &["color_rule=two_in_a_row"]);
    play(&mut p, "a12a12");
    assert_eq!(p.colour_of(Seat::Second), Some(Colour::Black));
    assert_eq!(p.seat1_colour(), Some(Colour::Red));
}

/// §5.3 Turn: "On each turn a player either turns up any face-down piece, of
/// either colour, or moves one of its own face-up movable pieces."
#[test]
fn s5_3_turn_is_a_flip_or_a_move_of_own_face_up_piece() {
    let p = pos("1f2l/5/5/5/5/5/2D1d/5/5/5/5/~L~F3 fanqi 1 r 0 0", &[]);
    let moves = legal(&p);
    let flips: Vec<&String> = moves.iter().filter(|m| mv(m).is_flip()).collect();
    assert_eq!(flips, vec!["a1a1", "b1b1"]);
    for m in moves.iter().filter(|m| !mv(m).is_flip()) {
        assert!(m.starts_with("c6"), "{m}: only Red's face-up 师长 moves");
    }
    assert!(moves.contains(&"c6d6".to_string()));
    assert!(moves.contains(&"c6e6".to_string()), "attack on a face-up enemy");
    assert!(!moves.iter().any(|m| m.starts_with("e6")), "Black's pieces do not move on Red's turn");
}

/// §5.3 Attacking hidden pieces: "Normally only face-up enemy pieces can be
/// attacked", unless `attack_hidden` is on.
#[test]
fn s5_3_face_down_pieces_cannot_be_attacked_without_attack_hidden() {
    for target in ["~d", "~R", "~m", "~f"] {
        let jfen = format!("4l/5/5/5/5/5/1{target}D2/5/5/5/5/1F2L fanqi 1 r 0 0");
        let jfen = if target == "~f" { jfen } else { jfen.replacen("4l", "1f2l", 1) };
        let p = pos(&jfen, &[]);
        assert!(!moves_from(&p, "c6").contains(&"b6".to_string()), "{target}");
        assert!(!moves_from(&p, "c6").contains(&"a6".to_string()), "a rail run does not pass a face-down piece");
        let p = pos(&jfen, &["attack_hidden=false"]);
        assert!(!moves_from(&p, "c6").contains(&"b6".to_string()), "{target}");
        let p = pos(&jfen, &["attack_hidden=true"]);
        assert!(moves_from(&p, "c6").contains(&"b6".to_string()), "{target}");
    }
}

/// §5.3 `attack_hidden`: "The defender is first turned up. If it belongs to
/// the attacker's own side, … the attacker stays where it was and the turn is
/// over"; §8 "When an `attack_hidden` attack merely uncovers the defender and
/// the attacker stays put, it is treated as a flip" (resets quiet).
#[test]
fn s5_3_attack_hidden_onto_own_colour_turns_it_up() {
    let mut p = pos("1f2l/5/5/5/5/5/1~RD2/5/5/5/5/1F2L fanqi 1 r 5 10", &["attack_hidden=true"]);
    let e = play(&mut p, "c6b6");
    assert_eq!(
        e,
        Effect::Attack { attacker: red(Kind::Division), defender: red(Kind::Brigade), outcome: CombatOutcome::Bounced }
    );
    assert_eq!(p.to_jfen(), "1f2l/5/5/5/5/5/1RD2/5/5/5/5/1F2L fanqi 2 r 0 11");
}

/// §5.3 `attack_hidden`: "… or it is a flag this attacker is not yet allowed
/// to capture, the attacker stays where it was and the turn is over" — a flag
/// still guarded by a mine.
#[test]
fn s5_3_attack_hidden_onto_guarded_flag_bounces() {
    let mut p = pos("~m3l/5/5/5/5/5/1~fD2/5/5/5/5/1F2L fanqi 1 r 3 10", &["attack_hidden=true"]);
    let e = play(&mut p, "c6b6");
    assert_eq!(attack_outcome(&e), CombatOutcome::Bounced);
    assert_eq!(p.to_jfen(), "~m3l/5/5/5/5/5/1fD2/5/5/5/5/1F2L fanqi 2 r 0 11");
    assert_eq!(result(&p), None);
    // Now face-up and guarded: not attackable at all.
    let mut q = p.clone();
    play(&mut q, "e12e11");
    assert!(!moves_from(&q, "c6").contains(&"b6".to_string()));
}

/// §5.3 `attack_hidden` onto a flag this attacker may not capture by
/// `flag_capturer = lowest` (a face-down Red 工兵 still exists) → bounce; with
/// `any` the unguarded flag is captured.
#[test]
fn s5_3_attack_hidden_onto_flag_not_capturable_by_this_piece() {
    let jfen = "4l/5/5/5/5/5/1~fD2/5/5/5/5/~EF2L fanqi 1 r 0 10";
    let mut p = pos(jfen, &["attack_hidden=true", "flag_capturer=lowest"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::Bounced);
    assert_eq!(at(&p, "b6"), "f");
    assert_eq!(at(&p, "c6"), "D");
    assert_eq!(result(&p), None);
    let mut p = pos(jfen, &["attack_hidden=true"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::FlagCaptured);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    // bomb_captures_flag off: a bomb bounces off an unguarded hidden flag.
    let mut p =
        pos("4l/5/5/5/5/5/1~fB2/5/5/5/5/1F2L fanqi 1 r 0 10", &["attack_hidden=true", "bomb_captures_flag=false"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::Bounced);
    assert_eq!(at(&p, "c6"), "B");
}

/// §5.3 `attack_hidden`: "Otherwise the attack is resolved by §4 as usual; a
/// mine uncovered this way follows `mine_rule`."
#[test]
fn s5_3_attack_hidden_onto_hidden_mine_follows_mine_rule() {
    let jfen = "1f2l/5/5/5/5/5/1~mD2/5/5/5/5/1F2L fanqi 1 r 4 10";
    let mut p = pos(jfen, &["attack_hidden=true"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::DefenderWon);
    assert_eq!(p.to_jfen(), "1f2l/5/5/5/5/5/1m3/5/5/5/5/1F2L fanqi 2 r 0 11");
    let mut p = pos(jfen, &["attack_hidden=true", "mine_rule=trade"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::BothRemoved);
    assert_eq!(p.to_jfen(), "1f2l/5/5/5/5/5/5/5/5/5/5/1F2L fanqi 2 r 0 11");
    // An engineer clears it; a bomb trades.
    let mut p = pos("1f2l/5/5/5/5/5/1~mE2/5/5/5/5/1F2L fanqi 1 r 4 10", &["attack_hidden=true"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::AttackerWon);
    assert_eq!(at(&p, "b6"), "E");
    let mut p = pos("1f2l/5/5/5/5/5/1~mB2/5/5/5/5/1F2L fanqi 1 r 4 10", &["attack_hidden=true"]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::BothRemoved);
}

/// §5.3 `attack_hidden` onto a hidden enemy officer / bomb: normal combat (§4).
#[test]
fn s5_3_attack_hidden_onto_hidden_enemy_officer_is_normal_combat() {
    for (target, expected, b6_after) in [
        ("~c", CombatOutcome::AttackerWon, "D"),
        ("~g", CombatOutcome::DefenderWon, "g"),
        ("~d", CombatOutcome::BothRemoved, ""),
        ("~b", CombatOutcome::BothRemoved, ""),
    ] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/1{target}D2/5/5/5/5/1F2L fanqi 1 r 9 10"), &["attack_hidden=true"]);
        assert_eq!(attack_outcome(&play(&mut p, "c6b6")), expected, "{target}");
        assert_eq!(at(&p, "b6"), b6_after, "{target}");
        assert_eq!(at(&p, "c6"), "");
        assert_eq!(p.quiet(), 0);
        assert!(!p.is_face_down(sq("b6")));
    }
}

/// §5.3 Mines: "A face-up mine may be attacked only by an engineer or a bomb;
/// an attack on it by any other piece is not a legal move."
#[test]
fn s5_3_face_up_mines_only_attackable_by_engineers_and_bombs() {
    for officer in ["K", "G", "D", "L"] {
        let p = pos(&format!("1f2l/5/5/5/5/5/1m{officer}2/5/5/5/5/1F2L fanqi 1 r 0 0"), &["attack_hidden=true"]);
        assert!(!moves_from(&p, "c6").contains(&"b6".to_string()), "{officer}");
    }
    let mut p = pos("1f2l/5/5/5/5/5/1mE2/5/5/5/5/1F2L fanqi 1 r 0 0", &[]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::AttackerWon);
    assert_eq!(at(&p, "b6"), "E");
    let mut p = pos("1f2l/5/5/5/5/5/1mB2/5/5/5/5/1F2L fanqi 1 r 0 0", &[]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::BothRemoved);
    // An engineer flies onto a distant face-up mine.
    let p = pos("1f2l/5/5/5/5/5/m4/5/5/5/4E/1F2L fanqi 1 r 0 0", &[]);
    assert!(moves_from(&p, "e2").contains(&"a6".to_string()));
}

/// §5.3 Flag: "A side's flag cannot be attacked while any of that side's 3
/// mines remains on the board" (a face-down mine anywhere still guards it).
#[test]
fn s5_3_flag_attackable_only_after_all_mines_gone() {
    for guard in ["~mF2L", "mF2L"] {
        let p = pos(&format!("1f2l/1D3/5/5/5/5/5/5/5/5/5/{guard} fanqi 1 r 0 0"), &[]);
        assert!(!moves_from(&p, "b11").contains(&"b12".to_string()), "{guard}");
    }
    // With 3 mines and with 1 left.
    let p = pos("1f2l/1D3/5/5/5/5/5/5/5/5/m4/~mF~m1L fanqi 1 r 0 0", &[]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
    let mut p = pos("1f2l/1D3/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0", &[]);
    assert!(moves_from(&p, "b11").contains(&"b12".to_string()));
    assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
}

/// §5.3 `flag_capturer` = `lowest` (扛旗用最小的棋子): "only a piece whose rank
/// is the lowest ranked kind the attacking side still has on the board,
/// counting face-up and face-down pieces alike, with the engineer as the
/// lowest rank of all".
#[test]
fn s5_3_flag_capturer_lowest() {
    // Red: 师长 b11 and 工兵 c12 (face-up).
    let jfen = "1fE1l/1D3/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0";
    let p = pos(jfen, &["flag_capturer=lowest"]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
    let mut q = p.clone();
    assert!(moves_from(&q, "c12").contains(&"b12".to_string()));
    assert_eq!(attack_outcome(&play(&mut q, "c12b12")), CombatOutcome::FlagCaptured);
    assert_eq!(result(&q), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    // `any`: the 师长 may.
    let p = pos(jfen, &["flag_capturer=any"]);
    assert!(moves_from(&p, "b11").contains(&"b12".to_string()));
    // A face-down 工兵 counts.
    let p = pos("1f2l/1D3/5/5/5/5/5/5/5/5/5/~EF2L fanqi 1 r 0 0", &["flag_capturer=lowest"]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
    // Without engineers, the lowest officer left (here 排长 e1 vs 师长) is the capturer.
    let p = pos("1f2l/1D3/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0", &["flag_capturer=lowest"]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
    let p = pos("1f2l/1L3/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0", &["flag_capturer=lowest"]);
    assert!(moves_from(&p, "b11").contains(&"b12".to_string()));
}

/// §5.3 `flag_capturer` = `lowest`: "If the attacking side has neither
/// officers nor engineers any more, a bomb may take the flag" (and a bomb may
/// not while one is left).
#[test]
fn s5_3_flag_capturer_lowest_bomb_when_no_officer_left() {
    let mut p = pos("1f2l/1B3/5/5/5/5/5/5/5/5/5/1F3 fanqi 1 r 0 0", &["flag_capturer=lowest"]);
    assert!(moves_from(&p, "b11").contains(&"b12".to_string()));
    assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    let p = pos("1f2l/1B3/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0", &["flag_capturer=lowest"]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
}

/// §5.3 `hq_locked` default **off** (大本营内的可移动棋子可以移动) — see also
/// `s3_hq_locked_on_and_off`; a face-up piece flipped in an HQ moves out.
#[test]
fn s5_3_hq_not_locked_by_default() {
    assert!(!Rules::preset(Mode::Fanqi).hq_locked);
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F1~DL fanqi 1 r 0 0", &[]);
    play(&mut p, "d1d1");
    play(&mut p, "e12e11");
    assert_eq!(moves_from(&p, "d1"), names(&["c1", "d2"]));
}

/// §5.3 End: "A side loses when it has no movable piece anywhere on the
/// board, whether face-up or face-down".
#[test]
fn s5_3_end_no_movable_piece_anywhere() {
    // Red's last face-up movable piece trades with a bomb; a face-down 工兵 keeps Red alive.
    let mut p = pos("1f2l/5/5/5/5/5/1bD2/5/5/5/5/~EF3 fanqi 1 r 0 0", &[]);
    play(&mut p, "c6b6");
    assert_eq!(result(&p), None);
    let mut p = pos("1f2l/5/5/5/5/5/1bD2/5/5/5/5/1F3 fanqi 1 r 0 0", &[]);
    assert_eq!(attack_outcome(&play(&mut p, "c6b6")), CombatOutcome::BothRemoved);
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoMovablePieces, "0-1")));
    // Only face-down mines left for Red (and its flag): Red has lost.
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/~MF3 fanqi 2 r 0 1", &[]);
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoMovablePieces, "0-1")));
}

/// §5.3 End: "… or when it has no legal action on its turn".
#[test]
fn s5_3_end_no_legal_action() {
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/M4/EF3 fanqi 1 r 0 0", &[]);
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoLegalMove, "0-1")));
    // A face-down piece to flip is a legal action.
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/M4/EF2~C fanqi 1 r 0 0", &[]);
    assert_eq!(legal(&p), names(&["e1e1"]));
    assert_eq!(result(&p), None);
}

/// §5.3 End: "The game is drawn after `no_progress_plies` plies (70 by
/// default) with neither a capture nor a flip".
#[test]
fn s5_3_end_quiet_draw_flip_resets() {
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/~CF2L fanqi 1 r 69 100", &[]);
    play(&mut p, "a1a1");
    assert_eq!(p.quiet(), 0);
    assert_eq!(result(&p), None);
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/~CF2L fanqi 1 r 69 100", &[]);
    play(&mut p, "e1e2");
    assert_eq!(result(&p), Some((None, Termination::QuietPlies, "1/2-1/2")));
    // Before colours are assigned, flips keep quiet at 0.
    let mut p = pos(&format!("{FANQI_FOUR} fanqi 1 - 69 100"), &[]);
    play(&mut p, "a2a2");
    assert_eq!(p.quiet(), 0);
}

// ======================================================================
// §6 Variant options
// ======================================================================
//
// Options tested in the sections where their clause lives:
// `mine_rule` → s4_other_attacker_vs_mine_spring_and_trade, s5_3_attack_hidden_onto_hidden_mine_…;
// `hq_locked` → s3_hq_locked_on_and_off, s5_3_hq_not_locked_by_default;
// `reveal_flag_on_commander_loss` → s5_1_reveal_flag_…; `engineer_scout` → s5_1_engineer_scout_…;
// `color_rule` → s5_3_first_flip_…, s5_3_two_in_a_row_…; `attack_hidden` → s5_3_attack_hidden_…,
// s5_3_face_down_pieces_…; `flag_capturer` → s5_3_flag_capturer_lowest_… (and below for 暗棋/明棋);
// `no_progress_plies` / `max_plies` defaults → s5_1_end_…, s8_….

/// §6 table: the defaults of every option per mode.
#[test]
fn s6_defaults_table() {
    for mode in [Mode::Anqi, Mode::Mingqi] {
        let r = Rules::preset(mode);
        assert_eq!(r.rail_turns, RailTurns::Engineer);
        assert!(!r.bomb_flies);
        assert_eq!(r.mine_rule, MineRule::Spring);
        assert!(r.hq_locked);
        assert_eq!(r.first_player, FirstPlayer::Red);
        assert_eq!(r.no_progress_plies, 70);
        assert_eq!(r.max_plies, 2000);
        assert!(r.reveal_flag_on_commander_loss);
        assert!(!r.engineer_scout);
        assert!(r.bomb_captures_flag);
        assert_eq!(r.flag_capturer, FlagCapturer::Any);
    }
    let r = Rules::preset(Mode::Fanqi);
    assert_eq!(r.rail_turns, RailTurns::Engineer);
    assert!(!r.bomb_flies);
    assert_eq!(r.mine_rule, MineRule::Spring);
    assert!(!r.hq_locked);
    assert_eq!(r.no_progress_plies, 70);
    assert_eq!(r.max_plies, 2000);
    assert!(r.bomb_captures_flag);
    assert_eq!(r.color_rule, ColorRule::FirstFlip);
    assert!(!r.attack_hidden);
    assert_eq!(r.flag_capturer, FlagCapturer::Any);
}

/// §6 table: the `—` cells (an option that does not apply to a mode cannot be set).
#[test]
fn s6_options_that_do_not_apply_are_rejected() {
    let not_in_fanqi = ["first_player=black", "reveal_flag_on_commander_loss=false", "engineer_scout=true"];
    for o in not_in_fanqi {
        let mut r = Rules::preset(Mode::Fanqi);
        assert!(matches!(r.apply_override(o), Err(RulesError::NotApplicable { .. })), "{o}");
    }
    for mode in [Mode::Anqi, Mode::Mingqi] {
        for o in ["color_rule=two_in_a_row", "attack_hidden=true"] {
            let mut r = Rules::preset(mode);
            assert!(matches!(r.apply_override(o), Err(RulesError::NotApplicable { .. })), "{mode} {o}");
        }
    }
    assert!(!option_applies("engineer_scout", Mode::Mingqi));
    assert!(option_applies("engineer_scout", Mode::Anqi));
    for o in [
        "rail_turns",
        "bomb_flies",
        "mine_rule",
        "hq_locked",
        "no_progress_plies",
        "max_plies",
        "bomb_captures_flag",
        "flag_capturer",
    ] {
        for mode in Mode::ALL {
            assert!(option_applies(o, mode), "{o} {mode}");
        }
    }
    // Every value named in the table parses.
    let mut r = Rules::preset(Mode::Anqi);
    for o in [
        "rail_turns=engineer",
        "rail_turns=none",
        "rail_turns=all",
        "bomb_flies=true",
        "mine_rule=trade",
        "mine_rule=spring",
        "hq_locked=false",
        "first_player=black",
        "first_player=red",
        "no_progress_plies=30",
        "max_plies=500",
        "reveal_flag_on_commander_loss=false",
        "engineer_scout=true",
        "bomb_captures_flag=false",
        "flag_capturer=lowest",
        "flag_capturer=any",
    ] {
        r.apply_override(o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
    let mut f = Rules::preset(Mode::Fanqi);
    for o in ["color_rule=two_in_a_row", "color_rule=first_flip", "attack_hidden=true"] {
        f.apply_override(o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
}

/// §6 `rail_turns` = `none`: nobody turns, the engineer runs straight only.
#[test]
fn s6_rail_turns_none_engineer_runs_straight() {
    let p = pos("1f2l/5/5/5/5/5/5/C3m/E4/5/5/1F2L mingqi 1 r 0 0", &["rail_turns=none"]);
    assert_eq!(moves_from(&p, "a4"), names(&["a2", "a3", "b3", "b4", "b5"]));
    let p = pos("1f2l/5/5/5/5/5/5/E4/5/5/5/1F2L fanqi 1 r 0 0", &["rail_turns=none"]);
    assert_eq!(moves_from(&p, "a5"), names(&["a2", "a3", "a4", "a6", "a7", "a8", "a9", "a10", "a11", "b5"]));
}

/// §6 `rail_turns` = `all`: "every movable piece flies like an engineer" — a
/// 司令 flies.
#[test]
fn s6_rail_turns_all_commander_flies() {
    let flight = names(&["a3", "a2", "b2", "c2", "d2", "e2", "e3", "e4", "e5", "b3", "b4", "b5"]);
    for piece in ["K", "D", "B"] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/C3m/{piece}4/5/5/1F2L mingqi 1 r 0 0"), &["rail_turns=all"]);
        assert_eq!(moves_from(&p, "a4"), flight, "{piece}");
        play(&mut p, "a4e4");
        assert_eq!(at(&p, "e4"), piece);
    }
    let p = pos("1f2l/5/5/5/5/5/5/C3m/K4/5/5/1F2L mingqi 1 r 0 0", &["rail_turns=engineer"]);
    assert_eq!(moves_from(&p, "a4"), names(&["a2", "a3", "b3", "b4", "b5"]));
}

/// §6 `bomb_flies` (炸弹满天飞): "bombs may also use §3 Engineer flight,
/// whatever `rail_turns` says".
#[test]
fn s6_bomb_flies() {
    let jfen = "1f2l/5/5/5/5/5/5/C3m/B4/5/5/1F2L mingqi 1 r 0 0";
    let straight = names(&["a2", "a3", "b3", "b4", "b5"]);
    let flight = names(&["a3", "a2", "b2", "c2", "d2", "e2", "e3", "e4", "e5", "b3", "b4", "b5"]);
    assert_eq!(moves_from(&pos(jfen, &[]), "a4"), straight);
    assert_eq!(moves_from(&pos(jfen, &["bomb_flies=false"]), "a4"), straight);
    assert_eq!(moves_from(&pos(jfen, &["bomb_flies=true"]), "a4"), flight);
    assert_eq!(moves_from(&pos(jfen, &["bomb_flies=true", "rail_turns=none"]), "a4"), flight);
    // The engineer still runs straight under rail_turns=none, bomb_flies or not.
    let e = "1f2l/5/5/5/5/5/5/C3m/E4/5/5/1F2L mingqi 1 r 0 0";
    assert_eq!(moves_from(&pos(e, &["bomb_flies=true", "rail_turns=none"]), "a4"), straight);
    // A flying bomb trades with the mine it reaches.
    let mut p = pos(jfen, &["bomb_flies=true"]);
    assert_eq!(attack_outcome(&play(&mut p, "a4e5")), CombatOutcome::BothRemoved);
    // 翻棋 too.
    let p = pos("1f2l/5/5/5/5/5/5/C3m/B4/5/5/1F2L fanqi 1 r 0 0", &["bomb_flies=true"]);
    assert!(moves_from(&p, "a4").contains(&"e4".to_string()));
}

/// §6 `first_player` = `black`: seat 1 is Black and moves first; JFEN colours
/// `b`; a colours field that disagrees with the rules is an error.
#[test]
fn s6_first_player_black() {
    for mode in [Mode::Anqi, Mode::Mingqi] {
        let r = rules(mode, &["first_player=black"]);
        let p = Position::new_game(r, 9);
        assert_eq!(p.turn(), Seat::First);
        assert_eq!(p.colour_of(Seat::First), Some(Colour::Black));
        assert!(p.to_jfen().ends_with(&format!(" {} 1 b 0 0", mode.name())), "{}", p.to_jfen());
        let moves = legal(&p);
        assert!(!moves.is_empty());
        for m in moves {
            assert_eq!(p.piece_at(mv(&m).from).unwrap().colour, Colour::Black, "{m}");
        }
        // Black still deploys in ranks 7–12.
        assert_eq!(Deployment::from_position(&p, Colour::Black).validate(), Ok(()));
    }
    let b = "1f2l/5/5/5/5/5/5/5/5/5/1d3/1F2L anqi 1 b 0 0";
    let r = "1f2l/5/5/5/5/5/5/5/5/5/1d3/1F2L anqi 1 r 0 0";
    assert!(matches!(Position::from_jfen(b, Rules::preset(Mode::Anqi)), Err(JfenError::FirstPlayerMismatch { .. })));
    assert!(matches!(
        Position::from_jfen(r, rules(Mode::Anqi, &["first_player=black"])),
        Err(JfenError::FirstPlayerMismatch { .. })
    ));
    assert!(matches!(
        Position::from_jfen(&b.replace("anqi", "mingqi"), Rules::preset(Mode::Mingqi)),
        Err(JfenError::FirstPlayerMismatch { .. })
    ));
    // Seat 1 (Black) takes Red's flag: 1-0.
    let mut p = pos(b, &["first_player=black"]);
    assert_eq!(moves_from(&p, "b2"), names(&["a2", "b1", "b3", "c2", "d2", "e2"]));
    assert_eq!(attack_outcome(&play(&mut p, "b2b1")), CombatOutcome::FlagCaptured);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    // `first_player` is not an option of 翻棋.
    assert!(matches!(rules_result(Mode::Fanqi, "first_player=black"), Err(RulesError::NotApplicable { .. })));
}

/// §6 `no_progress_plies` (int): the quiet draw at a chosen count.
#[test]
fn s6_no_progress_plies_custom() {
    for mode in ["mingqi", "fanqi"] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 9 50"), &["no_progress_plies=10"]);
        play(&mut p, "e1e2");
        assert_eq!(result(&p), Some((None, Termination::QuietPlies, "1/2-1/2")), "{mode}");
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 8 50"), &["no_progress_plies=10"]);
        play(&mut p, "e1e2");
        assert_eq!(result(&p), None);
        // Beyond the default 70 with a larger limit.
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 80 100"), &["no_progress_plies=100"]);
        play(&mut p, "e1e2");
        assert_eq!(result(&p), None);
    }
}

/// §6 `max_plies` (int).
#[test]
fn s6_max_plies_custom() {
    for mode in ["anqi", "fanqi"] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 49"), &["max_plies=50"]);
        play(&mut p, "e1e2");
        assert_eq!(result(&p), Some((None, Termination::MaxPlies, "1/2-1/2")), "{mode}");
    }
}

/// §6 `bomb_captures_flag` off in 暗棋/明棋: the attack is allowed (the
/// referee cannot refuse it without revealing the flag) but the bomb is
/// removed and the flag stays — the engine's documented choice.
#[test]
fn s6_bomb_captures_flag_off_anqi_mingqi_attacker_removed() {
    for mode in ["anqi", "mingqi"] {
        let mut p = pos(&format!("1f2l/1B3/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &["bomb_captures_flag=false"]);
        assert!(moves_from(&p, "b11").contains(&"b12".to_string()));
        assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::DefenderWon, "{mode}");
        assert_eq!(at(&p, "b11"), "");
        assert_eq!(at(&p, "b12"), "f");
        assert_eq!(result(&p), None);
        assert_eq!(p.quiet(), 0);
    }
}

/// §6 `bomb_captures_flag` in 翻棋: `true` "(once the mines are gone)"; off, a
/// bomb may not
/// attack the flag at all.
#[test]
fn s6_bomb_captures_flag_fanqi() {
    let jfen = "1f2l/1B3/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0";
    let mut p = pos(jfen, &["bomb_captures_flag=true"]);
    assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    let p = pos(jfen, &["bomb_captures_flag=false"]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
    // Guarded by a mine: not even with bomb_captures_flag on.
    let p = pos("1f2l/1B3/5/5/5/5/5/5/5/5/5/1F1mL fanqi 1 r 0 0", &["bomb_captures_flag=true"]);
    assert!(!moves_from(&p, "b11").contains(&"b12".to_string()));
}

/// §6 `flag_capturer` = `lowest` in 暗棋/明棋: a non-capturer that attacks the
/// flag is removed (the engine's documented choice for a disallowed flag attack).
#[test]
fn s6_flag_capturer_lowest_anqi_mingqi() {
    for mode in ["anqi", "mingqi"] {
        let mut p = pos(&format!("1f2l/1D3/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &["flag_capturer=lowest"]);
        assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::DefenderWon, "{mode}");
        assert_eq!(at(&p, "b12"), "f");
        assert_eq!(result(&p), None);
        // The 排长 is Red's lowest piece: it captures.
        let mut p = pos(&format!("1f2l/1L3/5/5/5/5/5/5/5/5/5/1F2L {mode} 1 r 0 0"), &["flag_capturer=lowest"]);
        assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured, "{mode}");
    }
}

// ======================================================================
// §7 Notation
// ======================================================================

/// §7 JFEN: "A position is one line of six fields with a single space between
/// them" (`<board> <mode> <turn> <colours> <quiet> <ply>`); board: "the ranks
/// from 12 down to 1, separated by `/`. Each rank is read from file `a` to
/// file `e`"; "one digit from 1 to 5 stands for that many empty nodes in a
/// row".
#[test]
fn s7_jfen_fields() {
    let jfen = "1f2l/5/5/5/5/5/5/5/5/5/5/1F2L mingqi 2 r 12 34";
    let p = pos(jfen, &[]);
    assert_eq!(p.mode(), Mode::Mingqi);
    assert_eq!(p.turn(), Seat::Second);
    assert_eq!(p.seat1_colour(), Some(Colour::Red));
    assert_eq!((p.quiet(), p.ply()), (12, 34));
    assert_eq!(at(&p, "b12"), "f");
    assert_eq!(at(&p, "e12"), "l");
    assert_eq!(at(&p, "b1"), "F");
    assert_eq!(at(&p, "e1"), "L");
    assert_eq!(p.piece_count(), 4);
    // Ranks run 12 → 1 and files a → e.
    let p = pos("KF3/5/5/5/5/5/5/5/5/5/5/1f2e mingqi 1 r 0 0", &["hq_locked=false"]);
    assert_eq!(p.piece_at(sq("a12")), Some(red(Kind::Commander)));
    assert_eq!(p.piece_at(sq("e1")), Some(black(Kind::Engineer)));
    // `~` marks a face-down piece (fanqi only).
    let p = pos("1~f2l/5/5/5/5/5/5/5/5/5/5/1F2~L fanqi 1 -r 0 0", &["color_rule=two_in_a_row"]);
    assert!(p.is_face_down(sq("b12")) && p.is_face_down(sq("e1")));
    assert!(!p.is_face_down(sq("b1")));
}

/// §7 JFEN: malformed fields are errors.
#[test]
fn s7_jfen_errors() {
    let anqi = Rules::preset(Mode::Anqi);
    let fanqi = Rules::preset(Mode::Fanqi);
    let base = "1f2l/5/5/5/5/5/5/5/5/5/5/1F2L";
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 1 r 0"), anqi), Err(JfenError::FieldCount(5))));
    assert!(matches!(Position::from_jfen("1f2l/5/1F2L anqi 1 r 0 0", anqi), Err(JfenError::RankCount(3))));
    assert!(matches!(
        Position::from_jfen("1f2l/6/5/5/5/5/5/5/5/5/5/1F2L anqi 1 r 0 0", anqi),
        Err(JfenError::Rank { .. })
    ));
    assert!(matches!(
        Position::from_jfen("1f2l/4/5/5/5/5/5/5/5/5/5/1F2L anqi 1 r 0 0", anqi),
        Err(JfenError::Rank { .. })
    ));
    assert!(matches!(
        Position::from_jfen("1x2l/5/5/5/5/5/5/5/5/5/5/1F2L anqi 1 r 0 0", anqi),
        Err(JfenError::Rank { .. })
    ));
    assert!(matches!(Position::from_jfen(&format!("{base} chess 1 r 0 0"), anqi), Err(JfenError::Mode(_))));
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 3 r 0 0"), anqi), Err(JfenError::Turn(_))));
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 1 x 0 0"), anqi), Err(JfenError::Colours { .. })));
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 1 r -1 0"), anqi), Err(JfenError::Counter { .. })));
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 1 r 0 x"), anqi), Err(JfenError::Counter { .. })));
    // The mode of the rules must match.
    assert!(matches!(Position::from_jfen(&format!("{base} fanqi 1 r 0 0"), anqi), Err(JfenError::ModeMismatch { .. })));
    // In anqi/mingqi the colours field is `r` (or `b`), never `-`.
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 1 - 0 0"), anqi), Err(JfenError::Colours { .. })));
    assert!(matches!(Position::from_jfen(&format!("{base} anqi 1 -r 0 0"), anqi), Err(JfenError::Colours { .. })));
    // `~` only in fanqi.
    assert!(matches!(
        Position::from_jfen("1f2l/5/5/5/5/5/5/5/5/5/5/1F2~L anqi 1 r 0 0", anqi),
        Err(JfenError::Rank { .. })
    ));
    // §5.3 "No camp holds a piece at the start" and face-down pieces never
    // move: no `~` on a camp.
    assert!(matches!(
        Position::from_jfen("1f2l/5/5/5/5/5/5/5/2~D2/5/5/1F2L fanqi 1 r 0 0", fanqi),
        Err(JfenError::Rank { .. })
    ));
    // fanqi colours: -, -r, -b, r, b. With colours unassigned after a flip
    // (face-up pieces, a previous flip recorded) only two_in_a_row can reach
    // the position; under first_flip the first flip assigns colours.
    let mut two = fanqi;
    two.apply_override("color_rule=two_in_a_row").unwrap();
    for c in ["-", "-r", "-b", "r", "b"] {
        let p = Position::from_jfen(&format!("{base} fanqi 1 {c} 0 0"), two).unwrap();
        assert_eq!(p.to_jfen(), format!("{base} fanqi 1 {c} 0 0"));
    }
    for c in ["r", "b"] {
        assert!(Position::from_jfen(&format!("{base} fanqi 1 {c} 0 0"), fanqi).is_ok());
    }
    for c in ["-", "-r", "-b"] {
        assert!(Position::from_jfen(&format!("{base} fanqi 1 {c} 0 0"), fanqi).is_err(), "{c} under first_flip");
    }
    assert!(matches!(Position::from_jfen(&format!("{base} fanqi 1 -x 0 0"), fanqi), Err(JfenError::Colours { .. })));
    // More pieces of a kind than an army has.
    assert!(matches!(
        Position::from_jfen("1f2l/5/5/5/5/5/5/5/5/5/KK3/1F2L mingqi 1 r 0 0", Rules::preset(Mode::Mingqi)),
        Err(JfenError::Board(_))
    ));
}

/// §7 Actions: "An action is written as the node it starts from followed by
/// the node it ends on: `a6a7`, `e2e11`, `c7c8`. A flip names the same node
/// twice: `c6c6` turns up the piece on `c6`." So "all of them fit in a 60 × 60
/// table".
#[test]
fn s7_move_notation_and_flip_from_equals_to() {
    for text in ["a6a7", "e2e11", "c7c8", "c6c6", "a1e12"] {
        let m = mv(text);
        assert_eq!(m.to_string(), text);
        assert_eq!(m.action_id(), m.from.index() * 60 + m.to.index());
        assert_eq!(Move::from_action_id(m.action_id()), Some(m));
    }
    assert_eq!(mv("e2e11").from, sq("e2"));
    assert_eq!(mv("e2e11").to, sq("e11"));
    assert!(mv("c6c6").is_flip());
    assert!(!mv("c6c7").is_flip());
    assert_eq!(junqi_core::ACTIONS, 3600);
    // In fanqi a flip is played as from == to and turns that piece up.
    let mut p = pos("1f2l/5/5/5/5/5/2~D2/5/5/5/5/1F2L fanqi 1 r 0 0", &[]);
    assert!(legal(&p).contains(&"c6c6".to_string()));
    assert!(matches!(play(&mut p, "c6c6"), Effect::Flip { piece } if piece == red(Kind::Division)));
    assert!(!p.is_face_down(sq("c6")));
    for bad in ["", "a6", "f6a7", "a6a13", "a0a1"] {
        assert!(bad.parse::<Move>().is_err(), "{bad}");
    }
}

// ======================================================================
// §8 Order of checks after every action
// ======================================================================

/// §8 step 1: "If a flag was captured, the capturer's side wins" — before step
/// 2: a bomb that was Red's last movable piece captures the flag and is
/// removed, yet Red wins.
#[test]
fn s8_1_flag_capture_beats_loss_of_last_movable_piece() {
    for mode in ["anqi", "mingqi", "fanqi"] {
        let mut p = pos(&format!("1f2l/1B3/5/5/5/5/5/5/5/5/5/1F3 {mode} 1 r 0 0"), &[]);
        assert_eq!(attack_outcome(&play(&mut p, "b11b12")), CombatOutcome::FlagCaptured);
        assert_eq!(p.movable_count(Colour::Red), 0);
        assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")), "{mode}");
    }
}

/// §8 step 1 before step 4: a flag capture on the ply that reaches
/// `max_plies` (and with quiet at its limit) is a win, not a draw.
#[test]
fn s8_1_flag_capture_beats_the_counters() {
    let mut p = pos("1f2l/1D3/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 69 1999", &[]);
    play(&mut p, "b11b12");
    assert_eq!(p.ply(), 2000);
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
}

/// §8 step 2 before step 3: Red loses its last movable piece; Black, to move,
/// has no legal move either — Black wins by step 2 (no movable pieces), it
/// does not lose by step 3.
#[test]
fn s8_2_no_movable_pieces_before_no_legal_move() {
    let mut p = pos("3fl/4m/5/5/5/5/5/5/mD3/5/5/1F3 mingqi 1 r 0 0", &[]);
    assert_eq!(result(&p), None);
    assert_eq!(attack_outcome(&play(&mut p, "b4a4")), CombatOutcome::DefenderWon);
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoMovablePieces, "0-1")));
}

/// §8 step 2: "when neither colour has a movable piece (…) left, the game is
/// drawn; when exactly one colour has none, the other colour wins"
/// (Termination::NoMovablePieces, winner None).
#[test]
fn s8_2_neither_colour_has_movable_pieces_draw() {
    let mut p = pos("1f3/5/5/5/5/5/5/5/dD3/5/5/1F3 fanqi 1 r 0 0", &[]);
    assert_eq!(attack_outcome(&play(&mut p, "b4a4")), CombatOutcome::BothRemoved);
    let o = p.outcome().unwrap();
    assert_eq!(o.winner, None);
    assert_eq!(o.termination, Termination::NoMovablePieces);
    assert_eq!(o.result_str(), "1/2-1/2");
    assert_eq!(o.score(Seat::First), 0.5);
}

/// §8 step 2: "If the colours have been handed out" — a 翻棋 side with no movable
/// piece does not lose while colours are unassigned.
#[test]
fn s8_2_only_once_colours_are_assigned() {
    let mut p = pos("~f3~l/5/5/5/5/5/5/5/5/5/5/~F~M3 fanqi 1 - 0 0", &[]);
    assert_eq!(result(&p), None);
    assert_eq!(legal(&p).len(), 4);
    play(&mut p, "b1b1"); // seat 1 flips a Red mine: seat 1 is Red, which has no movable piece.
    assert_eq!(p.colour_of(Seat::First), Some(Colour::Red));
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::NoMovablePieces, "0-1")));
}

/// §8 step 3 before step 4: at the `max_plies` boundary a side with no legal
/// move loses rather than draws; likewise at the quiet limit.
#[test]
fn s8_3_no_legal_move_before_counters() {
    for (quiet, ply) in [(0, 1999), (69, 500), (69, 1999)] {
        let mut p = pos(&format!("3fl/4m/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r {quiet} {ply}"), &[]);
        assert_eq!(result(&p), None);
        play(&mut p, "e1e2");
        assert_eq!(result(&p), Some((Some(Seat::First), Termination::NoLegalMove, "1-0")), "quiet {quiet} ply {ply}");
    }
    // Contrast: Black has a move → the counters draw.
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 0 1999", &[]);
    play(&mut p, "e1e2");
    assert_eq!(result(&p), Some((None, Termination::MaxPlies, "1/2-1/2")));
}

/// §8 step 4: "If `quiet` has reached `no_progress_plies`, or `ply` has
/// reached `max_plies`, the game is drawn",
/// checked on the position itself (also straight from a JFEN).
#[test]
fn s8_4_counters_draw() {
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 70 100", &[]);
    assert_eq!(result(&p), Some((None, Termination::QuietPlies, "1/2-1/2")));
    assert!(legal(&p).is_empty());
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L fanqi 2 r 3 2000", &[]);
    assert_eq!(result(&p), Some((None, Termination::MaxPlies, "1/2-1/2")));
    let p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L fanqi 2 r 3 1999", &[]);
    assert_eq!(result(&p), None);
}

/// §8: "`quiet` goes back to 0 on every attack and every flip, and grows by
/// one on every other action."
#[test]
fn s8_quiet_counts_plies_and_every_attack_or_flip_resets_it() {
    // Moves count.
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/1F2L mingqi 1 r 5 10", &[]);
    play(&mut p, "e1e2");
    assert_eq!((p.quiet(), p.ply()), (6, 11));
    play(&mut p, "e12e11");
    assert_eq!((p.quiet(), p.ply()), (7, 12));
    // Every kind of attack resets it.
    for (def, overrides) in [
        ('c', &[][..]),                   // attacker wins
        ('g', &[][..]),                   // attacker removed
        ('d', &[][..]),                   // both removed
        ('m', &["mine_rule=spring"][..]), // spring mine
        ('m', &["mine_rule=trade"][..]),  // trade mine
    ] {
        let mut p = pos(&format!("1f2l/5/5/5/5/5/5/5/{def}D3/5/5/1F2L mingqi 1 r 69 100"), overrides);
        play(&mut p, "b4a4");
        assert_eq!(p.quiet(), 0, "{def} {overrides:?}");
        assert_eq!(result(&p), None);
    }
    // A flip resets it (also covered in §5.3).
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/5/~CF2L fanqi 1 r 40 100", &[]);
    play(&mut p, "a1a1");
    assert_eq!(p.quiet(), 0);
}

/// §8: "A result is written from seat 1's point of view: `1-0` (seat 1 wins),
/// `0-1` (seat 2 wins) or `1/2-1/2` (draw)" —
/// also when seat 1 plays Black.
#[test]
fn s8_results_from_seat_1_side() {
    // first_player = black: Red is seat 2 and its win is 0-1.
    let mut p = pos("1f2l/1D3/5/5/5/5/5/5/5/5/5/1F2L anqi 2 b 0 1", &["first_player=black"]);
    play(&mut p, "b11b12");
    let o = p.outcome().unwrap();
    assert_eq!((o.winner, o.result_str()), (Some(Seat::Second), "0-1"));
    assert_eq!(o.score(Seat::Second), 1.0);
    assert_eq!(o.score(Seat::First), 0.0);
    // 翻棋 with seat 1 Black: Black takes the flag, 1-0.
    let mut p = pos("1f2l/5/5/5/5/5/5/5/5/5/1d3/1F2L fanqi 1 b 0 9", &[]);
    play(&mut p, "b2b1");
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
}

// ======================================================================
// §5.3 Carrying the flag (扛军旗, `flag_carry`)
// ======================================================================

/// A 翻棋 position under `flag_carry=true`, seat 1 playing Red, from
/// (node, token) pairs; `turn` is 1 or 2.
fn carry_pos(pieces: &[(&str, &str)], turn: u8, extra: &[&str]) -> Position {
    fanqi_pos_under("flag_carry=true", pieces, turn, extra)
}

/// A 翻棋 position under `option` and `extra`, seat 1 playing Red, from
/// (node, token) pairs; `turn` is 1 or 2.
fn fanqi_pos_under(option: &str, pieces: &[(&str, &str)], turn: u8, extra: &[&str]) -> Position {
    let overrides: Vec<&str> = std::iter::once(option).chain(extra.iter().copied()).collect();
    pos(&format!("{} fanqi {turn} r 0 10", board_of(pieces)), &overrides)
}

#[test]
fn s5_3_flag_carry_is_a_fanqi_option_off_by_default() {
    assert!(!Rules::preset(Mode::Fanqi).flag_carry);
    assert!(option_applies("flag_carry", Mode::Fanqi));
    for mode in [Mode::Anqi, Mode::Mingqi] {
        assert!(matches!(rules_result(mode, "flag_carry=true"), Err(RulesError::NotApplicable { .. })));
    }
    let file = include_str!("../configs/variants/fanqi-flag_carry-true.toml");
    assert!(Rules::from_toml_str(file).unwrap().flag_carry);
}

/// Clause 1: only once every enemy mine is gone, only the lowest rank left
/// (face-down pieces count), never a bomb; the flag then rides on the piece.
#[test]
fn s5_3_flag_carry_clause_1_pickup_by_the_lowest_rank_only() {
    // Red: engineer a6 (lowest), general c6; Black flag c7, a Black 排长 e12.
    let base = [("a6", "E"), ("c6", "G"), ("c7", "f"), ("e12", "l"), ("b1", "F")];
    let p = carry_pos(&base, 1, &[]);
    assert!(!is_legal(&p, "c6c7"), "the general is not Red's lowest rank");
    assert!(is_legal(&p, "a6c7"), "the engineer flies to the flag");
    // With flag_capturer = any the general still may not: flag_carry decides.
    assert!(!is_legal(&carry_pos(&base, 1, &["flag_capturer=any"]), "c6c7"));
    // A Black mine left anywhere guards the flag.
    let mut guarded = base.to_vec();
    guarded.push(("a12", "m"));
    assert!(!is_legal(&carry_pos(&guarded, 1, &[]), "a6c7"));
    // A face-down Red engineer elsewhere keeps a 排长 from carrying.
    let p = carry_pos(&[("c6", "J"), ("a1", "~E"), ("c7", "f"), ("e12", "l"), ("b1", "F")], 1, &[]);
    assert!(!is_legal(&p, "c6c7"));
    let p = carry_pos(&[("c6", "J"), ("c7", "f"), ("e12", "l"), ("b1", "F")], 1, &[]);
    assert!(is_legal(&p, "c6c7"), "the 排长 is Red's lowest rank now");
    // A bomb has no rank: never a carrier, even as the last movable piece.
    let p = carry_pos(&[("c6", "B"), ("c7", "f"), ("e12", "l"), ("b1", "F")], 1, &["bomb_captures_flag=true"]);
    assert!(!is_legal(&p, "c6c7"));
    // The pick-up: the flag leaves its node and rides on the engineer.
    let mut p = carry_pos(&base, 1, &[]);
    let e = play(&mut p, "a6c7");
    assert_eq!(attack_outcome(&e), CombatOutcome::FlagCaptured);
    assert_eq!(p.loose_flag(Colour::Black), Some(junqi_core::LooseFlag { at: sq("c7"), carried: true }));
    assert_eq!(at(&p, "c7"), "E");
    assert_eq!(p.count(Colour::Black, Kind::Flag), 1, "a carried flag is still on the board");
    assert_eq!(result(&p), None, "picking the flag up wins nothing yet");
    assert_eq!(p.quiet(), 0, "a pick-up resets quiet like a capture");
    assert!(p.to_jfen().starts_with("4l/5/5/5/5/2E+f2/2G2/"), "{p}");
}

/// Clause 2 and 6: the flag goes with the carrier; the game is won on a
/// headquarters of the carrier's own half, not the enemy's.
#[test]
fn s5_3_flag_carry_clauses_2_and_6_carried_home_wins() {
    let mut p = carry_pos(&[("b2", "E+f"), ("e12", "l"), ("d1", "F")], 1, &[]);
    play(&mut p, "b2b1");
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    assert!(legal(&p).is_empty());
    // Walking with it: the flag moves along (a quiet ply).
    let mut p = carry_pos(&[("b2", "E+f"), ("e12", "l"), ("d1", "F")], 1, &[]);
    play(&mut p, "b2e2");
    assert_eq!(p.loose_flag(Colour::Black).map(|l| (l.at, l.carried)), Some((sq("e2"), true)));
    assert_eq!((p.quiet(), result(&p)), (1, None));
    // Black's headquarters are not Red's home.
    let mut p = carry_pos(&[("b11", "E+f"), ("e12", "l"), ("b1", "F")], 1, &[]);
    play(&mut p, "b11b12");
    assert_eq!(result(&p), None);
    // Black carries Red's flag to b12 / d12.
    let mut p = carry_pos(&[("d11", "e+F"), ("e1", "L"), ("b12", "f")], 2, &[]);
    play(&mut p, "d11d12");
    assert_eq!(result(&p), Some((Some(Seat::Second), Termination::FlagCaptured, "0-1")));
    // A flag merely lying in a home headquarters wins nothing.
    let p = carry_pos(&[("b1", "E-f"), ("e12", "l"), ("d1", "F")], 1, &[]);
    assert_eq!(result(&p), None);
}

/// Clause 3: the carrier's own node twice puts the flag down under it; the
/// flag stays when the piece moves on, and may be picked up again.
#[test]
fn s5_3_flag_carry_clause_3_putting_the_flag_down() {
    let mut p = carry_pos(&[("c6", "E+f"), ("e12", "l"), ("b1", "F")], 1, &[]);
    assert!(is_legal(&p, "c6c6"));
    let e = play(&mut p, "c6c6");
    assert!(matches!(e, Effect::Move { .. }), "{e:?}");
    assert_eq!(p.loose_flag(Colour::Black).map(|l| (l.at, l.carried)), Some((sq("c6"), false)));
    assert!(p.to_jfen().contains("2E-f2"), "{p}");
    play(&mut p, "e12e11");
    assert!(!is_legal(&p, "c6c6"), "a flag lying under a piece is not put down twice");
    play(&mut p, "c6c5");
    assert_eq!(at(&p, "c6"), "f", "the flag stays on its node, face-up and alone");
    assert_eq!(p.loose_flag(Colour::Black), None);
    play(&mut p, "e11e12");
    assert!(is_legal(&p, "c5c6"), "and may be picked up again");
    // A non-carrier has no such action.
    let p = carry_pos(&[("c6", "E"), ("e12", "l"), ("b1", "F"), ("c8", "f")], 1, &[]);
    assert!(!is_legal(&p, "c6c6"));
}

/// Clause 4: a carrier that attacks puts the flag down on the node it attacks from.
#[test]
fn s5_3_flag_carry_clause_4_attacking_puts_the_flag_down() {
    // The 排长 (Red's lowest) takes a Black engineer: it moves, the flag stays.
    let mut p = carry_pos(&[("c6", "J+f"), ("c7", "e"), ("e12", "l"), ("b1", "F")], 1, &[]);
    let e = play(&mut p, "c6c7");
    assert_eq!(attack_outcome(&e), CombatOutcome::AttackerWon);
    assert_eq!((at(&p, "c6"), at(&p, "c7")), ("f".to_string(), "J".to_string()));
    assert_eq!(p.loose_flag(Colour::Black), None);
    // Both removed: the flag lies alone where the carrier stood.
    let mut p = carry_pos(&[("c6", "J+f"), ("c7", "j"), ("e12", "l"), ("b1", "F")], 1, &[]);
    play(&mut p, "c6c7");
    assert_eq!((at(&p, "c6"), at(&p, "c7")), ("f".to_string(), String::new()));
    // The carrier loses: same.
    let mut p = carry_pos(&[("c6", "J+f"), ("c7", "g"), ("e12", "l"), ("b1", "F")], 1, &[]);
    play(&mut p, "c6c7");
    assert_eq!((at(&p, "c6"), at(&p, "c7")), ("f".to_string(), "g".to_string()));
    // attack_hidden bouncing off its own face-down piece: the flag is down, under it.
    let mut p = carry_pos(&[("c6", "E+f"), ("c7", "~E"), ("e12", "l"), ("b1", "F")], 1, &["attack_hidden=true"]);
    let e = play(&mut p, "c6c7");
    assert_eq!(attack_outcome(&e), CombatOutcome::Bounced);
    assert_eq!(p.loose_flag(Colour::Black).map(|l| (l.at, l.carried)), Some((sq("c6"), false)));
}

/// Clause 5: a carrier may be captured; the flag stays under the captor,
/// which cannot move it, and lies alone when the captor leaves.
#[test]
fn s5_3_flag_carry_clause_5_carrier_captured_flag_not_moved() {
    let mut p = carry_pos(&[("c6", "E+f"), ("c7", "g"), ("e12", "l"), ("b1", "F"), ("e1", "J")], 2, &[]);
    assert!(is_legal(&p, "c7c6"));
    play(&mut p, "c7c6");
    assert_eq!(at(&p, "c6"), "g");
    assert_eq!(p.loose_flag(Colour::Black).map(|l| (l.at, l.carried)), Some((sq("c6"), false)));
    assert!(p.to_jfen().contains("2g-f2"), "{p}");
    play(&mut p, "e1e2");
    assert!(!is_legal(&p, "c6c6"), "the captor has no put-down: it does not carry");
    play(&mut p, "c6c5");
    assert_eq!((at(&p, "c6"), at(&p, "c5")), ("f".to_string(), "g".to_string()), "the flag stayed");
    // A Red captor of a Black carrier stands on its own flag and cannot move it either.
    let mut p = carry_pos(&[("c6", "e+F"), ("c5", "G"), ("e12", "l"), ("b12", "f")], 1, &[]);
    play(&mut p, "c5c6");
    assert_eq!(p.loose_flag(Colour::Red).map(|l| (l.at, l.carried)), Some((sq("c6"), false)));
    play(&mut p, "e12e11");
    play(&mut p, "c6c7");
    assert_eq!(at(&p, "c6"), "F");
    // The defender holds: the carrier keeps carrying.
    let mut p = carry_pos(&[("c6", "G+f"), ("c7", "e"), ("e12", "l"), ("b1", "F")], 2, &[]);
    play(&mut p, "c7c6");
    assert_eq!(p.loose_flag(Colour::Black).map(|l| (l.at, l.carried)), Some((sq("c6"), true)));
}

/// §7: the `+`/`-` marks round-trip, need `flag_carry`, and old strings read as before.
#[test]
fn s7_jfen_flag_carry_marks() {
    for board in
        [board_of(&[("c6", "E+f"), ("e12", "l"), ("b1", "F")]), board_of(&[("c6", "g-f"), ("e1", "L"), ("b1", "F")])]
    {
        let text = format!("{board} fanqi 1 r 0 10");
        let p = pos(&text, &["flag_carry=true"]);
        assert_eq!(p.to_jfen(), text);
        assert!(matches!(Position::from_jfen(&text, Rules::preset(Mode::Fanqi)), Err(JfenError::Board(_))));
    }
    let bad = |b: &[(&str, &str)]| {
        Position::from_jfen(&format!("{} fanqi 1 r 0 10", board_of(b)), rules(Mode::Fanqi, &["flag_carry=true"]))
    };
    assert!(bad(&[("c6", "E+F"), ("e12", "l"), ("b1", "f")]).is_err(), "own flag carried");
    assert!(bad(&[("c6", "M-f"), ("e12", "l"), ("b1", "F")]).is_err(), "a mine holds no flag");
    assert!(bad(&[("c6", "~E+f"), ("e12", "l"), ("b1", "F")]).is_err(), "face-down");
    assert!(bad(&[("c6", "E+f"), ("c7", "f"), ("e12", "l"), ("b1", "F")]).is_err(), "two Black flags");
    assert!(bad(&[("c6", "E+x"), ("e12", "l"), ("b1", "F")]).is_err());
    let old = "1f2l/5/5/5/5/5/5/5/5/5/5/1F2L fanqi 1 r 0 0";
    assert_eq!(pos(old, &["flag_carry=true"]).to_jfen(), old);
    assert_eq!(pos(old, &[]).to_jfen(), old);
}

/// Seeded random games under `flag_carry` are the same game every time.
#[test]
fn s5_3_flag_carry_games_are_deterministic_from_a_seed() {
    assert_eq!(seeded_fanqi_game(&["flag_carry=true"]), seeded_fanqi_game(&["flag_carry=true"]));
}

/// Every position of a random 翻棋 game from seed 48 under `overrides`.
fn seeded_fanqi_game(overrides: &[&str]) -> Vec<String> {
    {
        let r = rules(Mode::Fanqi, overrides);
        let mut rng = rng_from_seed(48);
        let mut p = Position::new_game_with(r, &mut rng);
        let mut list = MoveList::new();
        let mut trace = Vec::new();
        use rand::Rng;
        loop {
            p.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let m = list[rng.random_range(0..list.len())];
            p.play_unchecked(m);
            trace.push(p.to_jfen());
        }
        trace
    }
}

// ======================================================================
// §5.3 混棋 (`hunqi`)
// ======================================================================

/// A 翻棋 position under `hunqi=true`, seat 1 playing Red, from (node,
/// token) pairs; `turn` is 1 or 2.
fn hunqi_pos(pieces: &[(&str, &str)], turn: u8, extra: &[&str]) -> Position {
    fanqi_pos_under("hunqi=true", pieces, turn, extra)
}

/// Both flags and a mine of each side, so neither flag moves.
const STANDING_FLAGS: [(&str, &str); 4] = [("b1", "F"), ("a1", "M"), ("b12", "f"), ("a12", "m")];

fn with_standing_flags(pieces: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    [&STANDING_FLAGS[..], pieces].concat()
}

#[test]
fn s5_3_hunqi_is_a_fanqi_option_off_by_default_needing_its_own_flag_rules() {
    assert!(!Rules::preset(Mode::Fanqi).hunqi);
    assert!(option_applies("hunqi", Mode::Fanqi));
    for mode in [Mode::Anqi, Mode::Mingqi] {
        assert!(matches!(rules_result(mode, "hunqi=true"), Err(RulesError::NotApplicable { .. })));
    }
    let file = include_str!("../configs/variants/fanqi-hunqi-true.toml");
    assert!(Rules::from_toml_str(file).unwrap().hunqi);
    // "It needs attack_hidden, flag_carry and hq_locked off, flag_capturer =
    // any and bomb_captures_flag on; setting it beside any other value is an error."
    for clash in [
        "attack_hidden=true",
        "flag_carry=true",
        "hq_locked=true",
        "flag_capturer=lowest",
        "bomb_captures_flag=false",
        "mountains=open",
    ] {
        let on = rules(Mode::Fanqi, &["hunqi=true"]);
        let err = on.clone().apply_override(clash).unwrap_err();
        assert!(matches!(err, RulesError::Conflict { .. }), "{clash}: {err}");
        assert!(err.to_string().contains(clash.split('=').next().unwrap()), "{err}");
        let mut first = rules(Mode::Fanqi, &[clash]);
        assert!(matches!(first.apply_override("hunqi=true"), Err(RulesError::Conflict { .. })), "{clash}");
    }
}

/// Clauses 1–3: only face-up pieces fight, never upward in rank, mines only
/// by engineers and bombs; bombs hit and are hit by anything.
#[test]
fn s5_3_hunqi_clauses_1_to_3_attacks_never_go_up() {
    let p = hunqi_pos(
        &with_standing_flags(&[("c6", "J"), ("c7", "d"), ("a6", "J"), ("a7", "l"), ("e6", "O"), ("e7", "o")]),
        1,
        &[],
    );
    assert!(!is_legal(&p, "c6c7"), "a 营长 may not attack a 师长");
    assert!(is_legal(&p, "a6a7") && is_legal(&p, "e6e7"), "lower and equal ranks may be attacked");
    let mut q = p.clone();
    assert_eq!(attack_outcome(&play(&mut q, "e6e7")), CombatOutcome::BothRemoved);
    // Without 混棋 the upward attack is legal (and lost).
    let mut plain = p.clone();
    plain.set_rules(rules(Mode::Fanqi, &[])).unwrap();
    assert!(is_legal(&plain, "c6c7"));
    // Bombs have no rank.
    let p = hunqi_pos(&with_standing_flags(&[("c6", "B"), ("c7", "k"), ("a6", "E"), ("a7", "b")]), 1, &[]);
    assert!(is_legal(&p, "c6c7") && is_legal(&p, "a6a7"));
    // A face-down piece is never attacked; a mine only by an engineer or a bomb.
    let p = hunqi_pos(
        &with_standing_flags(&[("c6", "K"), ("c7", "~d"), ("a6", "G"), ("a7", "m"), ("e6", "E"), ("e7", "m")]),
        1,
        &[],
    );
    assert!(!is_legal(&p, "c6c7") && !is_legal(&p, "a6a7"));
    assert!(is_legal(&p, "e6e7"));
}

/// Clause 4: a headquarters is an ordinary post.
#[test]
fn s5_3_hunqi_clause_4_headquarters_are_posts() {
    let p = hunqi_pos(&with_standing_flags(&[("d1", "D"), ("e12", "l")]), 1, &[]);
    assert_eq!(moves_from(&p, "d1"), names(&["c1", "d2", "e1"]));
}

/// Clause 5: the flag of the side that removed the enemy's three mines
/// moves like a non-engineer piece, beats officers, trades with a bomb and
/// never attacks an engineer, a mine or a standing flag.
#[test]
fn s5_3_hunqi_clause_5_the_flag_that_moves() {
    // Black has no mine left: Red's flag moves; Red's mine keeps Black's standing.
    let base = [("a1", "M"), ("e12", "l"), ("b12", "f"), ("c6", "F"), ("e6", "D")];
    let p = hunqi_pos(&base, 1, &[]);
    let flag_moves = moves_from(&p, "c6");
    assert_eq!(flag_moves, names(&["a6", "b5", "b6", "c5", "c7", "d5", "d6"]), "steps and straight rail runs");
    let flies = hunqi_pos(&base, 1, &["rail_turns=all"]);
    assert!(moves_from(&flies, "c6").contains(&"a7".to_string()), "it flies when every piece does");
    assert!(moves_from(&hunqi_pos(&base, 2, &[]), "b12").is_empty(), "Black's flag stands");
    // One Black mine left anywhere: Red's flag stands too.
    let mut guarded = base.to_vec();
    guarded.push(("a12", "m"));
    assert!(moves_from(&hunqi_pos(&guarded, 1, &[]), "c6").is_empty());
    // Its attacks.
    // (A flag that trades with a bomb has left the board: its side loses.)
    let lost = Some((Some(Seat::Second), Termination::FlagCaptured, "0-1"));
    for (defender, legal, outcome, end) in [
        ("k", true, Some(CombatOutcome::AttackerWon), None),
        ("b", true, Some(CombatOutcome::BothRemoved), lost),
        ("e", false, None, None),
    ] {
        let mut pieces = base.to_vec();
        pieces.push(("c7", defender));
        let mut p = hunqi_pos(&pieces, 1, &[]);
        assert_eq!(is_legal(&p, "c6c7"), legal, "flag onto {defender}");
        if let Some(outcome) = outcome {
            assert_eq!(attack_outcome(&play(&mut p, "c6c7")), outcome, "flag onto {defender}");
            assert_eq!(result(&p), end, "flag onto {defender}");
        }
    }
    // Not a standing flag (Black's, with Red's mine on a1), even unguarded by mines.
    let p = hunqi_pos(&[("a1", "M"), ("e12", "l"), ("c7", "f"), ("c6", "F"), ("e6", "D")], 1, &[]);
    assert!(!is_legal(&p, "c6c7"));
}

/// Clause 6: a standing flag falls once its mines are gone to an officer or
/// a bomb, never to an engineer; a moving flag only to an engineer, a bomb
/// or the other moving flag.
#[test]
fn s5_3_hunqi_clause_6_taking_a_flag() {
    // Black's flag stands (Red keeps a mine) and Black has no mine left.
    let standing = |attacker: &'static str| {
        hunqi_pos(&[("a1", "M"), ("b1", "F"), ("e12", "l"), ("c7", "f"), ("c6", attacker)], 1, &[])
    };
    assert!(!is_legal(&standing("E"), "c6c7"), "an engineer may not take a flag that cannot move");
    let mut p = standing("L");
    assert_eq!(attack_outcome(&play(&mut p, "c6c7")), CombatOutcome::FlagCaptured);
    assert_eq!(at(&p, "c7"), "L");
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    let mut p = standing("B");
    play(&mut p, "c6c7");
    assert_eq!((at(&p, "c6"), at(&p, "c7")), (String::new(), String::new()), "the bomb goes with the flag");
    assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")));
    // A Black mine left: the flag cannot be attacked at all.
    let p = hunqi_pos(&[("a1", "M"), ("b1", "F"), ("a12", "m"), ("c7", "f"), ("c6", "K")], 1, &[]);
    assert!(!is_legal(&p, "c6c7"));
    // Black's flag moves (Red has no mine left), Black keeps a mine.
    let moving = |attacker: &'static str| {
        hunqi_pos(&[("b1", "F"), ("a12", "m"), ("e12", "l"), ("c7", "f"), ("c6", attacker)], 1, &[])
    };
    assert!(!is_legal(&moving("K"), "c6c7"), "a moving flag beats every officer: never upward");
    for attacker in ["E", "B"] {
        let mut p = moving(attacker);
        assert_eq!(attack_outcome(&play(&mut p, "c6c7")), CombatOutcome::FlagCaptured, "{attacker}");
        assert_eq!(result(&p), Some((Some(Seat::First), Termination::FlagCaptured, "1-0")), "{attacker}");
    }
}

/// Clause 7: two moving flags remove each other and the attacker wins; a
/// moving flag is a movable piece for §8 step 2.
#[test]
fn s5_3_hunqi_clause_7_the_end() {
    // No mine on the board: both flags move.
    for (turn, m, winner, text) in [(1, "c6c7", Seat::First, "1-0"), (2, "c7c6", Seat::Second, "0-1")] {
        let mut p = hunqi_pos(&[("c6", "F"), ("c7", "f"), ("e1", "D"), ("e12", "d")], turn, &[]);
        assert_eq!(attack_outcome(&play(&mut p, m)), CombatOutcome::FlagCaptured);
        assert_eq!(p.count(Colour::Red, Kind::Flag) + p.count(Colour::Black, Kind::Flag), 0);
        assert_eq!(result(&p), Some((Some(winner), Termination::FlagCaptured, text)), "{m}");
        // The finished position reads back (both flags gone, only under 混棋).
        let back = Position::from_jfen(&p.to_jfen(), rules(Mode::Fanqi, &["hunqi=true"])).unwrap();
        assert_eq!(result(&back), result(&p));
        assert!(Position::from_jfen(&p.to_jfen(), rules(Mode::Fanqi, &[])).is_err());
    }
    // Red's moving flag is its last movable piece: the game goes on.
    let p = hunqi_pos(&[("c6", "F"), ("a1", "M"), ("e12", "l"), ("b12", "f")], 1, &[]);
    assert_eq!(result(&p), None);
    assert!(!legal(&p).is_empty());
    let mut plain = p.clone();
    plain.set_rules(rules(Mode::Fanqi, &[])).unwrap();
    assert_eq!(result(&plain), Some((Some(Seat::Second), Termination::NoMovablePieces, "0-1")));
}

/// Seeded random games under 混棋 are the same game every time.
#[test]
fn s5_3_hunqi_games_are_deterministic_from_a_seed() {
    assert_eq!(seeded_fanqi_game(&["hunqi=true"]), seeded_fanqi_game(&["hunqi=true"]));
}

// ======================================================================
// §3 Mountains (山界, `mountains`)
// ======================================================================

/// A 明棋 position (or 翻棋 with `mode`) from (node, token) pairs plus the
/// Black 排长 on e12 and both flags, under `mountains=<value>`.
fn mountain_pos(mode: &str, pieces: &[(&str, &str)], mountains: &str, value: &str, turn: u8) -> Position {
    let mut all = vec![("b12", "f"), ("e12", "l"), ("b1", "F")];
    all.extend_from_slice(pieces);
    pos(&format!("{}{mountains} {mode} {turn} r 0 10", board_of(&all)), &[&format!("mountains={value}")])
}

#[test]
fn s3_mountains_is_an_option_of_mingqi_and_fanqi() {
    assert_eq!(Rules::preset(Mode::Mingqi).mountains, junqi_core::rules::Mountains::Closed);
    assert_eq!(Rules::preset(Mode::Fanqi).mountains, junqi_core::rules::Mountains::Closed);
    assert!(matches!(rules_result(Mode::Anqi, "mountains=open"), Err(RulesError::NotApplicable { .. })));
    assert!(matches!(rules_result(Mode::Mingqi, "mountains=sometimes"), Err(RulesError::BadValue { .. })));
    for (file, value) in [
        (include_str!("../configs/variants/mingqi-mountains-open.toml"), "open"),
        (include_str!("../configs/variants/fanqi-mountains-engineer.toml"), "engineer"),
    ] {
        assert_eq!(Rules::from_toml_str(file).unwrap().mountains.name(), value);
    }
}

/// Clauses 1–2: only from the four side nodes of an empty mountain, only the
/// kinds the option admits, as the node named twice; one piece per mountain.
#[test]
fn s3_mountains_clauses_1_2_entering() {
    let pieces = [("b6", "D"), ("c6", "E"), ("e7", "E")];
    assert!(!is_legal(&mountain_pos("mingqi", &pieces, "", "closed", 1), "b6b6"));
    let p = mountain_pos("mingqi", &pieces, "", "open", 1);
    let diagonal: Vec<String> = legal(&p).into_iter().filter(|m| m[..2] == m[2..]).collect();
    assert_eq!(diagonal, names(&["b6b6", "e7e7"]), "c6 is beside neither mountain");
    let p = mountain_pos("mingqi", &pieces, "", "engineer", 1);
    assert!(!is_legal(&p, "b6b6") && is_legal(&p, "e7e7"), "engineers only");
    let mut p = mountain_pos("mingqi", &pieces, "", "open", 1);
    let e = play(&mut p, "b6b6");
    assert!(matches!(e, Effect::Move { piece } if piece == red(Kind::Division)), "{e:?}");
    assert_eq!((at(&p, "b6"), p.mountain(0)), (String::new(), Some(red(Kind::Division))));
    assert_eq!(p.count(Colour::Red, Kind::Division), 1, "still on the board");
    assert_eq!(p.quiet(), 1, "a quiet ply");
    assert!(p.to_jfen().contains("^D- mingqi"), "{p}");
    // One piece per mountain: a Black engineer on a7 cannot follow.
    let p = mountain_pos("fanqi", &[("a7", "e"), ("c6", "E")], "^D-", "open", 2);
    assert!(!is_legal(&p, "a7a7"));
    // Face-down pieces beside a mountain are flipped, not sent in.
    let mut p = mountain_pos("fanqi", &[("a6", "~E"), ("c6", "E")], "", "open", 1);
    assert_eq!(play(&mut p, "a6a6"), Effect::Flip { piece: red(Kind::Engineer) });
    assert_eq!(p.mountain(0), None);
}

/// Clauses 3–4: a piece inside is out of reach, still counts, and comes out
/// onto any empty side node of its mountain only.
#[test]
fn s3_mountains_clauses_3_4_inside_and_leaving() {
    // Red's 师长 in the left mountain; a6 holds a Black 军长, b7 a Red engineer.
    let p = mountain_pos("mingqi", &[("a6", "g"), ("b7", "E")], "^D-", "open", 1);
    let out: Vec<String> = legal(&p).into_iter().filter(|m| m[..2] == m[2..]).collect();
    assert_eq!(out, names(&["b6b6", "a7a7"]), "empty side nodes only: no attack on the way out");
    // Black's 军长 has nothing to attack in the mountain.
    let p2 = mountain_pos("mingqi", &[("a6", "g"), ("b7", "E")], "^D-", "open", 2);
    assert!(legal(&p2).iter().all(|m| !m.ends_with("b6") || m.starts_with("a6")));
    let mut p = p;
    play(&mut p, "a7a7");
    assert_eq!((at(&p, "a7"), p.mountain(0)), ("D".to_string(), None));
    // A side whose only movable piece is in a mountain plays on.
    let p = mountain_pos("mingqi", &[], "^-E", "engineer", 1);
    assert_eq!(result(&p), None);
    assert_eq!(legal(&p), names(&["d6d6", "d7d7", "e6e6", "e7e7"]));
    // Its flag under flag_carry stays behind when a holder enters.
    let mut p = pos(
        &format!("{} fanqi 1 r 0 10", board_of(&[("a6", "E-f"), ("e12", "l"), ("b1", "F")])),
        &["flag_carry=true", "mountains=open"],
    );
    play(&mut p, "a6a6");
    assert_eq!(
        (at(&p, "a6"), p.mountain(0), p.loose_flag(Colour::Black)),
        ("f".to_string(), Some(red(Kind::Engineer)), None)
    );
    // A carrier's node twice puts the flag down; it enters only after that.
    let mut p = pos(
        &format!("{} fanqi 1 r 0 10", board_of(&[("a6", "E+f"), ("e12", "l"), ("b1", "F")])),
        &["flag_carry=true", "mountains=open"],
    );
    play(&mut p, "a6a6");
    assert_eq!((p.mountain(0), p.loose_flag(Colour::Black).map(|l| l.carried)), (None, Some(false)));
}

/// §7: the `^` cells round-trip and are checked; old strings read as before.
#[test]
fn s7_jfen_mountain_cells() {
    let text = format!("{}^-e fanqi 1 r 0 10", board_of(&[("b12", "f"), ("e12", "l"), ("b1", "F"), ("a1", "E")]));
    assert_eq!(pos(&text, &["mountains=engineer"]).to_jfen(), text);
    let parse = |board_suffix: &str, mode: &str, o: &[&str]| {
        let b = board_of(&[("b12", "f"), ("e12", "l"), ("b1", "F"), ("a1", "E")]);
        let m = mode.parse().unwrap();
        Position::from_jfen(&format!("{b}{board_suffix} {mode} 1 r 0 10"), rules(m, o))
    };
    assert!(parse("^-e", "fanqi", &[]).is_err(), "mountains closed");
    assert!(parse("^-g", "fanqi", &["mountains=engineer"]).is_err(), "not an engineer");
    assert!(parse("^-m", "fanqi", &["mountains=open"]).is_err(), "a mine never moves");
    assert!(parse("^e", "fanqi", &["mountains=open"]).is_err(), "two cells");
    assert!(parse("^-e", "anqi", &[]).is_err(), "not in 暗棋");
    assert!(parse("", "mingqi", &["mountains=open"]).is_ok());
}
