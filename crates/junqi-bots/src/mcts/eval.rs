//! Leaf evaluation: the [`LeafEvaluator`] trait the search calls at every new
//! node, and the default [`RolloutEvaluator`] (a short playout, then material).

use crate::greedy::piece_value;
use junqi_core::piece::Kind;
use junqi_core::position::combat;
use junqi_core::{CombatOutcome, GameRng, InfoSet, KindBelief, Move, MoveList, Outcome, Position, Seat};
use rand::Rng;
use std::task::Poll;

/// Values a position for the search. A network evaluator plugs in here: it
/// may also hand out priors over the legal actions, and the search then
/// selects by PUCT at that node instead of UCB1.
///
/// An evaluator may answer later: it returns `Poll::Pending` after asking
/// someone else (a batching inference service), the search returns
/// `Pending` to its caller, who calls [`LeafEvaluator::wait`] (or does other
/// work first) and then resumes the search, which asks again for the same
/// world and gets the answer. Nothing else may happen to the evaluator in
/// between.
pub trait LeafEvaluator: Send {
    /// The value of `world` (a full position; the game goes on) for its side
    /// to move ([`LeafValue`]: the expected score in [-1, 1], and the chance
    /// of a draw where the evaluator can tell); and, if it has them, priors over
    /// `moves` (the legal actions of `world`), one per action in the same
    /// order, written to `priors` (cleared by the caller).
    ///
    /// `info` is what the mover knows there when the search can tell (暗棋,
    /// the searching seat, for evaluators that ask for it with
    /// [`LeafEvaluator::wants_info`]): its information set at the root, carried
    /// down the simulation's moves. `None`: the evaluator takes what a fresh
    /// information set of `world` shows.
    fn evaluate(
        &mut self,
        world: &Position,
        info: Option<&InfoSet>,
        moves: &[Move],
        priors: &mut Vec<f32>,
        rng: &mut GameRng,
    ) -> Poll<LeafValue>;

    /// Priors over the root's `moves` (written to `priors`, cleared by the
    /// caller), once per search, and the evaluator's own value of the root
    /// for its mover if it has one (Gumbel search completes the values of
    /// unvisited actions with it); nothing by default. `info` as for
    /// [`LeafEvaluator::evaluate`]: the searching seat's own information set.
    fn root_priors(
        &mut self,
        world: &Position,
        info: Option<&InfoSet>,
        moves: &[Move],
        priors: &mut Vec<f32>,
    ) -> Poll<Option<LeafValue>> {
        let _ = (world, info, moves, priors);
        Poll::Ready(None)
    }

    /// Whether the evaluator reads the `info` of [`LeafEvaluator::evaluate`]
    /// (the search then carries the searching seat's 暗棋 information set
    /// down every simulation, which costs a copy and an update per ply).
    fn wants_info(&self) -> bool {
        false
    }

    /// Whether the evaluator reads the seat's history ([`junqi_core::History`]):
    /// then, with [`LeafEvaluator::wants_info`], the search hands it the
    /// searching seat's information set in every mode (the history is only
    /// there), not just in 暗棋.
    fn wants_history(&self) -> bool {
        false
    }

    /// 暗棋: a belief over the kinds of the enemy pieces of `info` (the
    /// searching seat's information set), which the search then draws its
    /// worlds from ([`junqi_core::InfoSet::sample_world_believing`]); asked
    /// once per search, none by default.
    fn belief(&mut self, info: &InfoSet) -> Poll<Option<KindBelief>> {
        let _ = info;
        Poll::Ready(None)
    }

    /// Block until the answer that made the last call return `Pending` is there.
    fn wait(&mut self) {}

    /// Whether the evaluator answers later and gains from many searches
    /// asking at once (a net behind a batching service).
    fn batches(&self) -> bool {
        false
    }
}

/// The value of a finished game for `seat`: 1 win, -1 loss, 0 draw.
pub fn outcome_value(outcome: &Outcome, seat: Seat) -> f32 {
    match outcome.winner {
        Some(w) if w == seat => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}

/// A leaf's worth for its side to move, kept in two parts so a search can
/// weigh draws as it likes (its draw score, [`LeafValue::scored`]):
/// `value` = P(win) − P(loss) in [-1, 1], and `draw` = P(draw) in [0, 1]
/// (0 where the evaluator cannot tell, e.g. a material score).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct LeafValue {
    pub value: f32,
    pub draw: f32,
}

impl From<f32> for LeafValue {
    /// A value with no draw chance attached.
    fn from(value: f32) -> LeafValue {
        LeafValue { value, draw: 0.0 }
    }
}

impl LeafValue {
    /// A finished game for `seat`: a draw is certain or impossible.
    pub fn outcome(outcome: &Outcome, seat: Seat) -> LeafValue {
        LeafValue { value: outcome_value(outcome, seat), draw: if outcome.winner.is_none() { 1.0 } else { 0.0 } }
    }

