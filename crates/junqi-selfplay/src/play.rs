//! One game between two agents, with its sampled positions.

use crate::resign::ResignWatch;
use crate::{Opening, Resign, SamplesPerGame, SelfplayError};
use junqi_bots::{Decision, Player};
use junqi_core::{
    rng_from_seed, Colour, Deployment, Game, GameRng, InfoSet, Mode, Move, MoveList, Outcome, Position, Rules, Seat,
    Square,
};
use junqi_env::{action_to_frame, square_to_frame, ObsCode};
use rand::Rng;
use std::task::Poll;

/// A finished game, as stored in `games/`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub game_id: u64,
    pub seed: u64,
    /// The start position, whole truth (JFEN).
    pub start_jfen: String,
    pub moves: Vec<Move>,
    pub outcome: Outcome,
    /// Bot names in seat 1 and seat 2.
    pub bots: [String; 2],
    /// Why the game was forfeited (termination `forfeit`): an external
    /// engine's failure, as it reported it. Kept in the games file's footer.
    pub forfeit: Option<String>,
    /// Each decision's time in milliseconds (the mover's thinking, its
    /// waits for evaluations included), in move order; with a timeout that
    /// lost the game, that last decision's too (one more than `moves`).
    /// Kept in the games file's footer (`junqi.move_ms`).
    pub move_ms: Vec<u32>,
}

/// A match's time rule (arena/sprt `--move-limit MS --timeouts-lose N`): a
/// decision that takes longer than `move_ms` is a timeout of its side, and
/// the side's `lose_after`-th timeout loses the game (termination
/// `timeouts`; the record ends before that move). A match setting, not a
/// board rule (docs/evaluation.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeoutRule {
    pub move_ms: u64,
    pub lose_after: u32,
}

impl TimeoutRule {
    /// `move_ms` above 0 and `lose_after` at least 1.
    pub fn new(move_ms: u64, lose_after: u32) -> Result<TimeoutRule, String> {
        if move_ms == 0 {
            return Err("the move limit must be at least 1 ms".into());
        }
        if lose_after == 0 {
            return Err("the timeouts that lose must be at least 1".into());
        }
        Ok(TimeoutRule { move_ms, lose_after })
    }
}

/// One sampled position, as stored in `samples/` (schema version 2,
/// `docs/data.md`). Everything is in the mover's frame (seat 2 sees the
/// board rotated by 180°).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Plies played before this position (0 = the first action).
    pub ply: u32,
    /// The seat to move: 1 or 2.
    pub seat: u8,
    /// The mover's observation in compact form ([`ObsCode`]).
    pub position: ObsCode,
    /// The legal action ids (mover's frame, `from * 60 + to`), ascending.
    pub legal: Vec<u16>,
    /// The distribution the bot sampled from, one probability per legal
    /// action (aligned with `legal`; they sum to 1).
    pub policy: Vec<f32>,
    /// The action played (mover's-frame id).
    pub action: u16,
    /// The bot's own value estimate in [-1, 1], when it gave one.
    pub value: Option<f32>,
    /// The final result from this seat's side: +1 win, 0 draw, -1 loss.
    pub outcome: i8,
    /// 暗棋: per node of the mover's frame, `1 + kind` ([`junqi_core::Kind::index`])
    /// of an enemy piece whose kind the mover did not know, else 0 (the
    /// belief head's targets, from the referee's truth). Empty when the
    /// mover knew every kind (翻棋, 明棋, or nothing left hidden).
    pub hidden_kinds: Vec<u8>,
}

impl Default for Sample {
    fn default() -> Sample {
        Sample {
            ply: 0,
            seat: 1,
            position: ObsCode([0; junqi_env::CODE_BYTES]),
            legal: Vec::new(),
            policy: Vec::new(),
            action: 0,
            value: None,
            outcome: 0,
            hidden_kinds: Vec::new(),
        }
    }
}

