//! Games between a person in the browser and a bot. The referee (the
//! [`Game`]) stays here; the page gets [`PlayState`], built only from the
//! person's information set and the observations made for their seat, so
//! no hidden kind leaves the server while the game is on. The full record
//! (with every piece) is given only once the game is over.

use crate::board::{encode, extras, piece_token, Extras, FlagOrigins};
use crate::clock::{Clocks, GameClock};
use crate::knowledge::{self, Knowledge};
use crate::replay::{effect_words, observation_words, rules_note, with_note};
use crate::ApiError;
use junqi_bots::{build, BotSpec, Player};
use junqi_core::setup::deployment_zone;
use junqi_core::{
    rng_from_seed, Colour, Deployment, Game, GameRng, Kind, Mode, Move, MoveList, Outcome, Position, Rules, Seat,
    Square,
};
use junqi_selfplay::{record_text, StoredGame};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A seed nobody can guess from the page: the standard library's per-process
/// random hash keys, mixed with the clock.
pub(crate) fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    h.write_u128(now.as_nanos());
    h.finish()
}

/// A placement as the page sends it (`{place: kind letter}`) as squares and
/// kinds, sorted; `square_of` reads a place (a two-player square, or a
/// four-player node of the person's zone) as a square of Red's half.
pub(crate) fn placement_pieces(
    placement: &HashMap<String, String>,
    square_of: impl Fn(&str) -> Result<Square, ApiError>,
) -> Result<Vec<(Square, Kind)>, ApiError> {
    let mut pieces = Vec::new();
    for (place, kind) in placement {
        let square = square_of(place)?;
        let mut letters = kind.chars();
        let kind = match (letters.next(), letters.next()) {
            (Some(c), None) => Kind::from_letter(c.to_ascii_uppercase()),
            _ => None,
        }
        .ok_or_else(|| ApiError::bad_request(format!("`{kind}` on {place} is not a kind letter")))?;
        pieces.push((square, kind));
    }
    pieces.sort();
    Ok(pieces)
}

/// A game's start from the JFEN the person sent: of the rules' mode, not over.
fn start_position(jfen: &str, rules: Rules) -> Result<Position, ApiError> {
    // A position of another mode is refused by the reader.
    let start = Position::from_jfen(jfen, rules).map_err(|e| ApiError::bad_request(format!("position: {e}")))?;
    if let Some(o) = start.outcome() {
        return Err(ApiError::bad_request(format!("position: the game is already over ({})", o.termination.name())));
    }
    Ok(start)
}

/// At most this many games are kept; the oldest goes first.
const MAX_SESSIONS: usize = 256;
/// The longest bot spec taken (the longest real one is a few hundred bytes).
const MAX_SPEC_BYTES: usize = 4096;
/// The most plies a bot is asked to play in a row before the page hears back.
const MAX_BOT_PLIES: usize = 1000;

/// Every game being played, by id.
#[derive(Default)]
pub struct Sessions {
    next: AtomicU64,
    games: Mutex<BTreeMap<u64, Arc<Mutex<Session>>>>,
}

impl Sessions {
    pub fn insert(&self, s: Session) -> (u64, Arc<Mutex<Session>>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let s = Arc::new(Mutex::new(Session { id, ..s }));
        let mut evicted = Vec::new();
        {
            let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
            while games.len() >= MAX_SESSIONS {
                let oldest = *games.keys().next().expect("not empty");
                evicted.extend(games.remove(&oldest));
            }
            games.insert(id, s.clone());
        }
        // Dropped outside the lock: a bot's drop (an engine process ending) takes its time.
        drop(evicted);
        (id, s)
    }

    pub fn get(&self, id: u64) -> Result<Arc<Mutex<Session>>, ApiError> {
        self.games
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned()
            .ok_or_else(|| ApiError::not_found(format!("no game {id} (games are kept while the server runs)")))
    }
}

