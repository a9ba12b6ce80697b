//! A slow, obviously correct move generator written from the text of
//! docs/rules.md §10.1–§10.6 alone: node places from §10.1's formula, edges
//! from the geometry of the 17 × 17 grid (§10.2), straight runs as paths that
//! keep their direction (an arc keeps the direction of the line it joins,
//! §10.3), flights as a search over empty railway nodes. It shares no table
//! with the crate's generator, only the two-player half's road edges and
//! railway nodes (`junqi_core::board`), which §10.1 adopts by reference.

use junqi_core::board::{self as core_board};
use junqi_core::piece::Kind;
use junqi_siguo::{Army, Move, Node, NodeKind, Position, RailTurns, NODES};
use std::collections::{BTreeSet, HashMap};

/// A grid direction (unit step, or an arc's tangent).
type Dir = (i32, i32);

pub struct Reference {
    road: Vec<Vec<usize>>,
    /// Railway edges: (u, v) → (direction leaving u, direction arriving at v).
    rail: HashMap<(usize, usize), (Dir, Dir)>,
    /// The same edges by start node, for speed.
    out: Vec<Vec<(usize, Dir, Dir)>>,
}

/// §10.1: where a node sits, from its name alone.
pub fn place(name: &str) -> (i32, i32) {
    let rotate = |(mut dx, mut dy): (i32, i32), army: char| {
        let turns = "senw".find(army).expect("an army letter");
        for _ in 0..turns {
            (dx, dy) = (dy, -dx);
        }
        (8 + dx, 8 + dy)
    };
    let c: Vec<char> = name.chars().collect();
    match c[..] {
        ['m'] => (8, 8),
        ['m', a] => rotate((0, 2), a),
        ['m', a, _] => rotate((2, 2), a),
        [a, file, rank] => {
            let f = file as i32 - 'a' as i32;
            let r = rank as i32 - '0' as i32;
            rotate((f - 2, 9 - r), a)
        }
        _ => panic!("node name {name}"),
    }
}

fn sign(v: i32) -> i32 {
    v.signum()
}

impl Reference {
    pub fn new(palace_arcs: bool) -> Reference {
        let names: Vec<String> = (0..NODES).map(|i| Node::new(i).unwrap().to_string()).collect();
        let coords: Vec<(i32, i32)> = names.iter().map(|n| place(n)).collect();
        let at: HashMap<(i32, i32), usize> = coords.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let zone = |i: usize| if i < 120 { Some(i / 30) } else { None };
        let is_rail = |i: usize| i >= 120 || core_board::RAILWAY & (1u64 << (i % 30)) != 0;
        let mut road = vec![Vec::new(); NODES];
        for (i, neighbours) in road.iter_mut().enumerate().take(120) {
            for b in core_board::squares(core_board::ROAD_ADJACENT[i % 30] & core_board::RED_HALF) {
                neighbours.push(i / 30 * 30 + b.index());
            }
        }
        let mut rail = HashMap::new();
        for u in 0..NODES {
            for v in 0..NODES {
                if u == v || !is_rail(u) || !is_rail(v) {
                    continue;
                }
                let ((ux, uy), (vx, vy)) = (coords[u], coords[v]);
                let (dx, dy) = (vx - ux, vy - uy);
                let orthogonal = (dx == 0) != (dy == 0);
                let dist = dx.abs() + dy.abs();
                let straight = if zone(u).is_some() && zone(u) == zone(v) {
                    orthogonal && dist == 1
                } else {
                    orthogonal && dist <= 2 && !at.contains_key(&((ux + vx) / 2, (uy + vy) / 2))
                        || orthogonal && dist == 1
                };
                if straight {
                    let d = (sign(dx), sign(dy));
                    rail.insert((u, v), (d, d));
                    continue;
                }
                let arc =
                    zone(u).is_some() && zone(v).is_some() && zone(u) != zone(v) && dx.abs() == 1 && dy.abs() == 1;
                if arc {
                    // The arc's centre is the corner of the unit square that is no node.
                    let q = if at.contains_key(&(ux, vy)) { (vx, uy) } else { (ux, vy) };
                    let tangent = |(px, py): (i32, i32)| {
                        let r = (px - q.0, py - q.1);
                        let t = (-r.1, r.0);
                        if t.0 * dx + t.1 * dy > 0 {
                            t
                        } else {
                            (-t.0, -t.1)
                        }
                    };
                    rail.insert((u, v), (tangent((ux, uy)), tangent((vx, vy))));
                }
            }
        }
        if palace_arcs {
            // §10.11 palace_arcs: diagonally opposite corner palaces.
            for (a, b) in [("mse", "mnw"), ("men", "mws")] {
                let u = names.iter().position(|n| n == a).unwrap();
                let v = names.iter().position(|n| n == b).unwrap();
                let d = (sign(coords[v].0 - coords[u].0), sign(coords[v].1 - coords[u].1));
                rail.insert((u, v), (d, d));
                rail.insert((v, u), ((-d.0, -d.1), (-d.0, -d.1)));
            }
        }
        let mut out = vec![Vec::new(); NODES];
        for (&(u, v), &(o, i)) in &rail {
            out[u].push((v, o, i));
        }
        for o in &mut out {
            o.sort();
        }
        Reference { road, rail, out }
    }

