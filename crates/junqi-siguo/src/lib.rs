//! # junqi-siguo
//!
//! The rules of 四国军棋, the four-player game (two against two), as in
//! docs/rules.md §10: the 129-node board with its railway lines and corner
//! arcs, a [`Position`] for four armies with legal-move generation into a
//! [`MoveList`], combat, an army's end and its skipped turns, the team result
//! and the draw counters, the variant options, deployments from a seed, the
//! four-seat position notation and `perft`; each seat's information set
//! ([`SiguoInfoSet`], §10.13) updated from the referee's [`Announcement`]s,
//! determinization ([`SiguoInfoSet::sample_world`]), and observation planes
//! and legal-action masks seen from a seat ([`observation`]) with their
//! compact code for datasets ([`code`]); bots that
//! decide from a seat's information set only ([`bots`]: random, greedy,
//! heuristic), and an information-set search with a team value
//! ([`search`]: `mcts:N`; guided by a leaf evaluator, a four-player net
//! from junqi-net, `mcts:sims=N,eval=net:FILE`); players that may fail
//! (external engines) and their registry ([`agent`]).
//!
//! Piece kinds, the combat function and the deployment checks are those of
//! `junqi-core` (one source for both games); an army zone is the two-player
//! half, so its nodes and edges come from `junqi_core::board` too.
//!
//! ```
//! use junqi_siguo::{Mode, MoveList, Position, Rules};
//! let mut pos = Position::new_game(Rules::preset(Mode::Anqi), 7);
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert!(!moves.is_empty());
//! pos.play(moves[0]).unwrap();
//! assert_eq!(pos.turn().index(), 1); // counterclockwise: army 1 moves next
//! ```

pub mod agent;
pub mod board;
pub mod bots;
pub mod code;
pub mod determinize;
pub mod infoset;
pub mod notation;
pub mod observation;
pub mod perft;
pub mod playout;
pub mod position;
pub mod rules;
pub mod search;
pub mod setup;
pub mod svg;

pub use agent::{build_agent, register_siguo_agent, SiguoAgent, SiguoAgentFactory};
pub use board::{tables, Army, Line, Node, NodeKind, NodeSet, ParseNodeError, Team, NODES};
pub use bots::{
    bot_from_spec, deploy_armies, deploy_bots, deployment_seed, own_deployments, play_bots, register_siguo_bot,
    BotGame, SiguoBot, SiguoBotFactory, BOT_NAMES,
};
pub use code::{belief_by_node, hidden_kind_targets, SiguoCode, CODE_FORMAT, CODE_LEN};
pub use determinize::DeterminizeError;
pub use infoset::{ruling, Announcement, Ruling, SiguoInfoSet};
pub use notation::{parse, to_notation, NotationError};
pub use perft::perft;
pub use playout::{random_game, Playout};
pub use position::{
    Effect, EndCause, Move, MoveList, Outcome, ParseMoveError, Piece, PlayError, Position, Termination,
};
pub use rules::{Mode, RailTurns, Rules, RulesError, TurnOrder, OPTION_NAMES};
pub use search::{
    register_siguo_evaluator, LeafEstimate, SearchBot, SearchConfig, SiguoEvaluator, SiguoEvaluatorFactory,
};
pub use setup::SetupError;
