//! # junqi-loop
//!
//! The closed training loop (`junqi loop`): self-play with the best net →
//! train on the newest generations' games → evaluate the new net against the
//! best (paired games, or an SPRT gate) and against fixed anchor bots →
//! promote on success. The net, its data and its training live in
//! `junqi-train`; the games and their statistics in `junqi-selfplay`,
//! `junqi-arena` and `junqi-stats`. See `docs/training.md`.
//!
//! Every stage writes its output under the run directory and the loop's
//! state (`state.json`) is rewritten atomically (written, synced, renamed)
//! after each stage, so a run stopped anywhere (Ctrl-C, a crash) resumes
//! where it was with the same command. Layout of `<out>/`:
//!
//! ```text
//! loop.toml               the config of the run (a resume must match it)
//! state.json              generations done, each net's scores and Elo, the best net
//! gen-NNN/selfplay/       generation NNN's games and samples (junqi selfplay layout)
//! gen-NNN/selfplay-ray/   with `selfplay.backend = "ray"`: the driver's config file and log
//! gen-NNN/eval-best/      paired games of net NNN against the best net so far
//! gen-NNN/gate/           … or the SPRT gate's batches, with `[evaluate.sprt]`
//! gen-NNN/eval-anchor/    paired games of net NNN against the anchor bot
//! gen-NNN/eval-vs-SPEC/   … and against each of `evaluate.more_anchors`
//! nets/net-NNN.safetensors  every generation's net (exported, with metadata)
//! train/                  one continuing training run: checkpoints/, tb/
//! tb/                     the loop's own scalars for TensorBoard (Elo, gate, self-play, resignations)
//! elo.csv                 each generation's Elo against the anchor
//! elo_anchors.csv         one row per generation and anchor rated
//! elo.svg, summary.md     the Elo against every anchor over time, the table
//! .lock                   held while a loop runs in the directory
//! ```
//!
//! Generation 0's games come from the `bootstrap` bot (there is no net yet);
//! every later generation's from `mcts:…,eval=net:<best>` with Dirichlet
//! noise at the root and a temperature for the first plies.
//!
//! * [`config`]: [`LoopConfig`] and its sections, read from TOML and checked.
//! * [`state`]: [`LoopState`] (`state.json`): each [`Generation`]'s record.
//! * [`stages`]: [`run_loop`], a short driver over the stages of one
//!   generation (self-play, train, evaluate).
//! * [`evaluate`]: paired matchups, ratings against the anchors, and the
//!   SPRT gate ([`sprt_gate`]).
//! * [`report`]: `elo.csv`, `elo_anchors.csv`, `summary.md` and `elo.svg`.
//! * [`tb`]: each generation's scalars in TensorBoard event files.
//! * `siguo`: the four-player (四国) loop's stages (`game = "siguo"`):
//!   four-player self-play, learned deployments, the gate and the anchors.
//! * [`exploit`]: an exploit run's report (`[exploit]`, `junqi exploit`):
//!   a best response to a fixed target bot, trained by the same stages.

pub mod config;
mod error;
pub mod evaluate;
pub mod exploit;
mod ray;
pub mod report;
mod siguo;
pub mod stages;
pub mod state;
pub mod tb;

pub use config::{
    AtLimit, BootstrapConfig, EvalSettings, ExploitSettings, LoopConfig, SelfplaySettings, SprtGate, RESIGN_MIN_SIGNALS,
};
pub use error::{LoopError, Result};
pub use evaluate::sprt_gate;
pub use stages::{run_loop, LoopObserver};
pub use state::{AnchorElo, AnchorScore, GateRecord, Generation, LoopState};
