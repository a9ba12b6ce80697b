//! `VecEnv`: N games stepped together for batched inference.
//!
//! Each slot holds a [`junqi_core::Game`] (the referee with both seats'
//! information sets). After [`VecEnv::reset`] and after every
//! [`VecEnv::step`], the observation and the legal-action mask of the seat to
//! move in every slot are written into caller-owned [`StepBuffers`], all in
//! that seat's frame ([`crate::frame`]). Actions are action ids in the same
//! frame. A finished game is replaced at once by a new one whose seed is
//! [`episode_seed`]`(slot seed, episode)`; the finished game stays readable
//! through [`VecEnv::finished_game`] until the slot's next step.

use crate::frame::action_from_frame;
use crate::observation::{encode_observation, mask_from_moves, OBS_SIZE};
use junqi_core::board::{Bitboard, NODES};
use junqi_core::{Game, Move, MoveList, Position, Rules, Seat, Termination, ACTIONS};

/// The seed of episode `episode` of a slot whose base seed is `seed`.
/// Episode 0 uses the base seed itself, so `reset(&[s])` starts exactly
/// `Position::new_game(rules, s)`; later episodes mix the counter in with
/// SplitMix64 finalisers.
pub fn episode_seed(seed: u64, episode: u64) -> u64 {
    if episode == 0 {
        return seed;
    }
    splitmix64(seed ^ splitmix64(episode.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Why a call to the environment was refused. Nothing is played when `step`
/// returns an error: every action is checked before any game moves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    #[error("step before reset")]
    NotReset,
    #[error("expected {expected} {what}, got {found}")]
    Length { what: &'static str, expected: usize, found: usize },
    #[error("game {game}: action id {action} is out of range (0..3600)")]
    OutOfRange { game: usize, action: usize },
    #[error("game {game}: action id {action} ({mv} for {seat}) is not legal")]
    Illegal { game: usize, action: usize, mv: Move, seat: Seat },
}

/// Caller-owned output buffers for `n` games, allocated once ([`StepBuffers::new`]).
#[derive(Clone, Debug)]
pub struct StepBuffers {
    /// `[n, OBS_CHANNELS, 12, 5]`: the observation of each game's seat to move.
    pub obs: Vec<f32>,
    /// `[n, 3600]`: 1 where the action id (mover's frame) is legal.
    pub mask: Vec<u8>,
    /// Per game, from the point of view of the seat that just moved:
    /// +1 win, −1 loss, 0 draw or game goes on. (0 after `reset`.)
    pub reward: Vec<f32>,
    /// Per game: did the last step finish it? (The slot already holds a new game.)
    pub done: Vec<bool>,
    /// Per game: why it finished, when `done`.
    pub termination: Vec<Option<Termination>>,
    /// Per game: the seat to move now, whose observation and mask were written.
    pub seat: Vec<Seat>,
    /// Per game: number of legal actions of the seat to move (ones in `mask`).
    pub legal_count: Vec<u32>,
}

impl StepBuffers {
    pub fn new(n: usize) -> StepBuffers {
        StepBuffers {
            obs: vec![0.0; n * OBS_SIZE],
            mask: vec![0; n * ACTIONS],
            reward: vec![0.0; n],
            done: vec![false; n],
            termination: vec![None; n],
            seat: vec![Seat::First; n],
            legal_count: vec![0; n],
        }
    }
    /// Number of games the buffers hold.
    pub fn len(&self) -> usize {
        self.reward.len()
    }
    pub fn is_empty(&self) -> bool {
        self.reward.is_empty()
    }
    /// The observation of game `i`.
    pub fn obs_of(&self, i: usize) -> &[f32] {
        &self.obs[i * OBS_SIZE..(i + 1) * OBS_SIZE]
    }
    /// The mask of game `i`.
    pub fn mask_of(&self, i: usize) -> &[u8] {
        &self.mask[i * ACTIONS..(i + 1) * ACTIONS]
    }
    /// The buffers as borrowed slices, the form `VecEnv` writes into.
    pub fn as_out(&mut self) -> StepOut<'_> {
        StepOut {
            obs: &mut self.obs,
            mask: &mut self.mask,
            reward: &mut self.reward,
            done: &mut self.done,
            termination: &mut self.termination,
            seat: &mut self.seat,
            legal_count: &mut self.legal_count,
        }
    }
}

/// Where [`VecEnv::reset_into`] and [`VecEnv::step_into`] write: the fields of
/// [`StepBuffers`] as borrowed slices, so a caller can hand in memory it owns
/// (the Python extension passes NumPy arrays' memory, written in place
/// without a copy per step). Same layout and meaning as [`StepBuffers`].
pub struct StepOut<'a> {
    pub obs: &'a mut [f32],
    pub mask: &'a mut [u8],
    pub reward: &'a mut [f32],
    pub done: &'a mut [bool],
    pub termination: &'a mut [Option<Termination>],
    pub seat: &'a mut [Seat],
    pub legal_count: &'a mut [u32],
}

impl StepOut<'_> {
    fn check(&self, n: usize) -> Result<(), EnvError> {
        let sizes = [
            ("observation floats", n * OBS_SIZE, self.obs.len()),
            ("mask bytes", n * ACTIONS, self.mask.len()),
            ("rewards", n, self.reward.len()),
            ("done flags", n, self.done.len()),
            ("terminations", n, self.termination.len()),
            ("seats", n, self.seat.len()),
            ("legal counts", n, self.legal_count.len()),
        ];
        for (what, expected, found) in sizes {
            if expected != found {
                return Err(EnvError::Length { what, expected, found });
            }
        }
        Ok(())
    }
}