/// A new game as the page asks for it.
#[derive(Deserialize, Debug)]
pub struct NewGame {
    /// `fanqi`, `anqi` or `mingqi`.
    pub mode: String,
    /// A variant preset of that mode to start from (`fanqi-flag_carry-true`,
    /// [`crate::variants`]); default: the mode's preset.
    #[serde(default)]
    pub variant: Option<String>,
    /// Rules options over the preset, e.g. `["first_player=black"]`.
    #[serde(default)]
    pub options: Vec<String>,
    /// A start position (JFEN, of the game's mode) instead of a deal or
    /// deployments: the person wrote it, so it hides nothing from them.
    #[serde(default)]
    pub position: Option<String>,
    /// The person's seat: 1 (moves first) or 2.
    pub seat: u8,
    /// The bot's spec, e.g. `heuristic` or `mcts:800`.
    pub bot: String,
    /// Seed of the deal, the deployments and the bot (default: a random one,
    /// told once the game is over: with it a second game would show this
    /// one's hidden pieces).
    pub seed: Option<u64>,
    /// Leave the bot's first move to `POST /api/play/N/bot` (the page shows
    /// the board first, then the bot thinking); default: it moves at once.
    #[serde(default)]
    pub bot_later: bool,
}

/// One game.
pub struct Session {
    pub id: u64,
    rules: Rules,
    human: Seat,
    bot: Player,
    rng: GameRng,
    seed: u64,
    /// Whether the person chose the seed (and so may know it).
    seed_chosen: bool,
    /// The person's deployment being edited (暗棋, 明棋), before the game starts.
    proposal: Option<Deployment>,
    /// The bot's deployment, waiting for the person's.
    bot_deployment: Option<Deployment>,
    game: Option<Game>,
    /// What happened, as the person saw it.
    log: Vec<String>,
    outcome: Option<Outcome>,
    /// With `junqi serve --tc` (or a spec's own `tc`): both sides' clocks,
    /// the bot's mirroring what its search spends.
    clock: Option<GameClock>,
    /// How long the bot's last move took, in milliseconds.
    bot_last_ms: Option<u64>,
    /// Where each flag was last picked up (扛军旗), for the page.
    origins: FlagOrigins,
}

/// The bot's clock, as the page is told it.
#[derive(Serialize, Debug, PartialEq)]
pub struct BotClock {
    /// The clock, `BASE+INC` in seconds.
    pub tc: String,
    /// What is left on it, in milliseconds.
    pub left_ms: u64,
    /// How long the bot's last move took, in milliseconds.
    pub last_ms: Option<u64>,
}

/// What the page is shown: the person's view only.
#[derive(Serialize, Debug)]
pub struct PlayState {
    pub id: u64,
    pub mode: String,
    /// `deploy`, `play` or `over`.
    pub phase: String,
    pub seat: u8,
    /// The person's colour, once known.
    pub colour: Option<String>,
    pub bot: String,
    /// The mode and the options that differ from its preset (`fanqi flag_carry=true`).
    pub variant: String,
    /// The seed: only once the game is over, unless the person chose it.
    pub seed: Option<u64>,
    /// The board as the person sees it ([`crate::board`] tokens); while
    /// deploying, the person's own pieces only.
    pub board: String,
    pub your_turn: bool,
    pub legal: Vec<String>,
    pub last_move: Option<(String, String)>,
    pub log: Vec<String>,
    pub ply: u32,
    pub result: Option<String>,
    pub termination: Option<String>,
    /// While deploying: the nodes of the person's half.
    pub zone: Vec<String>,
    /// The bot is to move (the page asks `POST /api/play/N/bot` to let it).
    pub bot_to_move: bool,
    /// Once the game is over: the referee's board (every piece, the
    /// face-down ones as `#rX`), so the page can show what was hidden.
    pub reveal: Option<String>,
    /// The bot's clock, when it plays on one (`junqi serve --tc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_clock: Option<BotClock>,
    /// Both sides' clocks, when the game is on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// What the person's information set knows beyond the board.
    #[serde(flatten)]
    pub knowledge: Knowledge,
    /// Flags on pieces and the mountains' pieces (扛军旗, 山界), as the
    /// person sees them (public), or the referee's once the game is over.
    #[serde(flatten)]
    pub extras: Extras,
}

impl Session {
    /// A new game; in 暗棋 and 明棋 the bot deploys now and the person
    /// edits a random legal deployment before the first move.
    pub fn new(req: &NewGame, allow_engines: bool) -> Result<Session, ApiError> {
        Session::new_timed(req, allow_engines, None)
    }