/// Scratch space reused from game to game by one worker.
pub struct GameBuffers {
    moves: MoveList,
    /// Sample slots; the first `used` hold this game's samples.
    samples: Vec<Sample>,
    used: usize,
    /// Per seat in the last game: decisions made and the time spent making them.
    decisions: [u64; 2],
    think: [std::time::Duration; 2],
    /// The last game's resignation state (None: resignation was off).
    resign: Option<ResignWatch>,
}

impl Default for GameBuffers {
    fn default() -> Self {
        GameBuffers {
            moves: MoveList::new(),
            samples: Vec::new(),
            used: 0,
            decisions: [0; 2],
            think: Default::default(),
            resign: None,
        }
    }
}

/// Write the sample of `info` (the mover's information set, whose legal
/// actions are `legal`) into `s`: the decision's policy is spread over the
/// legal actions. `Err` names a policy action that is not legal.
fn fill_sample(
    s: &mut Sample,
    truth: &Position,
    info: &InfoSet,
    legal: &MoveList,
    ply: u32,
    decision: &Decision,
) -> Result<(), String> {
    let seat = info.seat();
    fill_hidden_kinds(&mut s.hidden_kinds, truth, info);
    s.ply = ply;
    s.seat = seat.number();
    s.position = ObsCode::from_infoset(info);
    s.legal.clear();
    s.legal.extend(legal.iter().map(|&m| action_to_frame(m, seat) as u16));
    s.legal.sort_unstable();
    s.policy.clear();
    s.policy.resize(s.legal.len(), 0.0);
    for &(m, p) in &decision.policy {
        let id = action_to_frame(m, seat) as u16;
        let i = s.legal.binary_search(&id).map_err(|_| format!("its policy names {m}, which is not legal"))?;
        s.policy[i] += p;
    }
    s.action = action_to_frame(decision.action, seat) as u16;
    s.value = decision.value;
    s.outcome = 0;
    Ok(())
}

/// [`Sample::hidden_kinds`] of the mover of `info`, from the `truth`.
fn fill_hidden_kinds(out: &mut Vec<u8>, truth: &Position, info: &InfoSet) {
    out.clear();
    if info.mode() != Mode::Anqi {
        return;
    }
    let Some(enemy) = truth.colour_of(info.seat().other()) else { return };
    for sq in Square::all() {
        let Some(piece) = truth.piece_at(sq) else { continue };
        if piece.colour == enemy && info.possible_kinds(sq).count_ones() > 1 {
            if out.is_empty() {
                out.resize(junqi_core::board::NODES, 0);
            }
            out[square_to_frame(sq, info.seat()).index()] = 1 + piece.kind.index() as u8;
        }
    }
}

impl GameBuffers {
    /// The samples of the last game played, in ply order.
    pub fn samples(&self) -> &[Sample] {
        &self.samples[..self.used]
    }
    /// Per seat in the last game: decisions made, and seconds spent making them.
    pub fn thinking(&self) -> [(u64, f64); 2] {
        [0, 1].map(|i| (self.decisions[i], self.think[i].as_secs_f64()))
    }
    /// In the last game, if it was played through despite resignation: the
    /// first seat that would have resigned.
    pub fn resign_signal(&self) -> Option<Seat> {
        self.resign.as_ref().and_then(|w| w.signal)
    }
    /// The last game's resignation state (None: resignation was off).
    pub(crate) fn resign_watch(&self) -> Option<&ResignWatch> {
        self.resign.as_ref()
    }
}

/// The seed of the sample-choice generator: separate from the game's, so the
/// games are the same whatever `--samples-per-game` says.
fn sample_seed(seed: u64) -> u64 {
    seed ^ 0x5341_4D50_4C45_5321
}

/// The seed of the bots' decisions in game `game_id`: the start position
/// comes from `seed` alone (so the two games of a pair share it), the moves
/// from the seed and the game id (so a pair of equal bots plays two games,
/// not one game twice).
fn decision_seed(seed: u64, game_id: u64) -> u64 {
    crate::game_seed(seed ^ 0x4445_4349_4445_2121, game_id)
}