/// N games of one rule set, stepped together (struct of arrays).
pub struct VecEnv {
    rules: Rules,
    n: usize,
    /// The game in each slot (`None` before `reset`).
    games: Vec<Option<Game>>,
    /// The game each slot finished in its last step, if it did.
    finished: Vec<Option<Game>>,
    /// Base seed and episode counter per slot.
    seeds: Vec<u64>,
    episodes: Vec<u64>,
    /// Legal actions of each slot's seat to move: `legal[i][from]` = bitboard of `to`
    /// (absolute squares), so `step` checks legality without generating moves again.
    legal: Vec<[Bitboard; NODES]>,
    scratch: MoveList,
}

impl VecEnv {
    /// `n` slots playing under `rules`; call [`VecEnv::reset`] before stepping.
    pub fn new(n: usize, rules: Rules) -> VecEnv {
        VecEnv {
            rules,
            n,
            games: (0..n).map(|_| None).collect(),
            finished: (0..n).map(|_| None).collect(),
            seeds: vec![0; n],
            episodes: vec![0; n],
            legal: vec![[0; NODES]; n],
            scratch: MoveList::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.n
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The game in slot `i` (panics before `reset`).
    pub fn game(&self, i: usize) -> &Game {
        self.games[i].as_ref().expect("VecEnv::reset must be called first")
    }
    /// The game slot `i` finished during the last `step`, if it did (its full
    /// record: start position, moves, outcome).
    pub fn finished_game(&self, i: usize) -> Option<&Game> {
        self.finished[i].as_ref()
    }
    /// The seed of the game now in slot `i` (`episode_seed(base, episode)`).
    pub fn game_seed(&self, i: usize) -> u64 {
        episode_seed(self.seeds[i], self.episodes[i])
    }
    /// How many games slot `i` has finished since `reset`.
    pub fn episode(&self, i: usize) -> u64 {
        self.episodes[i]
    }

    /// Start a new game in every slot: slot `i` plays `Position::new_game(rules, seeds[i])`
    /// (a 翻棋 deal or two random deployments), and later episodes derive their seeds
    /// from `seeds[i]`. Writes the first observations and masks into `out`.
    pub fn reset(&mut self, seeds: &[u64], out: &mut StepBuffers) -> Result<(), EnvError> {
        self.reset_into(seeds, &mut out.as_out())
    }

    /// [`VecEnv::reset`] writing into borrowed slices.
    pub fn reset_into(&mut self, seeds: &[u64], out: &mut StepOut<'_>) -> Result<(), EnvError> {
        if seeds.len() != self.n {
            return Err(EnvError::Length { what: "seeds", expected: self.n, found: seeds.len() });
        }
        out.check(self.n)?;
        for (i, &seed) in seeds.iter().enumerate() {
            self.seeds[i] = seed;
            self.episodes[i] = 0;
            self.finished[i] = None;
            self.games[i] = Some(Game::new(Position::new_game(self.rules, seed)));
            out.reward[i] = 0.0;
            out.done[i] = false;
            out.termination[i] = None;
            self.write_slot(i, out);
        }
        Ok(())
    }

    /// Play one action per game (`actions[i]`: an action id in game `i`'s
    /// mover's frame, legal per the last mask), then write rewards, done flags,
    /// terminations and the next observations and masks into `out`. Finished
    /// games are replaced by new ones before their observation is written.
    ///
    /// Every action is validated before any game moves, so an error leaves the
    /// environment unchanged.
    pub fn step(&mut self, actions: &[usize], out: &mut StepBuffers) -> Result<(), EnvError> {
        self.step_into(actions, &mut out.as_out())
    }

    /// [`VecEnv::step`] writing into borrowed slices.
    pub fn step_into(&mut self, actions: &[usize], out: &mut StepOut<'_>) -> Result<(), EnvError> {
        if self.games.iter().any(Option::is_none) {
            return Err(EnvError::NotReset);
        }
        if actions.len() != self.n {
            return Err(EnvError::Length { what: "actions", expected: self.n, found: actions.len() });
        }
        out.check(self.n)?;
        for (i, &action) in actions.iter().enumerate() {
            let seat = self.game(i).truth().turn();
            let mv = action_from_frame(action, seat).ok_or(EnvError::OutOfRange { game: i, action })?;
            if self.legal[i][mv.from.index()] & mv.to.bit() == 0 {
                return Err(EnvError::Illegal { game: i, action, mv, seat });
            }
        }
        for (i, &action) in actions.iter().enumerate() {
            self.finished[i] = None;
            let game = self.games[i].as_mut().expect("checked above");
            let mover = game.truth().turn();
            let mv = action_from_frame(action, mover).expect("checked above");
            game.play_unchecked(mv); // legality was checked against the legal-action table
            game.truth().legal_moves(&mut self.scratch);
            match game.truth().outcome_given(self.scratch.len()) {
                None => {
                    out.reward[i] = 0.0;
                    out.done[i] = false;
                    out.termination[i] = None;
                    self.write_from_scratch(i, out);
                }
                Some(outcome) => {
                    out.reward[i] = match outcome.winner {
                        None => 0.0,
                        Some(w) if w == mover => 1.0,
                        Some(_) => -1.0,
                    };
                    out.done[i] = true;
                    out.termination[i] = Some(outcome.termination);
                    self.episodes[i] += 1;
                    let seed = episode_seed(self.seeds[i], self.episodes[i]);
                    let next = Game::new(Position::new_game(self.rules, seed));
                    self.finished[i] = self.games[i].replace(next);
                    self.write_slot(i, out);
                }
            }
        }
        Ok(())
    }

    /// Write slot `i`'s observation and mask, generating its legal moves.
    fn write_slot(&mut self, i: usize, out: &mut StepOut<'_>) {
        let game = self.games[i].as_ref().expect("slot holds a game");
        game.truth().legal_moves(&mut self.scratch);
        debug_assert!(!self.scratch.is_empty(), "a new game always has a legal action");
        self.write_from_scratch(i, out);
    }

    /// Write slot `i`'s observation and mask; `self.scratch` holds its legal moves.
    fn write_from_scratch(&mut self, i: usize, out: &mut StepOut<'_>) {
        let game = self.games[i].as_ref().expect("slot holds a game");
        let seat = game.truth().turn();
        let info = game.infoset(seat);
        encode_observation(info, &mut out.obs[i * OBS_SIZE..(i + 1) * OBS_SIZE]);
        mask_from_moves(&self.scratch, seat, &mut out.mask[i * ACTIONS..(i + 1) * ACTIONS]);
        let legal = &mut self.legal[i];
        *legal = [0; NODES];
        for m in self.scratch.iter() {
            legal[m.from.index()] |= m.to.bit();
        }
        out.seat[i] = seat;
        out.legal_count[i] = self.scratch.len() as u32;
    }
}