    /// [`Session::new`] with `junqi serve --tc`: a built-in search bot
    /// whose spec sets no time of its own plays on this clock
    /// ([`junqi_bots::mcts::clock::with_clock`]), kept through this game.
    pub fn new_timed(req: &NewGame, allow_engines: bool, tc: Option<&str>) -> Result<Session, ApiError> {
        if req.bot.len() > MAX_SPEC_BYTES {
            return Err(ApiError::bad_request(format!(
                "a bot spec of {} bytes: at most {MAX_SPEC_BYTES}",
                req.bot.len()
            )));
        }
        // Parsed once: the guard decides on the bot that is then built.
        let mut spec =
            BotSpec::parse(&req.bot).map_err(|e| ApiError::bad_request(format!("bot `{}`: {e}", req.bot)))?;
        if let Some(tc) = tc {
            spec = junqi_bots::mcts::clock::with_clock(&spec, tc).map_err(ApiError::bad_request)?;
        }
        // The game is on a clock when its bot is: the person gets the same.
        let clock = match spec.get("tc").and_then(|tc| Some((tc, junqi_bots::mcts::clock::parse_clock(tc)?))) {
            Some((tc, (base, inc))) if junqi_bots::mcts::clock::TIMED_BOTS.contains(&spec.name.as_str()) => {
                Some(GameClock::new(tc, base, inc))
            }
            _ => None,
        };
        if !allow_engines && spec.starts_programs() {
            return Err(ApiError::bad_request(
                "engine bots start programs on this machine: run `junqi serve --allow-engines` to offer them",
            ));
        }
        let rules = crate::variants::rules_for(&req.mode, req.variant.as_deref(), &req.options)?;
        let human = match req.seat {
            1 => Seat::First,
            2 => Seat::Second,
            s => return Err(ApiError::bad_request(format!("seat {s}: 1 or 2"))),
        };
        let bot = build(&spec).map_err(|e| ApiError::bad_request(format!("bot `{}`: {e}", req.bot)))?;
        bot.can_play(&rules)
            .map_err(|why| ApiError::bad_request(format!("bot `{}` cannot play these rules: {why}", req.bot)))?;
        let seed = req.seed.unwrap_or_else(random_seed);
        let mut s = Session {
            id: 0,
            rules,
            human,
            bot,
            rng: rng_from_seed(seed),
            seed,
            seed_chosen: req.seed.is_some(),
            proposal: None,
            bot_deployment: None,
            game: None,
            log: Vec::new(),
            outcome: None,
            clock,
            bot_last_ms: None,
            origins: FlagOrigins::default(),
        };
        if let Some(jfen) = &req.position {
            s.game = Some(Game::new(start_position(jfen, rules)?));
        } else if rules.mode == Mode::Fanqi {
            let start = Position::deal_fanqi(rules, &mut s.rng);
            s.game = Some(Game::new(start));
        } else {
            let bot_colour = s.colour_of(human.other());
            let d = s
                .bot
                .deploy_checked(bot_colour, &rules, &mut s.rng)
                .map_err(|why| ApiError::bad_request(format!("bot `{}` {why}", req.bot)))?;
            s.bot_deployment = Some(d);
            s.proposal = Some(Deployment::random(s.colour_of(human), &mut s.rng));
        }
        s.after_turn();
        Ok(s)
    }

    /// The bot is to move in a game under way.
    fn bot_to_move(&self) -> bool {
        self.outcome.is_none() && self.game.as_ref().is_some_and(|g| g.truth().turn() != self.human)
    }

    /// The fixed colour of `seat` in 暗棋 and 明棋.
    fn colour_of(&self, seat: Seat) -> Colour {
        self.rules.fixed_colour(seat).expect("anqi/mingqi colours are fixed")
    }

    /// A new random deployment for the person to start editing from.
    pub fn shuffle(&mut self) -> Result<(), ApiError> {
        if self.proposal.is_none() {
            return Err(ApiError::conflict("the deployment is over"));
        }
        self.proposal = Some(Deployment::random(self.colour_of(self.human), &mut self.rng));
        Ok(())
    }