/// The seed of `seat`'s 暗棋/明棋 deployment in a game seeded `seed`.
fn deployment_seed(seed: u64, seat: Seat) -> u64 {
    crate::game_seed(seed ^ 0x4445_504C_4F59_2121, seat.index() as u64)
}

/// Play one game of `rules` from `seed`: `agents[0]` in seat 1, `agents[1]` in
/// seat 2. 翻棋 deals from the seed; 暗棋/明棋 take each agent's deployment.
/// The sampled positions are left in `buf` ([`GameBuffers::samples`]).
///
/// A thin wrapper over [`GameInFlight`]: start, step to the end, finish.
pub fn play_game(
    rules: &Rules,
    agents: [&mut Player; 2],
    game_id: u64,
    seed: u64,
    samples: SamplesPerGame,
    buf: &mut GameBuffers,
) -> Result<GameRecord, SelfplayError> {
    let [a, b] = agents;
    let mut game = GameInFlight::start(rules, [&mut *a, &mut *b], game_id, seed, samples, std::mem::take(buf))?;
    let players = [a, b];
    while !game.is_finished() {
        let mover = game.turn().index();
        game.step(&mut *players[mover])?;
    }
    let (record, finished) = game.finish();
    *buf = finished;
    Ok(record)
}

/// One game being played a ply at a time, so that a worker can keep many
/// games going at once (see `Plan::run`). The game is fixed by its seed and
/// id exactly as in [`play_game`]: whatever is played between the steps of
/// one game (other games, in any order) changes nothing in it.
///
/// The game owns its [`GameBuffers`] (its legal-action list, reservoir and
/// samples) until [`GameInFlight::finish`] hands them back for the next game.
pub struct GameInFlight {
    game: Game,
    game_id: u64,
    seed: u64,
    start_jfen: String,
    names: [String; 2],
    samples: SamplesPerGame,
    play_rng: GameRng,
    sample_rng: GameRng,
    buf: GameBuffers,
    /// Set once the position to move has no continuation, or its mover resigned.
    outcome: Option<Outcome>,
    resign: Option<ResignWatch>,
    /// Why the game was forfeited, when it was.
    forfeit: Option<String>,
    /// The match's time rule, the timeouts of each seat so far, the time of
    /// the decision under way and the decisions' times.
    timeouts: Option<TimeoutRule>,
    timeout_counts: [u32; 2],
    move_think: std::time::Duration,
    move_ms: Vec<u32>,
    /// Only this seat's positions are sampled (None: both seats').
    sample_seat: Option<Seat>,
    /// Positions that could be sampled seen so far.
    sampleable_seen: usize,
}

impl GameInFlight {
    /// Set up game `game_id` of `rules` from `seed`: `agents[0]` in seat 1,
    /// `agents[1]` in seat 2. 翻棋 deals from the seed; 暗棋/明棋 ask each agent
    /// for its deployment (here, so the agents are needed only now and for the
    /// moves). `buf` is scratch from an earlier game, or `GameBuffers::default()`.
    pub fn start(
        rules: &Rules,
        agents: [&mut Player; 2],
        game_id: u64,
        seed: u64,
        samples: SamplesPerGame,
        buf: GameBuffers,
    ) -> Result<GameInFlight, SelfplayError> {
        GameInFlight::start_at(rules, agents, game_id, seed, None, samples, buf)
    }