    /// The score for a seat that counts a draw as `draw_score` (in [-1, 1];
    /// 0 = a draw is half a win, as in the value itself).
    pub fn scored(self, draw_score: f32) -> f32 {
        self.value + draw_score * self.draw
    }

    /// `(1 - w) · self + w · other`.
    pub fn mix(self, other: LeafValue, w: f32) -> LeafValue {
        LeafValue { value: (1.0 - w) * self.value + w * other.value, draw: (1.0 - w) * self.draw + w * other.draw }
    }
}

/// Material (by [`piece_value`], flag excluded) of the side to move less the
/// other side's, squashed into (-1, 1) by `tanh(diff / scale)`. 0 while
/// 翻棋 colours are unassigned.
pub fn material_value(pos: &Position, scale: f32) -> f32 {
    let Some(me) = pos.colour_of(pos.turn()) else { return 0.0 };
    let side = |c| -> i32 {
        Kind::ALL.iter().filter(|&&k| k != Kind::Flag).map(|&k| pos.count(c, k) as i32 * piece_value(k) as i32).sum()
    };
    ((side(me) - side(me.other())) as f32 / scale).tanh()
}

/// How the playout picks its actions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RolloutPolicy {
    /// Uniformly among the legal actions.
    Random,
    /// The most valuable capture that wins by the rules (the world shows
    /// every kind), else uniformly random.
    Capture,
}

impl RolloutPolicy {
    pub fn name(self) -> &'static str {
        match self {
            RolloutPolicy::Random => "random",
            RolloutPolicy::Capture => "capture",
        }
    }
    pub fn from_name(name: &str) -> Option<RolloutPolicy> {
        [RolloutPolicy::Random, RolloutPolicy::Capture].into_iter().find(|p| p.name() == name)
    }
}

/// Plays up to `depth` plies by `policy` from the leaf, then scores the
/// result: the game's outcome if it ended, else [`material_value`].
#[derive(Clone)]
pub struct RolloutEvaluator {
    pub depth: u32,
    pub policy: RolloutPolicy,
    /// Material difference that counts as about 0.76 of a win (tanh 1).
    pub scale: f32,
    moves: MoveList,
}

impl RolloutEvaluator {
    pub fn new(depth: u32, policy: RolloutPolicy) -> RolloutEvaluator {
        RolloutEvaluator { depth, policy, scale: 20.0, moves: MoveList::new() }
    }
}

/// The best capture of `moves` in the full position `pos` that the rules
/// decide for the attacker (a flag first), if any.
fn best_capture(pos: &Position, moves: &MoveList) -> Option<Move> {
    let mut best: Option<(i32, Move)> = None;
    for &mv in moves {
        if mv.is_flip() || pos.is_face_down(mv.to) {
            continue;
        }
        let (Some(a), Some(d)) = (pos.piece_at(mv.from), pos.piece_at(mv.to)) else { continue };
        if a.colour == d.colour {
            continue;
        }
        let may = pos.may_capture_flag(a.colour, a.kind);
        let gain = match combat(pos.rules(), a.kind, d.kind, may) {
            CombatOutcome::FlagCaptured => 10_000,
            CombatOutcome::AttackerWon => piece_value(d.kind) as i32,
            CombatOutcome::BothRemoved => piece_value(d.kind) as i32 - piece_value(a.kind) as i32,
            _ => continue,
        };
        if gain > 0 && best.is_none_or(|(g, _)| gain > g) {
            best = Some((gain, mv));
        }
    }
    best.map(|(_, m)| m)
}

impl LeafEvaluator for RolloutEvaluator {
    fn evaluate(
        &mut self,
        world: &Position,
        _info: Option<&InfoSet>,
        _moves: &[Move],
        _priors: &mut Vec<f32>,
        rng: &mut GameRng,
    ) -> Poll<LeafValue> {
        Poll::Ready(self.playout(world, rng))
    }
}

impl RolloutEvaluator {
    /// The playout's value of `world` for its side to move (a draw only
    /// where the playout ended in one).
    pub fn playout(&mut self, world: &Position, rng: &mut GameRng) -> LeafValue {
        let seat = world.turn();
        if self.depth == 0 {
            return material_value(world, self.scale).into();
        }
        let mut pos = world.clone();
        for _ in 0..self.depth {
            pos.legal_moves(&mut self.moves);
            if let Some(outcome) = pos.outcome_given(self.moves.len()) {
                return LeafValue::outcome(&outcome, seat);
            }
            let capture = match self.policy {
                RolloutPolicy::Capture => best_capture(&pos, &self.moves),
                RolloutPolicy::Random => None,
            };
            let mv = capture.unwrap_or_else(|| self.moves[rng.random_range(0..self.moves.len())]);
            pos.play_unchecked(mv);
        }
        let v = material_value(&pos, self.scale);
        LeafValue::from(if pos.turn() == seat { v } else { -v })
    }
}