    /// The person's deployment, `{square: kind letter}` for all 25 pieces:
    /// checked against the deployment rules, then the game starts (and the
    /// bot moves if it moves first).
    pub fn deploy(&mut self, placement: &HashMap<String, String>) -> Result<(), ApiError> {
        let Some(bot_deployment) = self.bot_deployment.clone() else {
            return Err(ApiError::conflict("this game has no deployment to make (翻棋, or already deployed)"));
        };
        let colour = self.colour_of(self.human);
        let pieces = placement_pieces(placement, |sq| sq.parse().map_err(|e| ApiError::bad_request(format!("{e}"))))?;
        let mine = Deployment { colour, pieces };
        mine.validate().map_err(|e| ApiError::bad_request(format!("illegal deployment: {e}")))?;
        let (red, black) = match colour {
            Colour::Red => (&mine, &bot_deployment),
            Colour::Black => (&bot_deployment, &mine),
        };
        let start =
            Position::from_deployments(self.rules, red, black).map_err(|e| ApiError::bad_request(e.to_string()))?;
        self.game = Some(Game::new(start));
        self.proposal = None;
        self.bot_deployment = None;
        self.after_turn();
        Ok(())
    }

    /// The person's move, then (unless `bot_later`) the bot's replies until
    /// it is the person's turn again or the game is over.
    pub fn play(&mut self, text: &str, bot_later: bool) -> Result<(), ApiError> {
        let human = self.human;
        if self.outcome.is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        let game = self.game.as_mut().ok_or_else(|| ApiError::conflict("deploy your pieces first"))?;
        if game.truth().turn() != human {
            return Err(ApiError::conflict("it is the bot's turn"));
        }
        if self.check_time() {
            return Ok(());
        }
        let game = self.game.as_mut().expect("checked above");
        let mv: Move = text.trim().parse().map_err(|e| ApiError::bad_request(format!("`{text}`: {e}")))?;
        let mut list = MoveList::new();
        game.infoset(human).legal_moves(&mut list);
        if !list.contains(mv) {
            return Err(ApiError::bad_request(format!("{mv} is not a legal move here")));
        }
        if let Some((_, false)) = self.clock.as_mut().and_then(GameClock::stop) {
            // The move came after the person's time ran out: not played.
            self.lose_on_time(human);
            return Ok(());
        }
        let before = game.infoset(human).view().clone();
        let (_, obs) = match game.play(mv) {
            Ok(played) => played,
            Err(e) => {
                // Still the person's turn: their clock, stopped above, runs again.
                self.after_turn();
                return Err(ApiError::bad_request(format!("{mv}: {e}")));
            }
        };
        let words = self.words(&before, mv, &obs[human.index()]);
        self.log.push(format!("you: {words}"));
        if bot_later {
            self.note_outcome();
            self.after_turn();
        } else {
            self.bot_moves();
        }
        Ok(())
    }

    /// A move as the person saw it, with what it did under the newer rules;
    /// notes a flag picked up. `before` is the person's view before it.
    fn words(&mut self, before: &Position, mv: Move, obs: &junqi_core::Observation) -> String {
        let after = self.game.as_ref().expect("a move was played").infoset(self.human).view();
        self.origins.note(before, after, mv);
        with_note(observation_words(obs), rules_note(before, after, mv))
    }

    /// Ends the game when the person's running clock has no time left
    /// (asked by the state and move requests: the page asks for the state
    /// when its clock shows zero). Whether it did.
    pub fn check_time(&mut self) -> bool {
        match self.clock.as_ref().and_then(GameClock::flag_fallen) {
            Some(seat) if self.outcome.is_none() && self.game.is_some() => {
                self.lose_on_time(seat);
                true
            }
            _ => false,
        }
    }

    /// `seat` ran out of time: the other side wins.
    fn lose_on_time(&mut self, seat: Seat) {
        let who = if seat == self.human { "you" } else { "the bot" };
        self.log.push(format!("{who} ran out of time"));
        self.outcome = Some(Outcome::timeouts(seat));
        self.after_turn();
    }

    /// After a change of turn or the end: the person's clock runs when it is
    /// their turn; no clock runs once the game is over.
    fn after_turn(&mut self) {
        let Some(clock) = self.clock.as_mut() else { return };
        match &self.game {
            _ if self.outcome.is_some() => clock.halt(),
            Some(game) if game.truth().turn() == self.human => clock.start(self.human),
            _ => {}
        }
    }

