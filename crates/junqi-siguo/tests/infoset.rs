//! §10.10 and §10.13: information sets per seat, updated from the referee's
//! announcements, and determinization.

use super::common::{build, node};
use junqi_core::piece::{Colour, Kind, KindSet, ALL_KINDS, MOVABLE};
use junqi_core::rng_from_seed;
use junqi_core::setup::Deployment;
use junqi_siguo::{
    ruling, Announcement, Army, EndCause, Mode, Move, MoveList, Node, Piece, Position, Rules, Ruling, SiguoInfoSet,
};
use rand::Rng;

fn army(i: usize) -> Army {
    Army::new(i).unwrap()
}

fn kinds(set: KindSet) -> Vec<Kind> {
    Kind::in_set(set).collect()
}

/// The four seats' sets, each updated from the announcement of every move.
pub struct Table {
    pub truth: Position,
    pub seats: Vec<SiguoInfoSet>,
    pub log: Vec<Announcement>,
}

impl Table {
    pub fn new(truth: Position) -> Table {
        let seats = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&truth, a)).collect();
        Table { truth, seats, log: Vec::new() }
    }
    pub fn play(&mut self, mv: Move) {
        let before = self.truth.clone();
        let effect = self.truth.play(mv).unwrap_or_else(|e| panic!("{e} in {before}"));
        let a = Announcement::new(&before, mv, &effect, &self.truth);
        for s in &mut self.seats {
            s.update(&a);
        }
        self.log.push(a);
    }
    pub fn random_move<R: Rng>(&self, rng: &mut R) -> Option<Move> {
        let mut list = MoveList::new();
        self.truth.legal_moves(&mut list);
        (!list.is_empty()).then(|| list[rng.random_range(0..list.len())])
    }
}

/// Everything a set must agree with in the truth, and that what it narrowed
/// still holds the true kind.
pub fn check_against_truth(info: &SiguoInfoSet, truth: &Position) {
    let at = || format!("seat {} at ply {} of {truth}", info.seat().index(), truth.ply());
    for n in Node::all() {
        let real = truth.piece_at(n);
        assert_eq!(info.army_at(n), real.map(|p| p.army), "{n}: {}", at());
        if let Some(p) = real {
            let set = info.possible_kinds(n);
            assert!(set & p.kind.bit() != 0, "{n}: {:?} not in {:?}: {}", p.kind, kinds(set), at());
            if info.sees(p.army) {
                assert_eq!(info.known_kind(n), Some(p.kind), "{n}: {}", at());
            }
        }
    }
    for a in Army::ALL {
        assert_eq!(info.ended(a), truth.ended(a), "{}", at());
        if info.sees(a) || info.ended(a).is_some() {
            assert!(info.removed(a).is_empty());
        } else {
            let on_board = truth.pieces().filter(|(_, p)| p.army == a).count();
            assert_eq!(on_board + info.removed(a).len(), 25, "{}", at());
        }
    }
    assert_eq!(
        (info.turn(), info.quiet(), info.ply(), info.outcome()),
        (truth.turn(), truth.quiet(), truth.ply(), truth.outcome())
    );
    assert!(info.inconsistency().is_none(), "{:?}: {}", info.inconsistency(), at());
    let (mut mine, mut real) = (MoveList::new(), MoveList::new());
    info.legal_moves(&mut mine);
    if truth.turn() == info.seat() {
        truth.legal_moves(&mut real);
    }
    assert_eq!(mine.as_slice(), real.as_slice(), "{}", at());
}

pub fn rules_under_test() -> Vec<Rules> {
    let mut out: Vec<Rules> = Mode::ALL.iter().map(|&m| Rules::preset(m)).collect();
    for o in [
        "rail_turns=one_turn",
        "bomb_flies=true",
        "bomb_front_rank=true",
        "mine_rule=trade",
        "commander_hits_mine=false",
        "hq_locked=false",
        "palace_arcs=true",
        "turn_order=clockwise",
    ] {
        out.push(Rules::preset_with("anqi", [o]).unwrap());
    }
    out
}

