//! A slow, deliberately naive reference move generator, written from
//! `docs/rules.md` alone, to check the engine's fast bitboard generator.
//!
//! It shares nothing with `junqi_core`'s board tables or move generator:
//! the board is rebuilt here as explicit edge lists from §1, moves are found
//! by plain walks and a breadth-first search over those lists, and the
//! position is read only through public accessors (`piece_at`,
//! `is_face_down`, `is_occupied`, `turn`, `colour_of`, `rules`, `count`,
//! `quiet`, `ply`). Speed does not matter; every rule is spelled out next to
//! the clause it comes from, so a disagreement points at one of the two.
//!
//! The reference works on *true* positions (every occupied node's piece
//! known), not on the erased views inside an `InfoSet`.

use junqi_core::rules::{FlagCapturer, Mountains, RailTurns};
use junqi_core::{Colour, Kind, Mode, Move, Position, Square};
use std::collections::{BTreeSet, VecDeque};
use std::sync::OnceLock;

/// Node index of §1: `(rank - 1) * 5 + file`, `a = 0 … e = 4`.
fn node(file: usize, rank: usize) -> usize {
    assert!(file < 5 && (1..=12).contains(&rank));
    (rank - 1) * 5 + file
}

/// Parse a node name such as `b10` (our own parser, so the edge lists below
/// do not depend on the engine's notation code).
fn named(name: &str) -> usize {
    let mut chars = name.chars();
    let file = chars.next().expect("node name") as usize - 'a' as usize;
    let rank: usize = chars.as_str().parse().expect("node rank");
    node(file, rank)
}

fn named_list(names: &str) -> Vec<usize> {
    names.split_whitespace().map(named).collect()
}

/// The board of §1 as plain lists.
pub struct RefBoard {
    /// The straight railway lines of §1 "Railway lines", node by node.
    pub lines: Vec<Vec<usize>>,
    /// Railway edges (both directions) per node.
    pub rail: Vec<BTreeSet<usize>>,
    /// Road edges (both directions) per node.
    pub road: Vec<BTreeSet<usize>>,
    pub camp: [bool; 60],
    pub headquarters: [bool; 60],
}

impl RefBoard {
    fn build() -> RefBoard {
        // §1 "Railway lines": ranks 2, 6, 7, 11 (a→e), file a and file e
        // (rank 2 → 11), and the c6–c7 crossing. No arcs on this board.
        let mut lines: Vec<Vec<usize>> = Vec::new();
        for rank in [2, 6, 7, 11] {
            lines.push((0..5).map(|file| node(file, rank)).collect());
        }
        for file in [0, 4] {
            lines.push((2..=11).map(|rank| node(file, rank)).collect());
        }
        lines.push(named_list("c6 c7"));

        // §1 "Railway edges" are exactly the consecutive pairs of those lines:
        // rank rows a–b … d–e, files a/e a2…a11 (incl. a6–a7, e6–e7) and c6–c7.
        let mut rail = vec![BTreeSet::new(); 60];
        for line in &lines {
            for pair in line.windows(2) {
                rail[pair[0]].insert(pair[1]);
                rail[pair[1]].insert(pair[0]);
            }
        }

        // §1 "Road edges": every other orthogonal neighbour pair inside one
        // half (ranks 1–6 or 7–12, so b6–b7 and d6–d7 are never joined) ...
        let mut road = vec![BTreeSet::new(); 60];
        let half = |rank: usize| rank <= 6;
        for rank in 1..=12 {
            for file in 0..5 {
                let a = node(file, rank);
                let mut neighbours = Vec::new();
                if file + 1 < 5 {
                    neighbours.push(node(file + 1, rank));
                }
                if rank < 12 && half(rank) == half(rank + 1) {
                    neighbours.push(node(file, rank + 1));
                }
                for b in neighbours {
                    if !rail[a].contains(&b) {
                        road[a].insert(b);
                        road[b].insert(a);
                    }
                }
            }
        }
        // ... plus each camp's four diagonals, copied from §1 word for word.
        let diagonals = [
            ("b3", "a2 c2 a4 c4"),
            ("d3", "c2 e2 c4 e4"),
            ("c4", "b3 d3 b5 d5"),
            ("b5", "a4 c4 a6 c6"),
            ("d5", "c4 e4 c6 e6"),
            ("b8", "a7 c7 a9 c9"),
            ("d8", "c7 e7 c9 e9"),
            ("c9", "b8 d8 b10 d10"),
            ("b10", "a9 c9 a11 c11"),
            ("d10", "c9 e9 c11 e11"),
        ];
        for (camp, others) in diagonals {
            let a = named(camp);
            for b in named_list(others) {
                road[a].insert(b);
                road[b].insert(a);
            }
        }

        let mut camp = [false; 60];
        for n in named_list("b3 d3 c4 b5 d5 b8 d8 c9 b10 d10") {
            camp[n] = true;
        }
        let mut headquarters = [false; 60];
        for n in named_list("b1 d1 b12 d12") {
            headquarters[n] = true;
        }
        RefBoard { lines, rail, road, camp, headquarters }
    }