    /// Notes the game's end, if the position on the board is one.
    fn note_outcome(&mut self) {
        let Some(game) = &self.game else { return };
        let mut list = MoveList::new();
        game.truth().legal_moves(&mut list);
        if let Some(o) = game.truth().outcome_given(list.len()) {
            self.outcome = Some(o);
        }
    }

    /// The bot plays while it is its turn; the game's end is noted.
    pub fn bot_moves(&mut self) {
        self.bot_plies();
        self.after_turn();
    }

    fn bot_plies(&mut self) {
        let human = self.human;
        if self.outcome.is_some() {
            return;
        }
        let Some(game) = self.game.as_mut() else { return };
        let mut list = MoveList::new();
        for _ in 0..MAX_BOT_PLIES {
            game.truth().legal_moves(&mut list);
            if let Some(o) = game.truth().outcome_given(list.len()) {
                self.outcome = Some(o);
                return;
            }
            if game.truth().turn() == human {
                return;
            }
            if let Some(clock) = self.clock.as_mut() {
                clock.start(human.other());
            }
            let mv = self.bot.act(game, &mut self.rng).action;
            if let Some((took, in_time)) = self.clock.as_mut().and_then(GameClock::stop) {
                self.bot_last_ms = Some(took.as_millis() as u64);
                if !in_time {
                    self.log.push("the bot ran out of time".into());
                    self.outcome = Some(Outcome::timeouts(human.other()));
                    return;
                }
            }
            if let Some(reason) = self.bot.take_forfeit() {
                self.log.push(format!("the bot forfeits: {reason}"));
                self.outcome = Some(Outcome::forfeit(human.other()));
                return;
            }
            if !list.contains(mv) {
                self.log.push(format!("the bot chose the illegal action {mv} and forfeits"));
                self.outcome = Some(Outcome::forfeit(human.other()));
                return;
            }
            let before = game.infoset(human).view().clone();
            let (_, obs) = game.play_unchecked(mv);
            let after = game.infoset(human).view();
            self.origins.note(&before, after, mv);
            let words = with_note(observation_words(&obs[human.index()]), rules_note(&before, after, mv));
            self.log.push(format!("bot: {words}"));
        }
    }

    /// The person gives up.
    pub fn resign(&mut self) -> Result<(), ApiError> {
        if self.outcome.is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        if self.game.is_none() {
            return Err(ApiError::conflict("deploy your pieces first"));
        }
        self.outcome = Some(Outcome::resignation(self.human));
        self.log.push("you resign".into());
        self.after_turn();
        Ok(())
    }

    /// The page's view of the game.
    pub fn state(&self) -> PlayState {
        let human = self.human;
        let mut st = PlayState {
            id: self.id,
            mode: self.rules.mode.name().into(),
            phase: "play".into(),
            seat: human.index() as u8 + 1,
            colour: None,
            bot: self.bot.name(),
            variant: crate::datasets::variant(&serde_json::to_string(&self.rules).expect("rules serialise")),
            seed: self.seed_chosen.then_some(self.seed),
            board: String::new(),
            your_turn: false,
            legal: Vec::new(),
            last_move: None,
            log: self.log.clone(),
            ply: 0,
            result: None,
            termination: None,
            zone: Vec::new(),
            bot_to_move: false,
            reveal: None,
            bot_clock: None,
            clocks: None,
            knowledge: Knowledge::default(),
            extras: Extras::default(),
        };
        if let Some(clock) = &self.clock {
            let c = clock.report(human, self.game.is_some() && self.outcome.is_none(), self.bot_to_move());
            st.bot_clock = Some(BotClock { tc: c.tc.clone(), left_ms: c.bot_ms, last_ms: self.bot_last_ms });
            st.clocks = Some(c);
        }
        if let Some(d) = &self.proposal {
            st.phase = "deploy".into();
            st.colour = Some(d.colour.name().into());
            let mut tokens = vec![".".to_string(); 60];
            for &(sq, kind) in &d.pieces {
                tokens[sq.index()] = piece_token(junqi_core::Piece::new(d.colour, kind));
            }
            st.board = tokens.join(" ");
            st.zone = junqi_core::board::squares(deployment_zone(d.colour)).map(|s| s.to_string()).collect();
            return st;
        }
        let Some(game) = &self.game else { return st };
        let info = game.infoset(human);
        let view = info.view();
        st.board = encode(view);
        st.colour = view.colour_of(human).map(|c| c.name().to_string());
        st.ply = view.ply();
        st.last_move = game.moves().last().map(|m| (m.from.to_string(), m.to.to_string()));
        st.knowledge = knowledge::of(info);
        st.extras = extras(view, &self.origins);
        if let Some(o) = self.outcome {
            st.phase = "over".into();
            st.seed = Some(self.seed);
            st.reveal = Some(encode(game.truth()));
            st.extras = extras(game.truth(), &self.origins);
            st.result = Some(o.result_str().into());
            st.termination = Some(o.termination.name().into());
            return st;
        }
        if view.turn() == human {
            st.your_turn = true;
            let mut list = MoveList::new();
            info.legal_moves(&mut list);
            st.legal = list.iter().map(|m| m.to_string()).collect();
        } else {
            st.bot_to_move = true;
        }
        st
    }

