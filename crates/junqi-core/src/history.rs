//! The short public history a seat keeps in its information set
//! (docs/rules.md §5, "What a seat remembers"): the last few actions and how
//! often the seat has seen the position in front of it.
//!
//! Both are public in every mode: an action's two nodes are seen by both
//! seats (even in 暗棋, where the pieces' kinds are not), and a seat's view
//! of the board is its own. A learner without them cannot tell a piece that
//! just came back from one that never moved, and an argmax policy then moves
//! one piece back and forth until the quiet-move draw.

use crate::board::NODES;
use crate::moves::Move;
use crate::piece::Piece;
use crate::position::Position;
use std::hash::{Hash, Hasher};

/// Actions remembered, newest first.
pub const HISTORY_PLIES: usize = 4;
/// The most earlier sightings a told history keeps (a real game has at most
/// one per 4 quiet plies).
pub const MAX_TOLD_SEEN: u32 = 10_000;

/// What a seat remembers of the game beyond the board in front of it.
///
/// Two histories are equal when they show the same now: the same last
/// actions and the same count of earlier sightings of the current board
/// (what the observation encodes and an engine is told), whatever earlier
/// boards each keeps to count the next sightings by.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// The last actions, newest first (`None` before the game's first ones,
    /// or before the position the seat's knowledge starts from).
    recent: [Option<Move>; HISTORY_PLIES],
    /// Keys of the views the seat has seen since the last action that can
    /// never be undone (an attack or a flip: the quiet counter's reset),
    /// the current one last. No position before such an action can recur.
    /// Empty until the first action: the starting view's key is taken then
    /// ([`History::push`]), so an information set that never sees an
    /// action (a search's fresh one of each leaf) costs no hashing.
    seen: Vec<u64>,
}

/// A view's identity for repetitions: the board as the seat sees it and
/// whose turn it is; not the counters (which always differ).
pub fn view_key(view: &Position) -> u64 {
    // SipHash with fixed keys: the same key in every process.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let board: &[Option<Piece>; NODES] = &view.board;
    board.hash(&mut h);
    view.occupied.hash(&mut h);
    view.by_colour.hash(&mut h);
    view.hidden.hash(&mut h);
    view.turn.hash(&mut h);
    view.seat1.hash(&mut h);
    view.last_flip.hash(&mut h);
    // flag_carry's flags sharing a node (hashed only when there are any, so
    // every other position keeps its key).
    if view.loose.iter().any(Option::is_some) {
        view.loose.hash(&mut h);
    }
    if view.mountain.iter().any(Option::is_some) {
        view.mountain.hash(&mut h);
    }
    h.finish()
}

impl History {
    /// A history told rather than witnessed (an engine's `position` line):
    /// the last actions, newest first, and how often the board in `view`
    /// was seen before. Earlier boards are not known, so a later return to
    /// one of them is not counted.
    pub fn told(recent: &[Move], seen_before: u32, view: &Position) -> History {
        let mut history = History::default();
        for (slot, &mv) in history.recent.iter_mut().zip(recent) {
            *slot = Some(mv);
        }
        history.seen = vec![view_key(view); 1 + seen_before.min(MAX_TOLD_SEEN) as usize];
        history
    }

    /// Whether no board is recorded yet (no action seen, nothing told):
    /// then [`History::push`] wants the key of the board before the action.
    pub fn unstarted(&self) -> bool {
        self.seen.is_empty()
    }

    /// After `mv` led to the seat's view `after`; `start` is the key of the
    /// view before it when the history is [unstarted](History::unstarted).
    pub fn push(&mut self, mv: Move, start: Option<u64>, after: &Position) {
        self.recent.rotate_right(1);
        self.recent[0] = Some(mv);
        self.seen.extend(start);
        if after.quiet() == 0 {
            // An attack or a flip: what came before cannot come back.
            self.seen.clear();
        }
        self.seen.push(view_key(after));
    }

    /// The last actions, newest first.
    pub fn recent(&self) -> &[Option<Move>; HISTORY_PLIES] {
        &self.recent
    }

    /// How often the current view was seen before (since the last attack or flip).
    pub fn repetitions(&self) -> u32 {
        match self.seen.split_last() {
            Some((now, before)) => before.iter().filter(|k| *k == now).count() as u32,
            None => 0,
        }
    }

