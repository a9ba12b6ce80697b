//! `greedy`: the most valuable capture it can *prove* by the rules from what
//! its seat knows, else a uniformly random legal action.
//!
//! A capture `from → to` is provable when, for every kind `x` the defender on
//! `to` may still be ([`InfoSet::possible_kinds`]: the exact kind of a
//! face-up or 明棋 piece, the narrowed set of a 暗棋 piece),
//! [`junqi_core::position::combat`] gives `AttackerWon` or `FlagCaptured`.
//! A face-down 翻棋 piece (`attack_hidden`) is never a provable capture: it
//! may be the attacker's own colour. Captures are valued by the least
//! valuable kind the defender may be ([`piece_value`]; a flag wins the game);
//! ties go to the cheaper attacker, then uniformly at random.

use crate::{uniform, Agent, Decision};
use junqi_core::piece::Kind;
use junqi_core::position::combat;
use junqi_core::{CombatOutcome, GameRng, InfoSet, Move, MoveList};
use rand::Rng;

/// The value of a piece for greedy captures: the flag ends the game; officers
/// by rank; an engineer (it clears mines) like a 排长; a bomb like a 团长.
pub fn piece_value(kind: Kind) -> u32 {
    match kind {
        Kind::Flag => 1000,
        Kind::Commander => 10,
        Kind::General => 9,
        Kind::Division => 8,
        Kind::Brigade => 7,
        Kind::Regiment | Kind::Bomb => 6,
        Kind::Battalion => 5,
        Kind::Company => 4,
        Kind::Platoon | Kind::Engineer => 3,
        Kind::Mine => 2,
    }
}

/// A capture the rules guarantee, from one seat's knowledge.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProvableCapture {
    pub mv: Move,
    pub attacker: Kind,
    /// [`piece_value`] of the least valuable kind the defender may be.
    pub value: u32,
}

/// Every legal capture of the seat to move in `info` that the rules guarantee.
/// Leaves the seat's legal actions in `moves`.
pub fn provable_captures(info: &InfoSet, moves: &mut MoveList) -> Vec<ProvableCapture> {
    let mut out = Vec::new();
    info.legal_moves(moves);
    let view = info.view();
    let Some(me) = info.colour() else { return out };
    for &mv in moves.iter() {
        if mv.is_flip() || !view.is_occupied(mv.to) || view.is_face_down(mv.to) {
            continue;
        }
        let Some(attacker) = view.piece_at(mv.from) else { continue };
        if attacker.colour != me || view.piece_at(mv.to).is_some_and(|p| p.colour == me) {
            continue;
        }
        let set = info.possible_kinds(mv.to);
        if set == 0 {
            continue;
        }
        // A seat's own counts are exact in every view, so this is what the referee decides.
        let may = view.may_capture_flag(me, attacker.kind);
        let sure = Kind::in_set(set).all(|x| {
            matches!(
                combat(view.rules(), attacker.kind, x, may),
                CombatOutcome::AttackerWon | CombatOutcome::FlagCaptured
            )
        });
        if sure {
            let value = Kind::in_set(set).map(piece_value).min().unwrap_or(0);
            out.push(ProvableCapture { mv, attacker: attacker.kind, value });
        }
    }
    out
}

/// The greedy bot. `epsilon`: probability of a uniformly random action instead.
#[derive(Clone, Debug, Default)]
pub struct Greedy {
    pub epsilon: f32,
    moves: MoveList,
}

impl Greedy {
    pub fn new(epsilon: f32) -> Greedy {
        Greedy { epsilon, moves: MoveList::new() }
    }
}

impl Agent for Greedy {
    fn name(&self) -> String {
        if self.epsilon == 0.0 {
            "greedy".to_string()
        } else {
            format!("greedy:epsilon={}", self.epsilon)
        }
    }

    fn act(&mut self, info: &InfoSet, rng: &mut GameRng) -> Decision {
        let captures = provable_captures(info, &mut self.moves);
        let all = self.moves.as_slice();
        assert!(!all.is_empty(), "act called on a finished game");
        let best_key = captures.iter().map(|c| (c.value, std::cmp::Reverse(piece_value(c.attacker)))).max();
        let Some(best_key) = best_key else {
            let action = all[rng.random_range(0..all.len())];
            return Decision { action, policy: uniform(all), value: None };
        };
        let best: Vec<Move> = captures
            .iter()
            .filter(|c| (c.value, std::cmp::Reverse(piece_value(c.attacker))) == best_key)
            .map(|c| c.mv)
            .collect();
        let eps = self.epsilon.clamp(0.0, 1.0);
        let action = if eps > 0.0 && rng.random::<f32>() < eps {
            all[rng.random_range(0..all.len())]
        } else {
            best[rng.random_range(0..best.len())]
        };
        let policy = if eps == 0.0 {
            uniform(&best)
        } else {
            let (p_all, p_best) = (eps / all.len() as f32, (1.0 - eps) / best.len() as f32);
            all.iter().map(|&m| (m, if best.contains(&m) { p_all + p_best } else { p_all })).collect()
        };
        Decision { action, policy, value: None }
    }
}
