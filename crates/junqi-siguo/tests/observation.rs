//! docs/observation.md, "The four-player board": planes on the 17 × 17 grid
//! of §10.1 seen from the seat, and legal-action masks, from a seat's set only.

use super::infoset::Table;
use junqi_core::rng_from_seed;
use junqi_siguo::observation::*;
use junqi_siguo::{tables, Army, Mode, MoveList, Node, Piece, Position, Rules, SiguoInfoSet};

fn plane(obs: &[f32], p: usize) -> &[f32] {
    &obs[p * CELLS..(p + 1) * CELLS]
}

fn cells_of(obs: &[f32], p: usize) -> Vec<(usize, usize)> {
    plane(obs, p).iter().enumerate().filter(|(_, &v)| v != 0.0).map(|(c, _)| (c % GRID, c / GRID)).collect()
}

/// §10.1: the board planes mark the 129 nodes, the railway, camps and
/// headquarters where the drawing has them; the shapes are as documented.
#[test]
fn section_10_1_board_planes_and_shapes() {
    let pos = Position::new_game(Rules::preset(Mode::Anqi), 1);
    let obs = encode(&SiguoInfoSet::new(&pos, Army::ALL[0]));
    assert_eq!(obs.len(), OBS_LEN);
    let info = SiguoInfoSet::new(&pos, Army::ALL[0]);
    assert_eq!(encode_into(&info, &mut [0.0; 5]), Err(BufferLength(5)));
    let mut again = vec![9.0; OBS_LEN];
    encode_into(&info, &mut again).unwrap();
    assert!(again == obs, "encode_into overwrites the whole buffer");
    assert_eq!(OBS_LEN, PLANES * 17 * 17);
    assert_eq!(ACTIONS, 129 * 129);
    assert_eq!(cells_of(&obs, PLANE_NODE).len(), 129);
    assert_eq!(cells_of(&obs, PLANE_RAILWAY).len(), tables(false).railway.len());
    assert_eq!(cells_of(&obs, PLANE_CAMP).len(), 20);
    assert_eq!(cells_of(&obs, PLANE_HQ).len(), 8);
    // Seat 0 sees the board as drawn.
    for n in Node::all() {
        let (x, y) = n.coords();
        assert_eq!(plane(&obs, PLANE_NODE)[y as usize * GRID + x as usize], 1.0, "{n}");
    }
    assert_eq!(PLANES, 74);
}

/// The seat's own army is always at the bottom, its ally at the top, the
/// army on its right (next counterclockwise) on the right.
#[test]
fn section_10_1_every_seat_sees_its_army_at_the_bottom() {
    for mode in Mode::ALL {
        let pos = Position::new_game(Rules::preset(mode), 2);
        for seat in Army::ALL {
            let obs = encode(&SiguoInfoSet::new(&pos, seat));
            let own = cells_of(&obs, PLANE_OCCUPIED);
            assert_eq!(own.len(), 25);
            assert!(own.iter().all(|&(_, y)| y >= 11), "seat {seat}: {own:?}");
            assert!(cells_of(&obs, PLANE_OCCUPIED + 1).iter().all(|&(x, _)| x >= 11));
            assert!(cells_of(&obs, PLANE_OCCUPIED + 2).iter().all(|&(_, y)| y <= 5));
            assert!(cells_of(&obs, PLANE_OCCUPIED + 3).iter().all(|&(x, _)| x <= 5));
            // Army 0 moves first: for seat s that is relative army (4 - s) % 4.
            assert_eq!(plane(&obs, PLANE_TO_MOVE + (4 - seat.index()) % 4)[0], 1.0);
            // Its own kinds are one plane each; an enemy's are every kind deployment
            // allows (no flag off the 23 posts, no mine on the 15 nodes of ranks 3-6, no bomb on rank 6).
            let own_kinds: usize = (0..12).map(|k| cells_of(&obs, PLANE_KINDS + k).len()).sum();
            assert_eq!(own_kinds, 25);
            let enemy_kinds: usize = (0..12).map(|k| cells_of(&obs, PLANE_KINDS + 12 + k).len()).sum();
            let expected = if mode == Mode::Quanming { 25 } else { 25 * 12 - 23 - 15 - 5 };
            assert_eq!(enemy_kinds, expected, "{mode}");
        }
    }
}

/// Turn the whole position so that `seat` sits at army 0's place.
fn turned(pos: &Position, seat: Army) -> Position {
    let mut out = Position::empty(*pos.rules());
    let rel = |a: Army| Army::new(relative_army(seat, a)).unwrap();
    for (n, p) in pos.pieces() {
        out.put(relative_node(seat, n), Piece::new(rel(p.army), p.kind));
    }
    for a in Army::ALL {
        out.set_ended(rel(a), pos.ended(a));
    }
    out.set_turn(rel(pos.turn()));
    out.set_counters(pos.quiet(), pos.ply());
    out.settle();
    out
}

