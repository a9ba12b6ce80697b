//! The junqi engine protocol (docs/protocol.md): a line-based text protocol
//! on stdin/stdout, in the spirit of UCI but for a game of hidden
//! information.
//!
//! * [`knowledge`]: what a seat knows, written as one `position` line and
//!   read back into the same [`junqi_core::InfoSet`]; deployments and rules
//!   as text.
//! * [`server`]: `junqi engine --bot SPEC`, one of our bots behind the protocol.
//! * [`client`]: the `engine:cmd=…` bot, any program speaking the protocol
//!   as a seat in our matches; it forfeits the game when the program
//!   crashes, hangs, floods or answers with an illegal move; `reap` ends
//!   its process with what that process started; [`logs`] keeps its
//!   stderr (and with `debug=true` its traffic) in the run directory;
//!   [`plays`] reads the rules it declares it plays.
//! * [`grammar`]: every line a host sends, written and read by one grammar.
//! * [`check`]: `junqi engine-check`, the conformance suite for any engine;
//!   [`siguo_check`] its four-player part.
//! * [`siguo`]: the four-player protocol: a seat's view and the referee's
//!   announcements as text and back, and `junqi engine --siguo --bot SPEC`;
//!   [`siguo_client`]: `engine:cmd=…` as a four-player bot of
//!   `arena --siguo` and `sprt --siguo`, one process per army it plays.

pub mod check;
pub mod client;
pub mod grammar;
pub mod knowledge;
pub mod logs;
pub mod plays;
mod reap;
pub mod server;
pub mod siguo;
pub mod siguo_check;
pub mod siguo_client;

pub use client::{register_engine_bot, EngineBot, ENGINE_KEYS};
pub use knowledge::{
    decode_deployment, decode_position, decode_rules, encode_deployment, encode_position, encode_position_with,
    encode_rules, ProtocolError,
};
pub use logs::log_to;
pub use server::serve;

/// The protocol's version, sent in the handshake (`id protocol 3`). Version
/// 2 added the seat's history to the position line (`last`, `seen`);
/// version 3 the host's timeout on `go` and `deploy` and the `result` line
/// at the end of a game. The host sends each only to engines that announce
/// that version or later, so older engines see the wire they were written for.
pub const PROTOCOL_VERSION: u32 = 3;
/// The first version with `last` and `seen` on the position line.
pub const HISTORY_VERSION: u32 = 2;
/// The first version told the host's timeout (`go … timeout <ms>`,
/// `deploy timeout <ms>`) and the game's `result`.
pub const TIMEOUT_VERSION: u32 = 3;