/// §10.10: at the start a seat knows its own kinds (its ally's in 双明, all
/// in 全明); of the rest only the army and §10.5's deployment rules.
#[test]
fn section_10_10_what_each_mode_shows_at_the_start() {
    for rules in rules_under_test() {
        let truth = Position::new_game(rules, 5);
        for seat in Army::ALL {
            let info = SiguoInfoSet::new(&truth, seat);
            for (n, p) in truth.pieces() {
                let sees = match rules.mode {
                    Mode::Anqi => p.army == seat,
                    Mode::Shuangming => p.army.team() == seat.team(),
                    Mode::Quanming => true,
                };
                assert_eq!(info.sees(p.army), sees);
                if sees {
                    assert_eq!(info.possible_kinds(n), p.kind.bit());
                    continue;
                }
                let sq = n.square().unwrap().to_string();
                let mut want = ALL_KINDS;
                if sq != "b1" && sq != "d1" {
                    want &= !Kind::Flag.bit();
                }
                if !sq.ends_with('1') && !sq.ends_with('2') {
                    want &= !Kind::Mine.bit();
                }
                if sq.ends_with('6') && !rules.bomb_front_rank {
                    want &= !Kind::Bomb.bit();
                }
                assert_eq!(info.possible_kinds(n), want, "{n} for seat {seat} under {rules:?}");
            }
        }
    }
}

/// §10.10, §10.13: along random games of every mode and option, every seat's
/// set agrees with the truth in what is public, holds every true kind, and
/// gives exactly the referee's legal moves.
#[test]
fn section_10_13_sets_follow_random_games() {
    let mut rng = rng_from_seed(43);
    let mut narrowed = 0;
    for (i, rules) in rules_under_test().into_iter().enumerate() {
        for game in 0..4 {
            let mut t = Table::new(Position::new_game(rules, 100 * i as u64 + game));
            let mut plies = 0;
            while let Some(mv) = t.random_move(&mut rng) {
                t.play(mv);
                plies += 1;
                for s in &t.seats {
                    check_against_truth(s, &t.truth);
                }
                if plies > 1500 {
                    break;
                }
            }
            for s in &t.seats {
                check_against_truth(s, &t.truth);
                narrowed += s.pieces().filter(|&(_, a, k)| !s.sees(a) && k.count_ones() == 1).count();
            }
        }
    }
    assert!(narrowed > 0, "some hidden piece was identified along the games");
}

/// The board of the hand-built examples: each army a flag on `b1`, a 司令 on
/// `a1` and a piece on `c2` that can move, unless `extra` gives it a flag or
/// a 司令 elsewhere; ply 10 (no deployment narrowing).
fn small(extra: &[(&str, usize, char)], rules: Rules) -> Position {
    let mut pieces: Vec<(&str, usize, char)> = extra.to_vec();
    let base = [
        [("sb1", 'F'), ("sa1", 'K'), ("sc2", 'L')],
        [("eb1", 'F'), ("ea1", 'K'), ("ec2", 'E')],
        [("nb1", 'F'), ("na1", 'K'), ("nc2", 'L')],
        [("wb1", 'F'), ("wa1", 'K'), ("wc2", 'L')],
    ];
    for (a, row) in base.iter().enumerate() {
        for &(n, k) in row {
            if !extra.iter().any(|&(_, ea, ek)| ea == a && ek == k && k != 'L' && k != 'E') {
                pieces.push((n, a, k));
            }
        }
    }
    let mut pos = build(rules, &pieces, 0);
    pos.set_counters(0, 10);
    pos
}