    /// Why no game reaches this history after `quiet` quiet plies, if none
    /// does: coming back to a board takes at least 4 of them (two moves a
    /// side), each one of the last actions.
    pub fn inconsistency(&self, quiet: u32) -> Option<String> {
        let (seen, known) = (self.repetitions(), self.recent.iter().flatten().count());
        (seen > 0 && (known < HISTORY_PLIES || seen.saturating_mul(4) > quiet)).then(|| {
            format!("seen {seen} times before, after {quiet} quiet plies and {known} last actions: a return takes 4 quiet plies")
        })
    }
}

impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        self.recent == other.recent && self.repetitions() == other.repetitions()
    }
}

impl Eq for History {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{rng_from_seed, Game, InfoSet, Mode, MoveList, Rules, Seat};
    use rand::Rng;

    fn mingqi(jfen: &str) -> Game {
        Game::new(Position::from_jfen(jfen, Rules::preset(Mode::Mingqi)).unwrap())
    }

    fn play(game: &mut Game, mv: &str) {
        game.play(mv.parse().unwrap()).unwrap();
    }

    #[test]
    fn a_piece_going_back_and_forth_is_counted_and_an_attack_forgets() {
        // Red 旅长 c10 faces the black 师长 c11; the 司令s shuffle on e1 / a12.
        let mut game = mingqi("kf3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 0 0");
        for seat in Seat::BOTH {
            assert_eq!(game.infoset(seat).history().repetitions(), 0);
            assert_eq!(game.infoset(seat).history().recent(), &[None; HISTORY_PLIES]);
        }
        for round in 1..=2u32 {
            for mv in ["e1e2", "a12a11", "e2e1", "a11a12"] {
                play(&mut game, mv);
            }
            for seat in Seat::BOTH {
                let h = game.infoset(seat).history();
                assert_eq!(h.repetitions(), round, "{seat}: the start came back {round} times");
                assert_eq!(game.infoset(seat).inconsistency(), None, "a played history is reachable");
                let view = game.infoset(seat).view();
                let recent: Vec<Move> = h.recent().iter().flatten().copied().collect();
                // Told the same, it is the same; told more returns than the quiet plies allow, or
                // returns without 4 last actions, it is no game's.
                assert_eq!(&History::told(&recent, round, view), h);
                assert!(History::told(&recent, round, view).inconsistency(view.quiet()).is_none());
                assert!(History::told(&recent, round + 1, view).inconsistency(view.quiet()).is_some());
                assert!(History::told(&recent[..3], round, view).inconsistency(view.quiet()).is_some());
                let recent: Vec<String> = h.recent().iter().map(|m| m.unwrap().to_string()).collect();
                assert_eq!(recent, ["a11a12", "e2e1", "a12a11", "e1e2"], "newest first");
            }
        }
        play(&mut game, "e1e2");
        assert_eq!(game.infoset(Seat::First).history().repetitions(), 2, "after e1e2 twice before");
        // The attack (旅长 into 师长) can never be undone: the count starts again.
        play(&mut game, "a12a11");
        play(&mut game, "c10c11");
        for seat in Seat::BOTH {
            let h = game.infoset(seat).history();
            assert_eq!(h.repetitions(), 0);
            assert_eq!(h.recent()[0], Some("c10c11".parse().unwrap()));
        }
    }

    /// The referee's information sets and one replayed action by action
    /// through [`InfoSet::witness`] (as a search does) agree, history
    /// included, whatever the mode.
    #[test]
    fn the_referee_and_a_replay_keep_the_same_history() {
        let mut moves = MoveList::new();
        for (mode, seed) in [(Mode::Fanqi, 1u64), (Mode::Anqi, 2), (Mode::Mingqi, 3)] {
            let mut rng = rng_from_seed(seed);
            let start = Position::new_game(Rules::preset(mode), seed);
            let mut game = Game::new(start.clone());
            let mut replay = [InfoSet::new(&start, Seat::First), InfoSet::new(&start, Seat::Second)];
            let mut repeated = 0;
            for _ in 0..200 {
                game.truth().legal_moves(&mut moves);
                if moves.is_empty() || game.outcome().is_some() {
                    break;
                }
                let mv = moves[rng.random_range(0..moves.len())];
                let before = game.truth().clone();
                game.play(mv).unwrap();
                let mut after = before.clone();
                let effect = after.play_unchecked(mv);
                for seat in Seat::BOTH {
                    replay[seat.index()].witness(&before, &after, mv, &effect);
                    assert_eq!(&replay[seat.index()], game.infoset(seat), "{mode:?}, {seat}");
                    assert_eq!(replay[seat.index()].history().recent()[0], Some(mv));
                    repeated += game.infoset(seat).history().repetitions();
                }
            }
            assert!(game.truth().ply() > 20, "{mode:?}: a real game");
            let _ = repeated;
        }
    }
}
