//! # junqi-core
//!
//! The rules of 军棋 (Junqi) as in `docs/rules.md`: the board as bitboards
//! and precomputed tables, pieces, every variant option, a [`Position`] for
//! 翻棋, 暗棋 and 明棋 with legal-action generation into a caller-supplied
//! [`MoveList`], combat, the end conditions, JFEN and move notation,
//! deployments and deals from a seed, the [`InfoSet`] a player is allowed
//! to see, and worlds sampled from it ([`InfoSet::sample_world`]).
//!
//! ```
//! use junqi_core::{Position, Rules, Mode, MoveList};
//! let mut pos = Position::new_game(Rules::preset(Mode::Fanqi), 7);
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 50); // 50 face-down pieces to flip
//! pos.play(moves[0]).unwrap();
//! ```

pub mod atomic;
pub mod board;
pub mod bounded;
pub mod determinize;
pub mod game;
pub mod history;
pub mod infoset;
pub mod jfen;
mod movegen;
pub mod moves;
pub mod piece;
pub mod playout;
pub mod position;
pub mod rules;
pub mod setup;
pub mod toml_report;

pub use atomic::{write_atomic, write_atomic_with};
pub use board::{Bitboard, Square};
pub use bounded::{read_bounded, read_text, MAX_TEXT_BYTES};
pub use determinize::KindBelief;
pub use game::Game;
pub use history::{History, HISTORY_PLIES, MAX_TOLD_SEEN};
pub use infoset::{InfoSet, Observation, ObservedEvent};
pub use jfen::JfenError;
pub use moves::{Move, MoveList, ParseMoveError, ACTIONS};
pub use piece::{Colour, Kind, Piece, Seat};
pub use position::{CombatOutcome, Effect, LooseFlag, Outcome, PlayError, Position, Termination};
pub use rules::{Mode, Rules, RulesError};
pub use setup::{rng_from_seed, Deployment, DeploymentError, GameRng};
pub use toml_report::toml_error_line;