    /// [`GameInFlight::start`] from an opening: a fixed start position, or
    /// the deal or deployments of another seed than the game's own (which
    /// still drives the bots' choices and the sampling).
    pub fn start_at(
        rules: &Rules,
        agents: [&mut Player; 2],
        game_id: u64,
        seed: u64,
        opening: Option<&Opening>,
        samples: SamplesPerGame,
        mut buf: GameBuffers,
    ) -> Result<GameInFlight, SelfplayError> {
        let deal_seed = match opening {
            Some(Opening::Seed(s)) => *s,
            _ => seed,
        };
        let mut rng = rng_from_seed(deal_seed);
        let sample_rng = rng_from_seed(sample_seed(seed));
        let names = [agents[0].name(), agents[1].name()];
        let mut forfeited: Option<Seat> = None;
        let mut forfeit_reason: Option<String> = None;
        let start = match (opening, rules.mode) {
            (Some(Opening::Position(jfen)), _) => Position::from_jfen(jfen, *rules)
                .map_err(|cause| SelfplayError::BadOpening { at: format!("opening `{jfen}`"), cause })?,
            (_, junqi_core::Mode::Fanqi) => Position::deal_fanqi(*rules, &mut rng),
            _ => {
                let seat1 = rules.fixed_colour(Seat::First).expect("anqi/mingqi colours are fixed");
                let mut deployments = Vec::with_capacity(2);
                for (i, seat) in Seat::BOTH.into_iter().enumerate() {
                    let colour = if seat == Seat::First { seat1 } else { seat1.other() };
                    // Each seat deploys from its own stream of the seed, so the two
                    // games of a pair give each seat the same draws whatever the bots.
                    let mut deploy_rng = rng_from_seed(deployment_seed(deal_seed, seat));
                    let mut d = agents[i].deploy(colour, rules, &mut deploy_rng);
                    if let Some(reason) = agents[i].take_forfeit() {
                        // The game is lost before its first move; a random legal
                        // deployment stands in so the record has a start position.
                        if forfeited.is_none() {
                            forfeited = Some(seat);
                            forfeit_reason = Some(format!("{} (deployment)", reason));
                        }
                        d = Deployment::random(colour, &mut deploy_rng);
                    }
                    let bad =
                        |message: String| SelfplayError::BadDeployment { bot: names[i].clone(), game_id, message };
                    if d.colour != colour {
                        return Err(bad(format!("asked for {colour:?}, got {:?}", d.colour)));
                    }
                    d.validate().map_err(|e| bad(e.to_string()))?;
                    deployments.push(d);
                }
                let (red, black) = if seat1 == Colour::Red {
                    (&deployments[0], &deployments[1])
                } else {
                    (&deployments[1], &deployments[0])
                };
                Position::from_deployments(*rules, red, black).expect("validated deployments")
            }
        };
        let start_jfen = start.to_jfen();
        let play_rng = rng_from_seed(decision_seed(seed, game_id));
        let game = Game::new(start);
        buf.used = 0;
        buf.decisions = [0; 2];
        buf.think = Default::default();
        let mut g = GameInFlight {
            game,
            game_id,
            seed,
            start_jfen,
            names,
            samples,
            play_rng,
            sample_rng,
            buf,
            outcome: None,
            resign: None,
            forfeit: forfeit_reason,
            timeouts: None,
            timeout_counts: [0; 2],
            move_think: std::time::Duration::ZERO,
            move_ms: Vec::new(),
            sample_seat: None,
            sampleable_seen: 0,
        };
        g.list_moves();
        if let Some(seat) = forfeited {
            g.outcome = Some(Outcome::forfeit(seat));
        }
        Ok(g)
    }

    /// List the legal actions of the position to move into `buf.moves`, and
    /// set the outcome when there are none to play.
    fn list_moves(&mut self) {
        let truth = self.game.truth();
        truth.legal_moves(&mut self.buf.moves);
        self.outcome = truth.outcome_given(self.buf.moves.len());
    }

    /// Let the movers resign (see [`Resign`]); call before the first step.
    pub fn with_resign(mut self, resign: Option<Resign>) -> GameInFlight {
        self.resign = resign.map(|r| ResignWatch::new(r, self.seed, self.game_id));
        self
    }

    /// Play under the match's time rule (None: none); call before the first step.
    pub fn with_timeouts(mut self, timeouts: Option<TimeoutRule>) -> GameInFlight {
        self.timeouts = timeouts;
        self
    }