/// §10.7, §10.13: a ruling narrows both pieces, for every seat by what it knows.
#[test]
fn section_10_7_a_ruling_narrows_attacker_and_defender() {
    let rules = Rules::preset(Mode::Anqi);
    let pos = small(&[("se6", 0, 'E'), ("ea6", 1, 'G')], rules);
    let mut t = Table::new(pos);
    t.play(Move::new(node("se6"), node("ea6")));
    assert_eq!(t.log[0].ruling, Ruling::DefenderWon);
    // Seat 0 knew its engineer: the defender beats an engineer and is no bomb or mine.
    let officers: KindSet = [
        Kind::Commander,
        Kind::General,
        Kind::Division,
        Kind::Brigade,
        Kind::Regiment,
        Kind::Battalion,
        Kind::Company,
        Kind::Platoon,
    ]
    .iter()
    .fold(0, |s, k| s | k.bit());
    assert_eq!(t.seats[0].possible_kinds(node("ea6")), officers);
    // Seat 2 (ally, 四国暗棋) did not: the attacker was a movable piece that
    // loses to something, not the 司令 (no flag shown).
    let lost = *t.seats[2].removed(army(0)).last().unwrap();
    let want = Kind::in_set(MOVABLE & !Kind::Commander.bit())
        .filter(|&x| Kind::ALL.iter().any(|&y| ruling(&rules, x, y) == Ruling::DefenderWon))
        .fold(0, |s, k| s | k.bit());
    assert_eq!(lost, want);
    // Seat 1 owns the 军长: the attacker lost to it.
    assert_eq!(t.seats[1].known_kind(node("ea6")), Some(Kind::General));
    let below_general = Kind::in_set(MOVABLE & !Kind::Commander.bit())
        .filter(|&x| ruling(&rules, x, Kind::General) == Ruling::DefenderWon)
        .fold(0, |s, k| s | k.bit());
    assert_eq!(t.seats[1].removed(army(0)).last().copied(), Some(below_general));
    assert_ne!(below_general, want);
    // 双明: seat 2 sees its ally's engineer, so it narrows as seat 0 did.
    let mut t = Table::new(small(&[("se6", 0, 'E'), ("ea6", 1, 'G')], Rules::preset(Mode::Shuangming)));
    t.play(Move::new(node("se6"), node("ea6")));
    assert_eq!(t.seats[2].possible_kinds(node("ea6")), officers);
}

/// §10.8: 司令阵亡，军旗亮开. Every seat learns where the flag is and that
/// the piece lost was the 司令; a loss with no flag shown was not the 司令.
#[test]
fn section_10_8_the_flag_is_shown_when_the_commander_falls() {
    let rules = Rules::preset(Mode::Anqi);
    let mut t = Table::new(small(&[("se6", 0, 'B'), ("ea6", 1, 'K')], rules));
    assert_eq!(t.seats[2].known_kind(node("eb1")), None);
    t.play(Move::new(node("se6"), node("ea6")));
    let a = t.log[0];
    assert_eq!(a.ruling, Ruling::BothRemoved);
    assert_eq!(a.flag_shown[1], Some(node("eb1")));
    assert_eq!(a.flag_shown[0], None);
    for seat in [0, 2, 3] {
        let s = &t.seats[seat];
        assert_eq!(s.known_kind(node("eb1")), Some(Kind::Flag), "seat {seat}");
        assert_eq!(s.removed(army(1)).last().copied(), Some(Kind::Commander.bit()), "seat {seat}");
        // Every other removed piece of army 1 was not the 司令.
        let others = &s.removed(army(1))[..s.removed(army(1)).len() - 1];
        assert!(others.iter().all(|&k| k & Kind::Commander.bit() == 0));
    }
    // Army 0 lost a piece that traded with a 司令 and was not its own 司令: a bomb.
    for seat in [1, 2, 3] {
        assert_eq!(t.seats[seat].removed(army(0)).last().copied(), Some(Kind::Bomb.bit()), "seat {seat}");
    }
}

/// §10.8: an army whose flag is captured ends, and its pieces leave every
/// seat's board; its turns are skipped.
#[test]
fn section_10_8_an_ended_army_leaves_every_set() {
    let rules = Rules::preset(Mode::Anqi);
    let mut t = Table::new(small(&[("se6", 0, 'R'), ("ea6", 1, 'F'), ("ed6", 1, 'O')], rules));
    t.play(Move::new(node("se6"), node("ea6")));
    assert_eq!(t.log[0].ruling, Ruling::FlagCaptured { capturer_removed: false });
    assert_eq!(t.log[0].ended[1], Some(EndCause::FlagCaptured));
    for s in &t.seats {
        assert_eq!(s.ended(army(1)), Some(EndCause::FlagCaptured));
        assert!(s.pieces().all(|(_, a, _)| a != army(1)));
        assert_eq!(s.turn(), army(2), "army 1's turn is skipped");
        assert_eq!(s.army_at(node("ea6")), Some(army(0)));
        check_against_truth(s, &t.truth);
    }
    // A bomb that takes a flag leaves with it, and every seat sees that it was a bomb.
    let mut t = Table::new(small(&[("se6", 0, 'B'), ("ea6", 1, 'F')], rules));
    t.play(Move::new(node("se6"), node("ea6")));
    assert_eq!(t.log[0].ruling, Ruling::FlagCaptured { capturer_removed: true });
    assert_eq!(t.seats[3].removed(army(0)).last().copied(), Some(Kind::Bomb.bit()));
}