    /// A railway node is any node on a railway line.
    pub fn is_railway(&self, n: usize) -> bool {
        !self.rail[n].is_empty()
    }

    /// One-step neighbours over road and railway edges (§3 Step).
    pub fn step_neighbours(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        self.rail[n].iter().chain(self.road[n].iter()).copied()
    }
}

/// The board, built once.
pub fn board() -> &'static RefBoard {
    static BOARD: OnceLock<RefBoard> = OnceLock::new();
    BOARD.get_or_init(RefBoard::build)
}

fn sq(n: usize) -> Square {
    Square::new(n).expect("node index < 60")
}

/// Officers, engineers and bombs can move (§5.1 End); flag and mines never do (§2).
fn is_movable(kind: Kind) -> bool {
    !matches!(kind, Kind::Mine | Kind::Flag)
}

/// The officer order of §2, strongest first; 工兵 counts as the lowest rank.
const RANK_ORDER: [Kind; 9] = [
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

/// Officers and engineers still on the board count (face-up or face-down).
fn lowest_rank_left(pos: &Position, colour: Colour) -> Option<Kind> {
    RANK_ORDER.iter().rev().copied().find(|&k| pos.count(colour, k) > 0)
}

/// `bomb_captures_flag` and `flag_capturer` (§5.1, §5.3, §6): may a `kind`
/// of `colour` take a flag?
pub fn may_capture_flag(pos: &Position, colour: Colour, kind: Kind) -> bool {
    let rules = pos.rules();
    let lowest = lowest_rank_left(pos, colour);
    match kind {
        Kind::Bomb => {
            // "a side with no officer or engineer left may capture with a bomb"
            rules.bomb_captures_flag && (rules.flag_capturer == FlagCapturer::Any || lowest.is_none())
        }
        Kind::Mine | Kind::Flag => false,
        officer => rules.flag_capturer == FlagCapturer::Any || lowest == Some(officer),
    }
}

/// May a face-up `kind` of `colour` move onto node `to` (empty, or an attack)?
fn may_enter(pos: &Position, colour: Colour, kind: Kind, to: usize) -> bool {
    let b = board();
    let target = sq(to);
    if !pos.is_occupied(target) {
        return true;
    }
    // §3 Camps: a piece in a camp cannot be attacked.
    if b.camp[to] {
        return false;
    }
    let mode = pos.rules().mode;
    if pos.is_face_down(target) {
        // §5.3: face-down pieces are hit only with `attack_hidden`, whatever
        // their colour or kind (the engine turns them up first).
        return mode == Mode::Fanqi && pos.rules().attack_hidden;
    }
    let defender = pos.piece_at(target).expect("reference needs a true position, not a view");
    // §3: no piece may move onto its own piece.
    if defender.colour == colour {
        return false;
    }
    if mode != Mode::Fanqi {
        // 暗棋/明棋: any enemy outside a camp may be attacked; what happens
        // (even to a piece not allowed to take the flag) is decided by combat.
        return true;
    }
    if pos.rules().hunqi {
        return hunqi_may_attack(pos, kind, defender);
    }
    match defender.kind {
        // §5.3 Mines: only engineers and bombs may attack a face-up mine.
        Kind::Mine => matches!(kind, Kind::Engineer | Kind::Bomb),
        // §5.3 Flag: only once all 3 of its side's mines are gone, and only
        // by a piece the flag rules allow.
        // With `flag_carry` (§5.3 Carrying the flag) the flag is picked up
        // instead, and only by a piece of the side's lowest rank left.
        Kind::Flag if pos.rules().flag_carry => {
            pos.count(defender.colour, Kind::Mine) == 0 && lowest_rank_left(pos, colour) == Some(kind)
        }
        Kind::Flag => pos.count(defender.colour, Kind::Mine) == 0 && may_capture_flag(pos, colour, kind),
        _ => true,
    }
}

/// §5.3 混棋 clause 5: a side's flag moves once none of the other side's
/// three mines is left on the board.
fn hunqi_flag_moves(pos: &Position, colour: Colour) -> bool {
    pos.rules().hunqi && pos.count(colour.other(), Kind::Mine) == 0
}

/// §5.3 混棋: may a face-up `kind` attack the face-up enemy `defender`?
fn hunqi_may_attack(pos: &Position, kind: Kind, defender: junqi_core::Piece) -> bool {
    let rank = |k: Kind| RANK_ORDER.iter().position(|&r| r == k);
    match defender.kind {
        // Clause 3: mines only by engineers and bombs (a moving flag neither).
        Kind::Mine => kind == Kind::Engineer || kind == Kind::Bomb,
        // Clause 6: a moving flag by an engineer, a bomb or the other moving flag.
        Kind::Flag if hunqi_flag_moves(pos, defender.colour) => {
            kind == Kind::Engineer || kind == Kind::Bomb || kind == Kind::Flag
        }
        // Clause 6: a standing flag once its mines are gone, by an officer or a
        // bomb; clause 5: never by a moving flag.
        Kind::Flag => {
            pos.count(defender.colour, Kind::Mine) == 0 && (kind == Kind::Bomb || rank(kind).is_some_and(|r| r < 8))
        }
        // Clause 2: anyone may attack a bomb.
        Kind::Bomb => true,
        // Clause 2: a ranked defender, never upward; a bomb hits anything; clause
        // 5: the moving flag hits every officer but no engineer.
        ranked => match kind {
            Kind::Bomb => true,
            Kind::Flag => ranked != Kind::Engineer,
            _ => rank(kind).unwrap() <= rank(ranked).unwrap(),
        },
    }
}

/// Does this kind turn corners on the railway (§3 Engineer flight, §6
/// `rail_turns`, `bomb_flies`)?
fn flies(pos: &Position, kind: Kind) -> bool {
    let rules = pos.rules();
    let by_rail_turns = match rules.rail_turns {
        RailTurns::Engineer => kind == Kind::Engineer,
        RailTurns::None => false,
        RailTurns::All => true,
    };
    by_rail_turns || (kind == Kind::Bomb && rules.bomb_flies)
}

/// Nodes reached by straight rail runs from `from` (§3 Rail run): along every
/// railway line through `from`, in both directions, each empty node and the
/// first occupied one.
fn rail_run_destinations(pos: &Position, from: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for line in &board().lines {
        let Some(i) = line.iter().position(|&n| n == from) else { continue };
        for dir in [1isize, -1] {
            let mut j = i as isize + dir;
            while j >= 0 && (j as usize) < line.len() {
                let n = line[j as usize];
                out.push(n);
                if pos.is_occupied(sq(n)) {
                    break;
                }
                j += dir;
            }
        }
    }
    out
}

/// Nodes reached by engineer flight from `from` (§3 Engineer flight): a
/// breadth-first search over railway edges that continues only through empty
/// nodes; occupied nodes it touches are destinations but not passed through.
fn flight_destinations(pos: &Position, from: usize) -> Vec<usize> {
    let b = board();
    let mut seen = BTreeSet::from([from]);
    let mut queue = VecDeque::from([from]);
    let mut out = Vec::new();
    while let Some(n) = queue.pop_front() {
        for &m in &b.rail[n] {
            if seen.insert(m) {
                out.push(m);
                if !pos.is_occupied(sq(m)) {
                    queue.push_back(m);
                }
            }
        }
    }
    out
}

/// Is the game already decided, so that no action is legal (§8 steps 1, 2, 4)?
/// Step 3 (no legal action) needs no check: it means the list is empty anyway.
pub fn game_over_without_moves(pos: &Position) -> bool {
    // 1. A flag was captured: flags leave the board no other way.
    if Colour::ALL.iter().any(|&c| pos.count(c, Kind::Flag) == 0) {
        return true;
    }
    // ... or (`flag_carry`, §5.3) carried into a headquarters of the carrier's
    // own half: Red's half is ranks 1–6 (§1).
    if pos.rules().flag_carry {
        for flag in Colour::ALL {
            if let Some(l) = pos.loose_flag(flag).filter(|l| l.carried) {
                let n = l.at.index();
                let reds_half = n < 30; // ranks 1–6: indices 0–29
                if board().headquarters[n] && reds_half == (flag == Colour::Black) {
                    return true;
                }
            }
        }
    }
    // 2. Once colours are assigned, a colour with no movable piece left
    //    (face-up or face-down) ends the game.
    if pos.colour_of(pos.turn()).is_some() {
        // (混棋, §5.3 clause 7: a flag that moves counts.)
        let movable_left = |c: Colour| {
            RANK_ORDER.iter().chain(&[Kind::Bomb]).any(|&k| pos.count(c, k) > 0) || hunqi_flag_moves(pos, c)
        };
        if !movable_left(Colour::Red) || !movable_left(Colour::Black) {
            return true;
        }
    }
    // 4. The draw counters.
    let rules = pos.rules();
    pos.quiet() >= rules.no_progress_plies || pos.ply() >= rules.max_plies
}

/// Every legal action of the seat to move, sorted, without duplicates.
/// Empty once the game is over.
pub fn reference_moves(pos: &Position) -> Vec<Move> {
    if game_over_without_moves(pos) {
        return Vec::new();
    }
    let b = board();
    let mut moves = BTreeSet::new();
    // §5.3 Turn: any face-down piece may be flipped (written from == to).
    for n in 0..60 {
        if pos.is_face_down(sq(n)) {
            moves.insert(Move::flip(sq(n)));
        }
    }
    // §5.3 Colours: until they are assigned, flips are the only actions.
    let Some(colour) = pos.colour_of(pos.turn()) else {
        return moves.into_iter().collect();
    };
    for from in 0..60 {
        let s = sq(from);
        if !pos.is_occupied(s) || pos.is_face_down(s) {
            continue;
        }
        let piece = pos.piece_at(s).expect("reference needs a true position, not a view");
        // 混棋 (§5.3 clause 5): the flag moves once the enemy mines are gone.
        let moving_flag = piece.kind == Kind::Flag && hunqi_flag_moves(pos, colour);
        if piece.colour != colour || !(is_movable(piece.kind) || moving_flag) {
            continue;
        }
        // §3 Headquarters: with `hq_locked` a piece in a headquarters never moves.
        if pos.rules().hq_locked && b.headquarters[from] {
            continue;
        }
        let mut destinations: Vec<usize> = b.step_neighbours(from).collect();
        if b.is_railway(from) {
            if flies(pos, piece.kind) {
                destinations.extend(flight_destinations(pos, from));
            } else {
                destinations.extend(rail_run_destinations(pos, from));
            }
        }
        for to in destinations {
            if may_enter(pos, colour, piece.kind, to) {
                moves.insert(Move::new(s, sq(to)));
            }
        }
        // §5.3 Carrying the flag: a carrier may put the enemy flag down,
        // written as its own node twice.
        if pos.loose_flag(colour.other()).is_some_and(|l| l.carried && l.at == s) {
            moves.insert(Move::flip(s));
        }
    }
    // §3 Mountains (`mountains`): the railway nodes beside each mountain.
    let admits = |kind: Kind| match pos.rules().mountains {
        Mountains::Closed => false,
        Mountains::Open => is_movable(kind),
        Mountains::Engineer => kind == Kind::Engineer,
    };
    if pos.rules().mountains != Mountains::Closed {
        for (i, side) in [named_list("a6 b6 a7 b7"), named_list("d6 e6 d7 e7")].iter().enumerate() {
            match pos.mountain(i) {
                // An empty mountain: an own face-up piece beside it may go in
                // (written as its node twice), unless it carries a flag (that
                // action puts the flag down instead).
                None => {
                    for &n in side {
                        let s = sq(n);
                        let carrying = pos.loose_flag(colour.other()).is_some_and(|l| l.carried && l.at == s);
                        let own = !pos.is_face_down(s) && pos.piece_at(s).is_some_and(|p| p.colour == colour);
                        if own && !carrying && admits(pos.piece_at(s).unwrap().kind) {
                            moves.insert(Move::flip(s));
                        }
                    }
                }
                // Our piece in the mountain may come out onto any empty node beside it.
                Some(p) if p.colour == colour => {
                    for &n in side {
                        if !pos.is_occupied(sq(n)) {
                            moves.insert(Move::flip(sq(n)));
                        }
                    }
                }
                Some(_) => {}
            }
        }
    }
    moves.into_iter().collect()
}

/// Helpers for drawing random rule sets and positions, shared by the
/// reference comparison and the property tests.
pub mod sampling {
    use junqi_core::rules::option_applies;
    use junqi_core::{Colour, Mode, Position, Rules, Seat, Square};
    use rand::seq::IndexedRandom;
    use rand::Rng;

    /// A rule set for `mode` with every applicable option of docs/rules.md §6
    /// drawn at random (through `Rules::apply_override`, as a user would
    /// set them). `max_plies` and `no_progress_plies` are usually large
    /// enough for games to reach sparse boards, and sometimes tiny so the
    /// draw cut-off is exercised too.
    pub fn random_rules<R: Rng + ?Sized>(mode: Mode, rng: &mut R) -> Rules {
        let bool_values = ["true", "false"];
        let mut rules = Rules::preset(mode);
        let choices: [(&str, &[&str]); 12] = [
            ("rail_turns", &["engineer", "none", "all"]),
            ("bomb_flies", &bool_values),
            ("mine_rule", &["spring", "trade"]),
            ("hq_locked", &bool_values),
            ("first_player", &["red", "black"]),
            ("reveal_flag_on_commander_loss", &bool_values),
            ("engineer_scout", &bool_values),
            ("bomb_captures_flag", &bool_values),
            ("color_rule", &["first_flip", "two_in_a_row"]),
            ("attack_hidden", &bool_values),
            ("flag_carry", &bool_values),
            ("mountains", &["closed", "open", "engineer"]),
        ];
        for (name, values) in choices {
            if option_applies(name, mode) {
                let value = values.choose(rng).unwrap();
                rules.apply_override(&format!("{name}={value}")).expect("valid override");
            }
        }
        let capturer = ["any", "lowest"].choose(rng).unwrap();
        rules.apply_override(&format!("flag_capturer={capturer}")).unwrap();
        if mode == Mode::Fanqi && rng.random_bool(0.25) {
            turn_on_hunqi(&mut rules);
        }
        let quiet = if rng.random_bool(0.15) { rng.random_range(1..=12) } else { rng.random_range(60..=400) };
        let max = if rng.random_bool(0.15) { rng.random_range(1..=60) } else { rng.random_range(200..=700) };
        rules.apply_override(&format!("no_progress_plies={quiet}")).unwrap();
        rules.apply_override(&format!("max_plies={max}")).unwrap();
        rules
    }

    /// Turn 混棋 (`hunqi`, §5.3) on in 翻棋 `rules`, first setting the
    /// options it decides to the values it needs.
    pub fn turn_on_hunqi(rules: &mut Rules) {
        for setting in [
            "attack_hidden=false",
            "flag_carry=false",
            "hq_locked=false",
            "flag_capturer=any",
            "mountains=closed",
            "bomb_captures_flag=true",
            "hunqi=true",
        ] {
            rules.apply_override(setting).unwrap();
        }
    }

    /// `rules` redrawn at random but fit to govern `pos`: same mode and, in
    /// 暗棋/明棋, a `first_player` that agrees with seat 1's colour.
    pub fn random_rules_for<R: Rng + ?Sized>(pos: &Position, rng: &mut R) -> Rules {
        let mut rules = random_rules(pos.mode(), rng);
        if pos.mode() != Mode::Fanqi {
            let first = match pos.colour_of(Seat::First) {
                Some(Colour::Black) => "black",
                _ => "red",
            };
            rules.apply_override(&format!("first_player={first}")).unwrap();
        } else if pos.colour_of(Seat::First).is_none() {
            // Unassigned colours after flips happen only under two_in_a_row:
            // keep the position's colour rule so it stays a reachable position.
            let rule = match pos.rules().color_rule {
                junqi_core::rules::ColorRule::FirstFlip => "first_flip",
                junqi_core::rules::ColorRule::TwoInARow => "two_in_a_row",
            };
            rules.apply_override(&format!("color_rule={rule}")).unwrap();
        }
        if pos.mode() == Mode::Fanqi && Colour::ALL.iter().any(|&c| pos.loose_flag(c).is_some()) {
            // A flag sharing a node with a piece exists only under flag_carry.
            rules.apply_override("hunqi=false").unwrap();
            rules.apply_override("flag_carry=true").unwrap();
        }
        if pos.mountain(0).is_some() || pos.mountain(1).is_some() {
            // Keep a rule that lets the pieces in the mountains be there.
            rules.apply_override("hunqi=false").unwrap();
            rules.apply_override(&format!("mountains={}", pos.rules().mountains.name())).unwrap();
        }
        rules
    }

    /// The JFEN of `pos` with the pieces on the nodes where `remove` says so
    /// taken off (flags are always kept, so the result still parses). Used
    /// to reach sparse boards — flags without mines, lone bombs — that random
    /// games seldom produce.
    pub fn thinned_jfen(pos: &Position, remove: &mut dyn FnMut(Square) -> bool) -> String {
        let mut board = String::new();
        for rank in (1..=12).rev() {
            let mut empty = 0;
            for file in 0..5 {
                let s = Square::from_coords(file, rank).unwrap();
                let piece = pos.piece_at(s);
                let holds_flag = Colour::ALL.iter().any(|&c| pos.loose_flag(c).is_some_and(|l| l.at == s));
                let keep = piece.is_some_and(|p| p.kind == junqi_core::Kind::Flag || holds_flag || !remove(s));
                match piece.filter(|_| keep) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            board.push_str(&empty.to_string());
                            empty = 0;
                        }
                        if pos.is_face_down(s) {
                            board.push('~');
                        }
                        board.push(p.letter());
                        for c in Colour::ALL {
                            if let Some(l) = pos.loose_flag(c).filter(|l| l.at == s) {
                                board.push(if l.carried { '+' } else { '-' });
                                board.push(junqi_core::Piece::new(c, junqi_core::Kind::Flag).letter());
                            }
                        }
                    }
                }
            }
            if empty > 0 {
                board.push_str(&empty.to_string());
            }
            if rank > 1 {
                board.push('/');
            }
        }
        if pos.mountain(0).is_some() || pos.mountain(1).is_some() {
            board.push('^');
            for i in 0..2 {
                board.push(pos.mountain(i).map_or('-', |p| p.letter()));
            }
        }
        let jfen = pos.to_jfen();
        let rest: Vec<&str> = jfen.split_whitespace().skip(1).collect();
        format!("{board} {}", rest.join(" "))
    }
}
