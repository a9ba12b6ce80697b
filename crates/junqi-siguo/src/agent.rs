//! Four-player players that may fail, and their registry: an external
//! engine (`engine:cmd=…`, registered by `junqi-engine`) is a
//! [`SiguoAgent`], built from its spec by [`build_agent`] once its crate
//! has called [`register_siguo_agent`]. As `junqi-bots` holds the
//! two-player `Agent` and `register_bot`, so the arena (`arena --siguo`,
//! `sprt --siguo`) and the engine client both depend on this crate and not
//! on each other.

use crate::board::{Army, Team};
use crate::infoset::{Announcement, SiguoInfoSet};
use crate::position::Move;
use crate::rules::Rules;
use junqi_core::setup::Deployment;
use rand::RngCore;

/// A four-player player that may fail: an external engine, one per army it
/// plays in a game. It is told what its seat knows at the start and every
/// announcement of the referee (the same to every seat), and asked for its
/// seat's move; an error (a crash, a hang, an illegal or malformed move)
/// forfeits the game for its army's team.
pub trait SiguoAgent: Send {
    /// A new game under `rules` with the agent's army `seat`; the agent
    /// draws the seed of its own random choices from `rng`, the game's
    /// stream of the bots' random choices (never from the deal's seed, which
    /// would give away every army's kinds).
    fn start(&mut self, rules: &Rules, seat: Army, rng: &mut dyn RngCore) -> Result<(), String>;
    /// The agent's own deployment of its army (on Red's half, as
    /// [`crate::setup::validate`] reads it; the arena checks it), after
    /// [`SiguoAgent::start`]; `Ok(None)`, the default, keeps the deal's. An
    /// error forfeits the game for the army's team.
    fn deploy(&mut self) -> Result<Option<Deployment>, String> {
        Ok(None)
    }
    /// Every army has deployed: `info` is what the seat knows at the start.
    fn begin(&mut self, info: &SiguoInfoSet);
    /// The referee's announcement of one move (any army's).
    fn observe(&mut self, announcement: &Announcement);
    /// The move of `info`'s seat, whose turn it is; the arena checks it is legal.
    fn choose(&mut self, info: &SiguoInfoSet) -> Result<Move, String>;
    /// The game is over: `winner` is the winning team (`None`: a draw) and
    /// `termination` the ending's name (§10.8–§10.9's, or `forfeit`). Called
    /// for every agent of the game but one that forfeited it.
    fn finish(&mut self, winner: Option<Team>, termination: &str) {
        let _ = (winner, termination);
    }
}

/// Builds the agent of a spec it knows: `None` for a spec of another kind,
/// `Some(Err)` for a bad one of its kind (or one that cannot play `rules`).
pub type SiguoAgentFactory = fn(spec: &str, rules: &Rules) -> Option<Result<Box<dyn SiguoAgent>, String>>;

static AGENT_FACTORIES: std::sync::Mutex<Vec<SiguoAgentFactory>> = std::sync::Mutex::new(Vec::new());

/// Make the specs `factory` knows four-player bots of `arena --siguo` and
/// `sprt --siguo` (`junqi_engine::register_engine_bot` registers
/// `engine:cmd=…`). Registering the same factory twice changes nothing.
pub fn register_siguo_agent(factory: SiguoAgentFactory) {
    let mut all = AGENT_FACTORIES.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|f| std::ptr::fn_addr_eq(*f, factory)) {
        all.push(factory);
    }
}

/// The agent of `spec` from the registered factories; `None` when none knows it.
pub fn build_agent(spec: &str, rules: &Rules) -> Option<Result<Box<dyn SiguoAgent>, String>> {
    let all = AGENT_FACTORIES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    all.iter().find_map(|f| f(spec, rules))
}