/// §10.11 `commander_hits_mine = false`: a stopped attack shows a 司令 and a mine.
#[test]
fn section_10_11_a_stopped_commander_is_a_commander_at_a_mine() {
    let rules = Rules::preset_with("anqi", ["commander_hits_mine=false"]).unwrap();
    let mut t = Table::new(small(&[("se6", 0, 'K'), ("ea6", 1, 'M')], rules));
    t.play(Move::new(node("se6"), node("ea6")));
    assert_eq!(t.log[0].ruling, Ruling::Stopped);
    assert_eq!(t.seats[2].known_kind(node("se6")), Some(Kind::Commander));
    assert_eq!(t.seats[0].known_kind(node("ea6")), Some(Kind::Mine));
}

/// A move no straight run makes was a flier's (§10.6).
#[test]
fn section_10_6_a_turning_move_shows_a_flier() {
    let rules = Rules::preset(Mode::Anqi);
    let mut t = Table::new(small(&[("sa3", 0, 'E')], rules));
    t.play(Move::new(node("sa3"), node("sa6")));
    assert_eq!(t.seats[1].possible_kinds(node("sa6")), MOVABLE, "a run along file a is straight");
    let mut t = Table::new(small(&[("sa3", 0, 'E')], rules));
    t.play(Move::new(node("sa3"), node("sb6")));
    assert_eq!(t.seats[1].possible_kinds(node("sb6")), Kind::Engineer.bit(), "a turn at sa6");
}

/// Swap the kinds of two pieces of `army` in a start position.
pub fn swapped(pos: &Position, a: Node, b: Node) -> Position {
    let mut other = pos.clone();
    let (pa, pb) = (pos.piece_at(a).unwrap(), pos.piece_at(b).unwrap());
    other.put(a, Piece::new(pa.army, pb.kind));
    other.put(b, Piece::new(pb.army, pa.kind));
    other
}

/// Two officers of `army` of different ranks on nodes where either may stand.
pub fn two_officers(pos: &Position, army: Army) -> (Node, Node) {
    let officers: Vec<(Node, Kind)> = pos
        .pieces()
        .filter(|(_, p)| p.army == army && p.kind.index() <= Kind::Platoon.index())
        .map(|(n, p)| (n, p.kind))
        .collect();
    for &(a, ka) in &officers {
        for &(b, kb) in &officers {
            if ka != kb {
                return (a, b);
            }
        }
    }
    unreachable!("an army has officers of eight ranks")
}

/// §10.13: hidden kinds never enter a set. Two worlds that differ only in
/// the kinds of two of army 2's officers give seats 0, 1 and 3 of 四国暗棋
/// the same sets (and observations) as long as every announcement is the
/// same, and seats 1 and 3 of 双明; there seat 0, army 2's ally, tells them
/// apart (so the comparison can fail).
#[test]
fn section_10_13_hidden_kinds_never_enter_a_set() {
    let mut compared = 0;
    for (mode, blind) in [(Mode::Anqi, vec![0, 1, 3]), (Mode::Shuangming, vec![1, 3])] {
        for seed in 0..12u64 {
            let start = Position::new_game(Rules::preset(mode), seed);
            let (a, b) = two_officers(&start, army(2));
            let mut x = Table::new(start.clone());
            let mut y = Table::new(swapped(&start, a, b));
            let mut rng = rng_from_seed(seed);
            assert_ne!(x.seats[2], y.seats[2], "army 2 knows its own kinds");
            if mode == Mode::Shuangming {
                assert_ne!(x.seats[0], y.seats[0], "双明: army 0 sees its ally's kinds");
            }
            loop {
                for &seat in &blind {
                    let ply = x.truth.ply();
                    assert_eq!(x.seats[seat], y.seats[seat], "{mode} seed {seed}, seat {seat}, ply {ply}");
                    assert!(
                        junqi_siguo::observation::encode(&x.seats[seat])
                            == junqi_siguo::observation::encode(&y.seats[seat])
                    );
                    compared += 1;
                }
                let Some(mv) = x.random_move(&mut rng) else { break };
                let mut list = MoveList::new();
                y.truth.legal_moves(&mut list);
                if !list.contains(mv) {
                    break;
                }
                x.play(mv);
                y.play(mv);
                if x.log.last() != y.log.last() {
                    break;
                }
            }
        }
    }
    assert!(compared > 500, "{compared}");
}

