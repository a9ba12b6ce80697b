//! The fast generator against the reference (tests/reference.rs) on many
//! random positions of every mode and option: positions of random games, and sparse
//! random boards where the railways are open.

use crate::reference::{fast_moves, Reference};
use junqi_core::piece::{full_army, Kind};
use junqi_siguo::{Army, MoveList, Node, Piece, Position, Rules};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::Rng;

/// Rule sets covering every option, alone or together.
fn rule_sets() -> Vec<Rules> {
    let sets: &[&[&str]] = &[
        &[],
        &["rail_turns=one_turn"],
        &["bomb_flies=true"],
        &["palace_arcs=true"],
        &["hq_locked=false"],
        &["turn_order=clockwise"],
        &["rail_turns=one_turn", "palace_arcs=true", "bomb_flies=true", "hq_locked=false"],
        // Options that change the games (and so the positions met), not the moves.
        &["mine_rule=trade", "commander_hits_mine=false", "bomb_front_rank=true", "turn_order=clockwise"],
    ];
    let mut rules: Vec<Rules> = sets.iter().map(|o| Rules::preset_with("anqi", o.iter().copied()).unwrap()).collect();
    // Every mode: the moves do not depend on it, which these check.
    rules.push(Rules::preset_with("shuangming", ["palace_arcs=true", "rail_turns=one_turn"]).unwrap());
    rules.push(Rules::preset_with("quanming", std::iter::empty::<&str>()).unwrap());
    rules
}

fn check(reference: &Reference, pos: &Position) {
    let fast = fast_moves(pos);
    let slow = reference.moves(pos);
    if fast != slow {
        let name = |(a, b): &(usize, usize)| format!("{}-{}", Node::new(*a).unwrap(), Node::new(*b).unwrap());
        let extra: Vec<String> = fast.difference(&slow).map(name).collect();
        let missing: Vec<String> = slow.difference(&fast).map(name).collect();
        panic!("{pos}\n{:?}\nfast only: {extra:?}\nreference only: {missing:?}", pos.rules());
    }
}

#[test]
fn the_fast_generator_matches_the_reference_in_random_games() {
    let mut rng = junqi_core::setup::rng_from_seed(11);
    let mut positions = 0;
    for rules in rule_sets() {
        let reference = Reference::new(rules.palace_arcs);
        for _ in 0..6 {
            let mut pos = Position::new_game(rules, rng.random());
            let mut list = MoveList::new();
            for _ in 0..400 {
                check(&reference, &pos);
                positions += 1;
                pos.legal_moves(&mut list);
                let Some(&mv) = list.as_slice().choose(&mut rng) else { break };
                pos.play(mv).unwrap();
            }
        }
    }
    eprintln!("random games: {positions} positions checked");
    assert!(positions > 5000, "{positions} positions");
}

/// A sparse board: a few pieces of each army anywhere (mines and flags too).
fn sparse(rules: Rules, rng: &mut impl Rng) -> Position {
    let mut pos = Position::empty(rules);
    let mut nodes: Vec<Node> = Node::all().collect();
    nodes.shuffle(rng);
    let mut free = nodes.into_iter();
    for army in Army::ALL {
        let mut kinds: Vec<Kind> = full_army().collect();
        kinds.shuffle(rng);
        let n = rng.random_range(1..=12);
        for &kind in kinds.iter().take(n) {
            pos.put(free.next().unwrap(), Piece::new(army, kind));
        }
    }
    pos.set_turn(Army::new(rng.random_range(0..4)).unwrap());
    pos.settle();
    pos
}

#[test]
fn the_fast_generator_matches_the_reference_on_sparse_random_boards() {
    let mut rng = junqi_core::setup::rng_from_seed(12);
    let mut checked = 0;
    for rules in rule_sets() {
        let reference = Reference::new(rules.palace_arcs);
        for _ in 0..300 {
            let pos = sparse(rules, &mut rng);
            // Every army's moves, not only the one to move.
            for army in Army::ALL {
                let mut p = pos.clone();
                if p.ended(army).is_some() || p.is_game_over() {
                    continue;
                }
                p.set_turn(army);
                check(&reference, &p);
                checked += 1;
            }
        }
    }
    eprintln!("sparse boards: {checked} positions checked");
    assert!(checked > 3000, "{checked}");
}