    /// The timeouts of each seat so far.
    pub fn timeout_counts(&self) -> [u32; 2] {
        self.timeout_counts
    }

    /// Sample only `seat`'s positions (None: both seats'); call before the first step.
    pub fn with_sample_seat(mut self, seat: Option<Seat>) -> GameInFlight {
        self.sample_seat = seat;
        self
    }

    /// The game's id.
    pub fn game_id(&self) -> u64 {
        self.game_id
    }
    /// The seat to move (the agent [`GameInFlight::step`] wants).
    pub fn turn(&self) -> Seat {
        self.game.truth().turn()
    }
    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }
    /// Whether the game is over ([`GameInFlight::finish`] may be called).
    pub fn is_finished(&self) -> bool {
        self.outcome.is_some()
    }

    /// Tell each player of a finished game its result (`seats` in seat order).
    pub fn tell_result(&self, seats: &mut [Player; 2]) {
        if let Some(outcome) = &self.outcome {
            seats[0].game_over(Seat::First, outcome);
            seats[1].game_over(Seat::Second, outcome);
        }
    }

    /// Play one ply: `mover` (the agent in seat [`GameInFlight::turn`])
    /// decides, the position may be sampled, the action is played. Returns
    /// whether the game is now over. Does nothing (and returns `true`) on a
    /// finished game.
    pub fn step(&mut self, mover: &mut Player) -> Result<bool, SelfplayError> {
        loop {
            match self.poll_step(mover) {
                Poll::Ready(done) => return done,
                Poll::Pending => {
                    let waiting = std::time::Instant::now();
                    mover.wait();
                    self.add_thinking(waiting.elapsed());
                }
            }
        }
    }

    /// [`GameInFlight::step`] for drivers with many games in flight:
    /// `Pending` when the mover waits for an answer it asked for (see
    /// [`junqi_bots::Agent::poll_act`]); call `mover.wait()` (after the
    /// other games have made their requests) and poll again.
    pub fn poll_step(&mut self, mover: &mut Player) -> Poll<Result<bool, SelfplayError>> {
        if self.outcome.is_some() {
            return Poll::Ready(Ok(true));
        }
        let buf = &mut self.buf;
        let game = &self.game;
        let seat = game.truth().turn();
        let ply = game.truth().ply();
        let thinking = std::time::Instant::now();
        let polled = mover.poll_act(game, &mut self.play_rng);
        let took = thinking.elapsed();
        buf.think[seat.index()] += took;
        self.move_think += took;
        let Poll::Ready(decision) = polled else { return Poll::Pending };
        buf.decisions[seat.index()] += 1;
        let move_time = std::mem::take(&mut self.move_think);
        self.move_ms.push(u32::try_from(move_time.as_millis()).unwrap_or(u32::MAX));
        if let Some(reason) = mover.take_forfeit() {
            // An external engine failed; the record ends before this ply.
            self.forfeit = Some(reason);
            self.outcome = Some(Outcome::forfeit(seat));
            return Poll::Ready(Ok(true));
        }
        if let Some(rule) = self.timeouts {
            if move_time > std::time::Duration::from_millis(rule.move_ms) {
                self.timeout_counts[seat.index()] += 1;
                if self.timeout_counts[seat.index()] >= rule.lose_after {
                    // The record ends before this ply, as a forfeit's does.
                    self.outcome = Some(Outcome::timeouts(seat));
                    return Poll::Ready(Ok(true));
                }
            }
        }
        if let Some(watch) = self.resign.as_mut() {
            let resigned = watch.observe(seat, ply, decision.value);
            if resigned.is_some() {
                // The record ends before this ply; its position is not sampled.
                self.outcome = resigned;
                return Poll::Ready(Ok(true));
            }
        }
        let info = game.infoset(seat);
        // Which slot (if any) this position goes to: with a sampled seat,
        // only its positions count (without, every position before this one).
        let n = self.sampleable_seen;
        let sampleable = self.sample_seat.is_none_or(|s| s == seat);
        if sampleable {
            self.sampleable_seen += 1;
        }
        let slot = match self.samples {
            _ if !sampleable => None,
            SamplesPerGame::All => Some(n),
            SamplesPerGame::Count(0) => None,
            SamplesPerGame::Count(k) => {
                let k = k as usize;
                if n < k {
                    Some(n)
                } else {
                    let j = self.sample_rng.random_range(0..=n);
                    (j < k).then_some(j)
                }
            }
        };
        if let Some(i) = slot {
            buf.used = buf.used.max(i + 1);
            if i == buf.samples.len() {
                buf.samples.push(Sample::default());
            }
            // The truth's legal actions (`buf.moves`) are the mover's: a
            // seat's view lists exactly the referee's actions.
            if let Err(message) = fill_sample(&mut buf.samples[i], game.truth(), info, &buf.moves, ply, &decision) {
                return Poll::Ready(Err(SelfplayError::BadPolicy {
                    bot: self.names[seat.index()].clone(),
                    game_id: self.game_id,
                    ply,
                    message,
                }));
            }
        }
        // `buf.moves` holds the legal actions of this position.
        if !buf.moves.contains(decision.action) {
            return Poll::Ready(Err(SelfplayError::IllegalAction {
                bot: self.names[seat.index()].clone(),
                action: decision.action.to_string(),
                game_id: self.game_id,
                ply,
            }));
        }
        self.game.play_unchecked(decision.action);
        self.list_moves();
        Poll::Ready(Ok(self.outcome.is_some()))
    }

    /// Count `time` (spent waiting for the mover's answer) as the mover's thinking.
    pub fn add_thinking(&mut self, time: std::time::Duration) {
        let seat = self.game.truth().turn();
        self.buf.think[seat.index()] += time;
        self.move_think += time;
    }

    /// The finished game's record, and its buffers holding its samples
    /// ([`GameBuffers::samples`], [`GameBuffers::thinking`]).
    ///
    /// # Panics
    /// If the game is not over.
    pub fn finish(self) -> (GameRecord, GameBuffers) {
        let GameInFlight { game, game_id, seed, start_jfen, names, mut buf, outcome, resign, forfeit, move_ms, .. } =
            self;
        let outcome = outcome.expect("finish: the game is not over");
        buf.resign = resign;
        let used = buf.used;
        let samples = &mut buf.samples[..used];
        samples.sort_by_key(|s| s.ply);
        for s in samples.iter_mut() {
            let seat = if s.seat == 1 { Seat::First } else { Seat::Second };
            s.outcome = match outcome.winner {
                None => 0,
                Some(w) if w == seat => 1,
                Some(_) => -1,
            };
        }
        let record = GameRecord {
            game_id,
            seed,
            start_jfen,
            moves: game.moves().to_vec(),
            outcome,
            bots: names,
            forfeit,
            move_ms,
        };
        (record, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_bots::from_spec;
    use junqi_core::{Mode, ACTIONS};
    use junqi_env::{encode_observation, OBS_SIZE};

    fn play(mode: Mode, samples: SamplesPerGame, seed: u64) -> (GameRecord, Vec<Sample>) {
        let (mut a, mut b) = (from_spec("random").unwrap(), from_spec("greedy").unwrap());
        let mut buf = GameBuffers::default();
        let rec = play_game(&Rules::preset(mode), [&mut a, &mut b], 5, seed, samples, &mut buf).unwrap();
        (untimed(rec), buf.samples().to_vec())
    }

    /// `rec` without its decisions' times: the seed fixes the game, not how
    /// long a loaded machine took over each move.
    fn untimed(mut rec: GameRecord) -> GameRecord {
        rec.move_ms.clear();
        rec
    }

    /// With a sampled seat, only that seat's positions are sampled (all of
    /// them, or a reservoir of them), and the game itself is unchanged.
    #[test]
    fn a_sampled_seat_keeps_only_its_own_positions() {
        let rules = Rules::preset(Mode::Fanqi);
        let (plain, _) = play(Mode::Fanqi, SamplesPerGame::All, 9);
        let seconds = plain.moves.len() / 2;
        for (samples, expected) in [(SamplesPerGame::All, seconds), (SamplesPerGame::Count(3), 3.min(seconds))] {
            let (mut a, mut b) = (from_spec("random").unwrap(), from_spec("greedy").unwrap());
            let mut g = GameInFlight::start(&rules, [&mut a, &mut b], 5, 9, samples, GameBuffers::default())
                .unwrap()
                .with_sample_seat(Some(Seat::Second));
            while !g.is_finished() {
                let mover = if g.turn() == Seat::First { &mut a } else { &mut b };
                g.step(mover).unwrap();
            }
            let (rec, buf) = g.finish();
            assert_eq!(untimed(rec), plain, "the game does not depend on what is sampled");
            let kept = buf.samples();
            assert_eq!(kept.len(), expected, "{samples:?}");
            assert!(kept.iter().all(|s| s.seat == Seat::Second.number()), "{samples:?}");
            assert!(kept.iter().all(|s| s.ply % 2 == 1), "seat 2 moves at odd plies");
        }
    }

    /// Games stepped in an interleaved order (as a worker with games in
    /// flight does) are the games `play_game` plays one by one.
    #[test]
    fn interleaved_games_are_the_games_played_one_by_one() {
        for mode in Mode::ALL {
            let rules = Rules::preset(mode);
            let samples = SamplesPerGame::Count(4);
            let mut alone = Vec::new();
            for id in 0..6u64 {
                let (mut a, mut b) = (from_spec("random").unwrap(), from_spec("greedy").unwrap());
                let mut buf = GameBuffers::default();
                let rec = play_game(&rules, [&mut a, &mut b], id, 100 + id, samples, &mut buf).unwrap();
                alone.push((untimed(rec), buf.samples().to_vec()));
            }
            let mut playing: Vec<(GameInFlight, [Player; 2])> = (0..6u64)
                .map(|id| {
                    let mut seats = [from_spec("random").unwrap(), from_spec("greedy").unwrap()];
                    let [a, b] = &mut seats;
                    let g = GameInFlight::start(&rules, [a, b], id, 100 + id, samples, GameBuffers::default()).unwrap();
                    (g, seats)
                })
                .collect();
            // Step the games in a scrambled order: game i gets i % 3 + 1 plies a round.
            while playing.iter().any(|(g, _)| !g.is_finished()) {
                for (i, (g, seats)) in playing.iter_mut().enumerate().rev() {
                    for _ in 0..i % 3 + 1 {
                        let mover = g.turn().index();
                        g.step(&mut seats[mover]).unwrap();
                    }
                }
            }
            for ((g, _), (rec, s)) in playing.into_iter().zip(&alone) {
                let (r, buf) = g.finish();
                assert_eq!(&untimed(r), rec, "{mode:?}");
                assert_eq!(buf.samples(), &s[..], "{mode:?}");
            }
        }
    }

    #[test]
    fn games_are_fixed_by_the_seed_whatever_is_sampled() {
        for mode in Mode::ALL {
            let (all, s_all) = play(mode, SamplesPerGame::All, 11);
            let (none, s_none) = play(mode, SamplesPerGame::Count(0), 11);
            let (some, s_some) = play(mode, SamplesPerGame::Count(5), 11);
            assert_eq!(all, none);
            assert_eq!(all, some);
            assert_eq!(s_all.len(), all.moves.len());
            assert!(s_none.is_empty());
            assert_eq!(s_some.len(), 5.min(all.moves.len()));
            // Reservoir samples are a subset of the full list, in ply order.
            for s in &s_some {
                assert_eq!(Some(s), s_all.get(s.ply as usize));
            }
            assert!(s_some.windows(2).all(|w| w[0].ply < w[1].ply));
            assert_ne!(play(mode, SamplesPerGame::Count(0), 12).0, all);
        }
    }

    /// The stored position and legal actions are exactly junqi-env's
    /// encoders' output on the mover's information set at that ply.
    #[test]
    fn samples_equal_the_env_encoders_on_the_movers_infoset() {
        for mode in Mode::ALL {
            let (rec, samples) = play(mode, SamplesPerGame::All, 21);
            let start = Position::from_jfen(&rec.start_jfen, Rules::preset(mode)).unwrap();
            let mut game = Game::new(start);
            let (mut list, mut mask, mut obs) = (MoveList::new(), vec![0u8; ACTIONS], vec![0.0f32; OBS_SIZE]);
            for (s, &mv) in samples.iter().zip(&rec.moves) {
                let info = game.infoset(game.truth().turn());
                junqi_env::encode_mask(info, &mut list, &mut mask);
                let legal: Vec<u16> = (0..ACTIONS as u16).filter(|&a| mask[a as usize] == 1).collect();
                assert_eq!(s.legal, legal, "{mode:?} ply {}", s.ply);
                encode_observation(info, &mut obs);
                assert!(s.position.planes().iter().zip(&obs).all(|(a, b)| a.to_bits() == b.to_bits()));
                game.play(mv).unwrap();
            }
        }
    }

    #[test]
    fn samples_hold_the_movers_frame_action_and_the_outcome() {
        let (rec, samples) = play(Mode::Anqi, SamplesPerGame::All, 3);
        for (i, s) in samples.iter().enumerate() {
            assert_eq!(s.ply as usize, i);
            let seat = if s.seat == 1 { Seat::First } else { Seat::Second };
            assert_eq!(s.action as usize, action_to_frame(rec.moves[i], seat));
            assert!(s.legal.binary_search(&s.action).is_ok());
            assert!(s.legal.windows(2).all(|w| w[0] < w[1]), "ascending, once each");
            assert_eq!(s.policy.len(), s.legal.len());
            let sum: f32 = s.policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4);
            let expected = match rec.outcome.winner {
                None => 0,
                Some(w) if w == seat => 1,
                _ => -1,
            };
            assert_eq!(s.outcome, expected);
            // random and greedy give no value estimate.
            assert_eq!(s.value, None);
        }
    }

    /// 暗棋 samples name the true kind of every enemy piece the mover could
    /// not pin down (and nothing else); the other modes store none.
    #[test]
    fn hidden_kinds_are_the_enemy_pieces_the_mover_did_not_know() {
        for mode in Mode::ALL {
            let (rec, samples) = play(mode, SamplesPerGame::All, 8);
            let start = Position::from_jfen(&rec.start_jfen, Rules::preset(mode)).unwrap();
            let mut game = Game::new(start);
            let mut targets = 0;
            for (s, &mv) in samples.iter().zip(&rec.moves) {
                let seat = game.truth().turn();
                let info = game.infoset(seat);
                if mode != Mode::Anqi {
                    assert!(s.hidden_kinds.is_empty(), "{mode:?} ply {}", s.ply);
                } else {
                    let enemy = game.truth().colour_of(seat.other()).unwrap();
                    for sq in Square::all() {
                        let node = square_to_frame(sq, seat).index();
                        let want = match game.truth().piece_at(sq) {
                            Some(p) if p.colour == enemy && info.possible_kinds(sq).count_ones() > 1 => {
                                1 + p.kind.index() as u8
                            }
                            _ => 0,
                        };
                        assert_eq!(s.hidden_kinds.get(node).copied().unwrap_or(0), want, "ply {} {sq}", s.ply);
                        targets += (want > 0) as usize;
                    }
                }
                game.play(mv).unwrap();
            }
            if mode == Mode::Anqi {
                assert!(targets > 25 * 10, "only {targets} targets");
            }
        }
    }
}