/// A step of `army`'s piece to an empty neighbour, touching none of `used`.
fn quiet_step(pos: &Position, army: Army, used: &[Node], skip: usize) -> Option<Move> {
    let mut list = MoveList::new();
    pos.moves_of(army, &mut list);
    let t = junqi_siguo::tables(pos.rules().palace_arcs);
    list.iter()
        .copied()
        .filter(|m| {
            pos.piece_at(m.to).is_none()
                && t.adjacent[m.from.index()].contains(&m.to)
                && !used.contains(&m.from)
                && !used.contains(&m.to)
                && t.adjacent[m.to.index()].iter().all(|n| !used.contains(n))
                && t.adjacent[m.from.index()].iter().all(|n| !used.contains(n))
        })
        .nth(skip)
}

/// §10.13: two paths to the same position through the same public events
/// give every seat the same set. Army 0 makes its two steps in either
/// order; the other armies make the same steps in both games.
#[test]
fn section_10_13_two_paths_to_one_position_agree() {
    let mut checked = 0;
    for seed in 0..20u64 {
        let start = Position::new_game(Rules::preset(Mode::Anqi), seed);
        let mut used = Vec::new();
        let mut plan = Vec::new();
        for round in 0..2 {
            for a in Army::ALL {
                match quiet_step(&start, a, &used, round) {
                    Some(m) => {
                        used.extend([m.from, m.to]);
                        plan.push(m);
                    }
                    None => break,
                }
            }
        }
        if plan.len() != 8 {
            continue;
        }
        let mut other = plan.clone();
        other.swap(0, 4);
        let (mut x, mut y) = (Table::new(start.clone()), Table::new(start.clone()));
        let legal = |t: &Table, m: Move| {
            let mut l = MoveList::new();
            t.truth.legal_moves(&mut l);
            l.contains(m)
        };
        let mut ok = true;
        for (&p, &q) in plan.iter().zip(&other) {
            if !legal(&x, p) || !legal(&y, q) {
                ok = false;
                break;
            }
            x.play(p);
            y.play(q);
        }
        if !ok {
            continue;
        }
        assert_eq!(x.truth, y.truth);
        assert_ne!(x.log, y.log, "different paths");
        for seat in 0..4 {
            assert_eq!(x.seats[seat], y.seats[seat], "seed {seed} seat {seat}");
        }
        checked += 1;
    }
    assert!(checked >= 5, "{checked} transpositions");
}

/// A world agrees with a set: public facts, seen kinds, every kind in its
/// set, each army's §2 counts, flags and mines where deployment put them.
pub fn check_world(info: &SiguoInfoSet, world: &Position, from_start: bool) {
    for n in Node::all() {
        assert_eq!(world.piece_at(n).map(|p| p.army), info.army_at(n), "{n}");
        if let Some(p) = world.piece_at(n) {
            assert!(info.possible_kinds(n) & p.kind.bit() != 0, "{n}: {:?}", p.kind);
            if from_start && matches!(p.kind, Kind::Flag | Kind::Mine) {
                assert_eq!(n.zone(), Some(p.army), "{n}: flags and mines never move");
                let sq = n.square().unwrap().to_string();
                let ok = if p.kind == Kind::Flag {
                    sq == "b1" || sq == "d1"
                } else {
                    sq.ends_with('1') || sq.ends_with('2')
                };
                assert!(ok, "{n}: {:?}", p.kind);
            }
        }
    }
    for a in Army::ALL {
        assert_eq!(world.ended(a), info.ended(a));
        if info.ended(a).is_some() {
            continue;
        }
        assert_eq!(world.count(a, Kind::Flag), 1, "{a}");
        for k in Kind::ALL {
            assert!(world.count(a, k) <= k.count(), "{a} {k:?}");
        }
    }
    assert_eq!(
        (world.turn(), world.quiet(), world.ply(), world.outcome()),
        (info.turn(), info.quiet(), info.ply(), info.outcome())
    );
    if world.outcome().is_none() {
        assert!(world.has_move(world.turn()));
    }
    // The world's own sets for the seat are what the seat knows.
    assert_eq!(SiguoInfoSet::new(world, info.seat()).pieces().count(), info.pieces().count());
}