    /// The whole game as a text record (every piece): only once it is over.
    pub fn record(&self) -> Result<String, ApiError> {
        let (Some(game), Some(o)) = (&self.game, self.outcome) else {
            return Err(ApiError::conflict("the record is given once the game is over"));
        };
        let you = "person".to_string();
        let bots = if self.human == Seat::First { [you, self.bot.name()] } else { [self.bot.name(), you] };
        let stored = StoredGame {
            game_id: self.id,
            rules: serde_json::to_string(&self.rules).expect("rules serialise"),
            seed: self.seed,
            start_jfen: game.start().to_jfen(),
            moves: game.moves().iter().map(|m| m.to_string()).collect(),
            result: o.result_str().into(),
            termination: o.termination.name().into(),
            plies: game.moves().len() as u32,
            bots,
            code_version: junqi_selfplay::code_version(),
        };
        let mut text = record_text(&stored, Some("junqi serve")).map_err(ApiError::unreadable)?;
        text.push_str("% the referee's account of every move:\n");
        let mut replay = Game::new(game.start().clone());
        for &mv in game.moves() {
            let before = replay.truth().clone();
            if let Ok((effect, _)) = replay.play(mv) {
                let words = with_note(effect_words(mv, &effect), rules_note(&before, replay.truth(), mv));
                text.push_str(&format!("% {words}\n"));
            }
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bot that plays 翻棋 only, as an engine's `plays fanqi` says.
    struct FanqiOnly;

    impl junqi_bots::Agent for FanqiOnly {
        fn name(&self) -> String {
            "fanqi-only".into()
        }
        fn act(&mut self, _info: &junqi_core::InfoSet, _rng: &mut junqi_core::GameRng) -> junqi_bots::Decision {
            unreachable!("refused before any move")
        }
        fn can_play(&self, rules: &Rules) -> Result<(), String> {
            if rules.mode == Mode::Fanqi {
                Ok(())
            } else {
                Err("it plays fanqi only".into())
            }
        }
    }

    #[test]
    fn a_bot_that_cannot_play_the_rules_is_refused_before_it_deploys() {
        junqi_bots::register_bot("fanqi-only", |_| Ok(Player::Fair(Box::new(FanqiOnly))));
        let req = |mode: &str| NewGame {
            mode: mode.into(),
            variant: None,
            options: vec![],
            position: None,
            seat: 1,
            bot: "fanqi-only".into(),
            seed: Some(4),
            bot_later: true,
        };
        let err = Session::new(&req("anqi"), false).err().expect("refused");
        assert!(format!("{err:?}").contains("cannot play these rules: it plays fanqi only"), "{err:?}");
        assert!(Session::new(&req("fanqi"), false).is_ok());
    }

    fn new_game(mode: &str, seat: u8) -> Session {
        Session::new(
            &NewGame {
                mode: mode.into(),
                variant: None,
                options: vec![],
                position: None,
                seat,
                bot: "random".into(),
                seed: Some(4),
                bot_later: false,
            },
            false,
        )
        .unwrap()
    }

    #[test]
    fn the_seed_is_told_only_when_chosen_or_at_the_end_and_engines_need_leave() {
        let req = |seed, bot: &str| NewGame {
            mode: "anqi".into(),
            variant: None,
            options: vec![],
            position: None,
            seat: 1,
            bot: bot.into(),
            seed,
            bot_later: false,
        };
        let mut s = Session::new(&req(None, "random"), false).unwrap();
        assert_eq!(s.state().seed, None);
        s.deploy(&own_placement(&s)).unwrap();
        assert_eq!(s.state().seed, None);
        s.resign().unwrap();
        assert!(s.state().seed.is_some());
        assert_eq!(Session::new(&req(Some(9), "random"), false).unwrap().state().seed, Some(9));
        // However the spec is written: the guard reads the parsed names.
        for spec in ["engine:cmd=true", "engine :cmd=true", " engine\t:cmd=true", "mcts:eval= engine :cmd=true"] {
            let err = Session::new(&req(None, spec), false).err().unwrap();
            assert!(err.message.contains("--allow-engines"), "{spec}: {}", err.message);
        }
        let long = format!("mcts:c={}", "1".repeat(MAX_SPEC_BYTES));
        assert!(Session::new(&req(None, &long), false).err().unwrap().message.contains("at most"));
    }

    /// The person's proposed deployment as the page sends it.
    fn own_placement(s: &Session) -> HashMap<String, String> {
        let mut placement = HashMap::new();
        for (sq, t) in s.state().board.split(' ').enumerate() {
            if t != "." {
                placement.insert(Square::new(sq).unwrap().to_string(), t[1..].to_string());
            }
        }
        placement
    }

    #[test]
    fn a_fanqi_game_against_random_plays_to_its_end() {
        let mut s = new_game("fanqi", 2);
        s.bot_moves();
        let mut plies = 0;
        while s.state().phase == "play" {
            let st = s.state();
            assert!(st.your_turn);
            assert!(s.play("a1a2x", false).is_err());
            // Every other move leaves the bot's reply to a second request.
            let later = plies % 2 == 0;
            s.play(&st.legal[plies % st.legal.len()], later).unwrap();
            assert!(!later || s.state().bot_to_move || s.state().phase == "over");
            s.bot_moves();
            assert!(!s.state().bot_to_move);
            plies += 1;
        }
        let st = s.state();
        assert!(st.result.is_some() && st.legal.is_empty());
        assert!(s.record().unwrap().contains("[Result"));
        assert!(s.play("a1a2", false).is_err());
    }

    #[test]
    fn an_anqi_deployment_is_checked_and_the_view_hides_the_bot_pieces() {
        let mut s = new_game("anqi", 1);
        assert!(s.play("a6a7", false).is_err(), "no move before deploying");
        let st = s.state();
        assert_eq!(st.phase, "deploy");
        assert_eq!(st.zone.len(), 25);
        let placement = own_placement(&s);
        // A flag out of its headquarters is refused.
        let flag = placement.iter().find(|(_, k)| *k == "F").map(|(s, _)| s.clone()).unwrap();
        let other = placement.keys().find(|s| **s != flag && !["b1", "d1"].contains(&s.as_str())).unwrap().clone();
        let mut bad = placement.clone();
        let (a, b) = (bad[&flag].clone(), bad[&other].clone());
        bad.insert(flag.clone(), b);
        bad.insert(other.clone(), a);
        if bad != placement {
            let err = s.deploy(&bad).unwrap_err();
            assert!(err.message.contains("illegal deployment"), "{}", err.message);
        }
        s.deploy(&placement).unwrap();
        let st = s.state();
        assert_eq!(st.phase, "play");
        let colour = st.colour.clone().unwrap();
        let enemy = if colour == "red" { 'b' } else { 'r' };
        assert!(st.board.split(' ').all(|t| !t.starts_with(enemy) || t.ends_with('?')), "{}", st.board);
        assert!(s.record().is_err(), "no record before the end");
        assert!(st.reveal.is_none());
        // At the end the referee's board is shown: every enemy kind.
        s.resign().unwrap();
        let reveal = s.state().reveal.unwrap();
        assert_eq!(reveal.split(' ').filter(|t| t.starts_with(enemy)).count(), 25, "{reveal}");
        assert!(!reveal.contains('?'), "{reveal}");
    }
}