    pub fn road_neighbours(&self, i: usize) -> &[usize] {
        &self.road[i]
    }
    pub fn rail_edges(&self) -> BTreeSet<(usize, usize)> {
        self.rail.keys().copied().collect()
    }

    fn rail_out(&self, u: usize) -> impl Iterator<Item = (usize, (i32, i32), (i32, i32))> + '_ {
        self.out[u].iter().copied()
    }

    /// Every legal move of the army to move (none when the game is over).
    pub fn moves(&self, pos: &Position) -> BTreeSet<(usize, usize)> {
        let mut out = BTreeSet::new();
        if pos.is_game_over() {
            return out;
        }
        let army = pos.turn();
        let rules = *pos.rules();
        let piece = |i: usize| pos.piece_at(Node::new(i).unwrap());
        for from in 0..NODES {
            let Some(p) = piece(from) else { continue };
            if p.army != army || matches!(p.kind, Kind::Flag | Kind::Mine) {
                continue;
            }
            if rules.hq_locked && Node::new(from).unwrap().kind() == NodeKind::Headquarters {
                continue;
            }
            // The mover has left its node.
            let empty = |i: usize| i == from || piece(i).is_none();
            let may_end = |i: usize| match piece(i) {
                None => true,
                Some(q) => q.army.team() != army.team() && Node::new(i).unwrap().kind() != NodeKind::Camp,
            };
            let mut reach = BTreeSet::new();
            // Step.
            for &n in &self.road[from] {
                reach.insert(n);
            }
            for (n, _, _) in self.rail_out(from) {
                reach.insert(n);
            }
            let flies = p.kind == Kind::Engineer || (p.kind == Kind::Bomb && rules.bomb_flies);
            if flies {
                let mut seen = BTreeSet::from([from]);
                let mut todo = vec![from];
                while let Some(u) = todo.pop() {
                    for (v, _, _) in self.rail_out(u) {
                        if seen.insert(v) {
                            reach.insert(v);
                            if empty(v) {
                                todo.push(v);
                            }
                        }
                    }
                }
            } else {
                let turns_allowed = if rules.rail_turns == RailTurns::OneTurn { 1 } else { 0 };
                // (node, direction it arrived with, turns used)
                let mut todo: Vec<(usize, (i32, i32), u32)> = Vec::new();
                for (v, _, arrive) in self.rail_out(from) {
                    reach.insert(v);
                    if empty(v) {
                        todo.push((v, arrive, 0));
                    }
                }
                let mut seen = BTreeSet::new();
                while let Some((u, dir, used)) = todo.pop() {
                    if !seen.insert((u, dir, used)) {
                        continue;
                    }
                    for (v, leave, arrive) in self.rail_out(u) {
                        let cost = if leave == dir {
                            0
                        } else if leave == (-dir.0, -dir.1) {
                            continue;
                        } else {
                            1
                        };
                        if used + cost > turns_allowed {
                            continue;
                        }
                        reach.insert(v);
                        if empty(v) {
                            todo.push((v, arrive, used + cost));
                        }
                    }
                }
            }
            for to in reach {
                if to != from && may_end(to) {
                    out.insert((from, to));
                }
            }
        }
        out
    }

    pub fn perft(&self, pos: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves(pos);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|&(a, b)| self.perft(&pos.played(Move::new(Node::new(a).unwrap(), Node::new(b).unwrap())), depth - 1))
            .sum()
    }
}

/// The fast generator's moves as index pairs.
pub fn fast_moves(pos: &Position) -> BTreeSet<(usize, usize)> {
    let mut list = junqi_siguo::MoveList::new();
    pos.legal_moves(&mut list);
    let set: BTreeSet<(usize, usize)> = list.iter().map(|m| (m.from.index(), m.to.index())).collect();
    assert_eq!(set.len(), list.len(), "duplicate moves in {pos}");
    set
}

#[allow(dead_code)]
pub fn army(i: usize) -> Army {
    Army::new(i).unwrap()
}