/// §10.13: every world drawn from a set is consistent with it; at the start
/// every army of it is a legal deployment (§10.5).
#[test]
fn section_10_13_sampled_worlds_are_consistent() {
    let mut rng = rng_from_seed(7);
    let mut worlds = 0;
    for (i, rules) in rules_under_test().into_iter().enumerate() {
        let mut t = Table::new(Position::new_game(rules, 900 + i as u64));
        for seat in &t.seats {
            let world = seat.sample_world(&mut rng).unwrap();
            check_world(seat, &world, true);
            for a in Army::ALL {
                let pieces =
                    world.pieces().filter(|(_, p)| p.army == a).map(|(n, p)| (n.square().unwrap(), p.kind)).collect();
                let d = Deployment { colour: Colour::Red, pieces };
                d.validate_allowing(rules.bomb_front_rank).unwrap_or_else(|e| panic!("{a}: {e}"));
            }
            worlds += 1;
        }
        let mut plies = 0;
        while let Some(mv) = t.random_move(&mut rng) {
            t.play(mv);
            plies += 1;
            if plies % 25 == 0 || t.truth.is_game_over() {
                for seat in &t.seats {
                    check_against_truth(seat, &t.truth);
                    let world = seat.sample_world(&mut rng).unwrap();
                    check_world(seat, &world, true);
                    worlds += 1;
                }
            }
            if plies > 1200 {
                break;
            }
        }
    }
    assert!(worlds > 200, "{worlds}");
}

/// §10.13: the same seed draws the same world; different seeds differ.
#[test]
fn section_10_13_sampling_is_deterministic_from_a_seed() {
    let truth = Position::new_game(Rules::preset(Mode::Anqi), 3);
    let info = SiguoInfoSet::new(&truth, army(1));
    let a = info.sample_world(&mut rng_from_seed(11)).unwrap();
    let b = info.sample_world(&mut rng_from_seed(11)).unwrap();
    assert_eq!(a, b);
    let distinct: std::collections::HashSet<String> =
        (0..10).map(|s| info.sample_world(&mut rng_from_seed(s)).unwrap().to_string()).collect();
    assert!(distinct.len() >= 9, "{}", distinct.len());
    // Army 1's own pieces are the truth's in every world.
    for (n, p) in truth.pieces().filter(|(_, p)| p.army == army(1)) {
        assert_eq!(a.piece_at(n), Some(p));
    }
    // In 全明 the only world is the truth.
    let open = Position::new_game(Rules::preset(Mode::Quanming), 3);
    assert_eq!(SiguoInfoSet::new(&open, army(2)).sample_world(&mut rng_from_seed(1)).unwrap(), open);
}

/// §10.8: when two 司令 trade and the defender's army ends in the same move
/// (no legal move left), only the attacker's flag is shown; the ended army's
/// loss says nothing, and every set stays consistent.
#[test]
fn section_10_8_a_commander_lost_as_its_army_ends() {
    let rules = Rules::preset(Mode::Anqi);
    let pieces = [
        ("sb1", 0, 'F'),
        ("sa1", 0, 'K'),
        ("sc2", 0, 'L'),
        ("eb1", 1, 'F'),
        ("ea1", 1, 'K'),
        ("ec2", 1, 'E'),
        ("nb1", 2, 'F'),
        ("ne6", 2, 'K'),
        ("nc2", 2, 'L'),
        ("wb1", 3, 'F'),
        ("wa6", 3, 'K'),
    ];
    // Ply 0: deployment rules hold, so army 3's piece on its front rank is no bomb.
    let mut t = Table::new(build(rules, &pieces, 2));
    assert_eq!(t.seats[0].possible_kinds(node("wa6")) & Kind::Bomb.bit(), 0);
    t.play(Move::new(node("ne6"), node("wa6")));
    let a = *t.log.last().unwrap();
    assert_eq!(a.ruling, Ruling::BothRemoved);
    assert_eq!(a.ended[3], Some(EndCause::NoLegalMove));
    assert_eq!(a.flag_shown[2], Some(node("nb1")));
    for s in &t.seats {
        check_against_truth(s, &t.truth);
        if !s.sees(army(2)) {
            assert_eq!(s.removed(army(2)).last().copied(), Some(Kind::Commander.bit()));
        }
    }
}