/// Seat-relative: a seat's observation is the observation seat 0 would have
/// of the same position turned to bring that seat to army 0's place.
#[test]
fn observations_are_seat_relative() {
    let mut rng = rng_from_seed(5);
    for mode in Mode::ALL {
        let mut t = Table::new(Position::new_game(Rules::preset(mode), 8));
        for ply in 0..200 {
            if ply % 40 == 0 {
                for seat in Army::ALL {
                    let turned = turned(&t.truth, seat);
                    assert_eq!(turned.outcome(), t.truth.outcome());
                    let mine = encode(&SiguoInfoSet::new(&t.truth, seat));
                    let theirs = encode(&SiguoInfoSet::new(&turned, Army::ALL[0]));
                    assert!(mine == theirs, "{mode} ply {ply} seat {seat}");
                }
            }
            let Some(mv) = t.random_move(&mut rng) else { break };
            t.play(mv);
        }
    }
}

/// Action indices: every (from, to) pair both ways, for every seat.
#[test]
fn action_indices_round_trip() {
    for seat in Army::ALL {
        for i in 0..ACTIONS {
            let mv = action_move(seat, i).unwrap();
            assert_eq!(action_index(seat, mv), i);
        }
        assert_eq!(action_move(seat, ACTIONS), None);
    }
}

/// The mask is exactly the referee's legal moves for the seat to move, and
/// empty for the others, along random games of every mode and option.
#[test]
fn masks_match_legal_moves_on_random_positions() {
    let mut rng = rng_from_seed(9);
    let mut checked = 0;
    let mut rules: Vec<Rules> = Mode::ALL.iter().map(|&m| Rules::preset(m)).collect();
    rules.push(Rules::preset_with("anqi", ["rail_turns=one_turn", "palace_arcs=true", "bomb_flies=true"]).unwrap());
    rules.push(Rules::preset_with("shuangming", ["hq_locked=false", "turn_order=clockwise"]).unwrap());
    for (i, r) in rules.into_iter().enumerate() {
        let mut t = Table::new(Position::new_game(r, 40 + i as u64));
        let mut list = MoveList::new();
        for ply in 0..600 {
            if ply % 5 == 0 {
                t.truth.legal_moves(&mut list);
                for s in &t.seats {
                    let mask = legal_action_mask(s);
                    assert_eq!(mask.len(), ACTIONS);
                    let on: Vec<usize> = (0..ACTIONS).filter(|&a| mask[a]).collect();
                    if s.seat() == t.truth.turn() && !t.truth.is_game_over() {
                        let mut want: Vec<usize> = list.iter().map(|&m| action_index(s.seat(), m)).collect();
                        want.sort();
                        assert_eq!(on, want);
                        checked += 1;
                    } else {
                        assert!(on.is_empty());
                    }
                }
            }
            let Some(mv) = t.random_move(&mut rng) else { break };
            t.play(mv);
        }
    }
    assert!(checked > 200, "{checked}");
}

/// The scalar planes: ended armies, counters, options.
#[test]
fn scalar_planes() {
    let rules = Rules::preset_with("anqi", ["palace_arcs=true", "mine_rule=trade"]).unwrap();
    let pos = Position::new_game(rules, 4);
    let obs = encode(&SiguoInfoSet::new(&pos, Army::ALL[1]));
    for i in 0..8 {
        let on = plane(&obs, PLANE_RULES + i).iter().all(|&v| v == 1.0);
        assert_eq!(on, i == 2 || i == 5, "option plane {i}");
    }
    assert!(plane(&obs, PLANE_QUIET).iter().all(|&v| v == 0.0));
    assert!((0..4).all(|r| plane(&obs, PLANE_ENDED + r).iter().all(|&v| v == 0.0)));
    // Random moves until an army ends.
    let mut t = Table::new(pos);
    let mut rng = rng_from_seed(1);
    while t.truth.outcome().is_none() && Army::ALL.iter().all(|&a| t.truth.ended(a).is_none()) {
        let mv = t.random_move(&mut rng).unwrap();
        t.play(mv);
    }
    let ended = Army::ALL.into_iter().find(|&a| t.truth.ended(a).is_some()).unwrap();
    let obs = encode(&t.seats[1]);
    let r = relative_army(Army::ALL[1], ended);
    assert!(plane(&obs, PLANE_ENDED + r).iter().all(|&v| v == 1.0));
    let q = t.truth.quiet() as f32 / 70.0;
    assert!(plane(&obs, PLANE_QUIET).iter().all(|&v| (v - q).abs() < 1e-6));
}

/// docs/observation.md gives the sizes the code has.
#[test]
fn the_documented_sizes_are_the_code_s() {
    let doc = include_str!("../../../docs/observation.md");
    let section = doc.split("## The four-player board").nth(1).expect("a four-player section");
    for fact in [
        format!("`PLANES = {PLANES}`"),
        format!("`OBS_LEN = {OBS_LEN}`"),
        format!("`ACTIONS = {ACTIONS}`"),
        format!("`[{PLANES}, 17, 17]`"),
        format!("| {}–{} | constant, 1 when the option", PLANE_RULES, PLANES - 1),
        format!("| {}–{} | plane `{} + 12 r + k`", PLANE_KINDS, PLANE_TO_MOVE - 1, PLANE_KINDS),
    ] {
        assert!(section.contains(&fact), "docs/observation.md lacks {fact}");
    }
}