/// §10.13: the draw is close to uniform. At a start position the uniform law
/// over a hidden army's legal deployments puts its flag in each
/// headquarters with probability 1/2, and a mine on `a1` (never a
/// headquarters) with probability 3/9 (three mines among the nine places of
/// ranks 1-2 the flag leaves), a bomb on `a3` with probability 2/16 (two
/// bombs among the 16 places off rank 6 the flag and mines leave) and the
/// 司令 on `a6` with probability 1/19 (the 19 other pieces fill the 19 places
/// left, rank 6 among them); 3000 draws, 5-sigma bounds.
#[test]
fn section_10_13_draws_are_close_to_uniform_at_the_start() {
    let truth = Position::new_game(Rules::preset(Mode::Anqi), 21);
    let info = SiguoInfoSet::new(&truth, army(0));
    let mut rng = rng_from_seed(99);
    let n = 3000;
    let (mut flag_b1, mut mine_a1, mut bomb_a3, mut commander_a6) = ([0u32; 4], [0u32; 4], [0u32; 4], [0u32; 4]);
    for _ in 0..n {
        let w = info.sample_world(&mut rng).unwrap();
        for a in 1..4 {
            let at = |sq: &str| w.piece_at(Node::in_zone(army(a), sq.parse().unwrap()).unwrap()).unwrap().kind;
            flag_b1[a] += (at("b1") == Kind::Flag) as u32;
            mine_a1[a] += (at("a1") == Kind::Mine) as u32;
            bomb_a3[a] += (at("a3") == Kind::Bomb) as u32;
            commander_a6[a] += (at("a6") == Kind::Commander) as u32;
        }
    }
    for a in 1..4 {
        let laws =
            [(flag_b1[a], 0.5), (mine_a1[a], 1.0 / 3.0), (bomb_a3[a], 2.0 / 16.0), (commander_a6[a], 1.0 / 19.0)];
        for (count, p) in laws {
            let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
            assert!((count as f64 - mean).abs() < 5.0 * sd, "army {a}: {count} of {n}, expected {mean:.0}");
        }
    }
}

/// An announcement no referee could make leaves a set no world fits, and
/// that is an error, not a panic: army 1 "stopped" at seat 0's engineer.
/// Random nonsense announcements never panic either.
#[test]
fn section_10_13_impossible_announcements_are_errors() {
    let rules = Rules::preset(Mode::Anqi);
    let pos = small(&[("ea6", 1, 'D'), ("se6", 0, 'E')], rules);
    let mut info = SiguoInfoSet::new(&pos, army(0));
    assert!(info.inconsistency().is_none());
    let mut a = Announcement::new(
        &pos,
        Move::new(node("ea6"), node("se6")),
        &junqi_siguo::Effect::Move { piece: Piece::new(army(1), Kind::Division) },
        &pos,
    );
    a.ruling = Ruling::Stopped;
    a.mover = army(1);
    info.update(&a);
    let err = info.inconsistency().expect("no world fits");
    assert!(err.to_string().contains("army 1"), "{err}");
    assert!(info.sample_world(&mut rng_from_seed(1)).is_err());

    let mut rng = rng_from_seed(3);
    let rulings = [
        Ruling::Move,
        Ruling::AttackerWon,
        Ruling::DefenderWon,
        Ruling::BothRemoved,
        Ruling::FlagCaptured { capturer_removed: true },
        Ruling::FlagCaptured { capturer_removed: false },
        Ruling::Stopped,
    ];
    let start = Position::new_game(rules, 2);
    for _ in 0..200 {
        let mut info = SiguoInfoSet::new(&start, army(rng.random_range(0..4)));
        for _ in 0..10 {
            let mut a = a;
            a.mv =
                Move::new(Node::new(rng.random_range(0..129)).unwrap(), Node::new(rng.random_range(0..129)).unwrap());
            a.mover = army(rng.random_range(0..4));
            a.ruling = rulings[rng.random_range(0..rulings.len())];
            a.flag_shown[rng.random_range(0..4)] = Node::new(rng.random_range(0..129));
            if rng.random_bool(0.1) {
                a.ended[rng.random_range(0..4)] = Some(EndCause::NoLegalMove);
            }
            info.update(&a);
            let _ = info.inconsistency();
            let _ = info.sample_world(&mut rng);
            let mut list = MoveList::new();
            info.legal_moves(&mut list);
            let _ = junqi_siguo::observation::encode(&info);
        }
    }
}
