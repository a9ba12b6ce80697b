//! 四国军棋 (the four-player game, docs/rules.md §10) in the browser: a
//! person plays one seat, bots (one spec per seat, the ally's included) the
//! other three. The referee (the true [`Position`]) stays here; the page
//! gets [`SiguoState`], built from the person's [`SiguoInfoSet`] only, so in
//! 四国暗棋 no kind of another army leaves the server while the game is on
//! (in 双明 the ally's kinds, in 全明 every kind, as the seat sees them at a
//! table). The referee's board is given only once the game is over.
//!
//! Each army's deployment is drawn from the game's seed (§10.5); before the
//! first move the person edits their own (swaps pieces, or draws another)
//! and starts the game, the bots keep theirs. Once the game is over its
//! four-player JGN record can be downloaded.

use crate::ApiError;
use junqi_core::piece::Kind;
use junqi_core::setup::{deployment_zone, Deployment};
use junqi_core::{rng_from_seed, GameRng};
use junqi_siguo::setup::{random_deployment, validate};
use junqi_siguo::{
    bot_from_spec, tables, Army, Move, MoveList, Node, NodeKind, Outcome, Position, Rules, SiguoBot, SiguoInfoSet, Team,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// At most this many four-player games are kept; the oldest goes first.
const MAX_SESSIONS: usize = 256;
/// The longest bot spec taken.
const MAX_SPEC_BYTES: usize = 4096;
/// The most plies the bots play in one request before the page hears back.
const MAX_BOT_PLIES: usize = 2000;

/// Every four-player game being played, by id.
#[derive(Default)]
pub struct SiguoSessions {
    next: AtomicU64,
    games: Mutex<BTreeMap<u64, Arc<Mutex<SiguoSession>>>>,
}

impl SiguoSessions {
    pub fn insert(&self, mut s: SiguoSession) -> (u64, Arc<Mutex<SiguoSession>>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        s.id = id;
        let s = Arc::new(Mutex::new(s));
        let mut evicted = Vec::new();
        {
            let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
            while games.len() >= MAX_SESSIONS {
                let oldest = *games.keys().next().expect("not empty");
                evicted.extend(games.remove(&oldest));
            }
            games.insert(id, s.clone());
        }
        drop(evicted);
        (id, s)
    }

    pub fn get(&self, id: u64) -> Result<Arc<Mutex<SiguoSession>>, ApiError> {
        self.games.lock().unwrap_or_else(|e| e.into_inner()).get(&id).cloned().ok_or_else(|| {
            ApiError::not_found(format!("no four-player game {id} (games are kept while the server runs)"))
        })
    }
}

/// A new four-player game as the page asks for it (`POST /api/play/siguo`).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct NewSiguoGame {
    /// `anqi` (四国暗棋, the default), `shuangming` or `quanming`.
    #[serde(default)]
    pub mode: Option<String>,
    /// §10.11 options over the mode's preset, e.g. `["turn_order=clockwise"]`.
    #[serde(default)]
    pub options: Vec<String>,
    /// The person's seat, 0–3 (army 0 moves first; 0 and 2 are one team).
    #[serde(default)]
    pub seat: u8,
    /// One bot spec for the three other seats (default `heuristic`) …
    #[serde(default)]
    pub bot: Option<String>,
    /// … or one per seat, four entries in seat order (the person's entry is
    /// ignored and may be empty).
    #[serde(default)]
    pub bots: Option<Vec<String>>,
    /// Seed of the deployments and the bots (default: a random one, told
    /// once the game is over).
    pub seed: Option<u64>,
    /// Leave the bots' first moves to `POST /api/play/siguo/N/bot`.
    #[serde(default)]
    pub bot_later: bool,
}

/// One four-player game.
pub struct SiguoSession {
    pub id: u64,
    rules: Rules,
    human: Army,
    /// The bot of each seat (`None` for the person's).
    bots: [Option<Box<dyn SiguoBot>>; 4],
    specs: [String; 4],
    rng: GameRng,
    seed: u64,
    seed_chosen: bool,
    /// Before the first move: the four armies' deployments, the person's
    /// being edited; `None` once the game has started.
    deployments: Option<[Deployment; 4]>,
    start: Position,
    truth: Position,
    /// Every seat's information set, kept from the referee's announcements.
    infos: [SiguoInfoSet; 4],
    moves: Vec<Move>,
    log: Vec<String>,
    /// The person resigned: their team lost.
    resigned: bool,
    /// With `junqi serve --tc`: each searching bot's clock (`mcts` without
    /// its own `movetime`), per game; each move gets its budget as a
    /// deadline ([`SiguoBot::time_next_move`]).
    clocks: [Option<junqi_bots::mcts::MoveClock>; 4],
}

/// A piece as a seat sees it: `{army}{kind letter}` when the seat knows the
/// kind, `{army}?` otherwise; `.` for an empty node.
pub(crate) fn token(army: Army, kind: Option<Kind>) -> String {
    match kind {
        Some(k) => format!("{}{}", army.index(), k.letter()),
        None => format!("{}?", army.index()),
    }
}

/// The board as `info`'s seat knows it: one token per node, in node order.
pub fn seat_board(info: &SiguoInfoSet) -> Vec<String> {
    Node::all().map(|n| info.army_at(n).map_or_else(|| ".".to_string(), |a| token(a, info.known_kind(n)))).collect()
}

/// What the page is shown: the person's seat view only.
#[derive(Serialize, Debug)]
pub struct SiguoState {
    pub id: u64,
    pub game: &'static str,
    pub mode: String,
    /// `deploy`, `play` or `over`.
    pub phase: String,
    /// The person's seat (army 0–3) and team (`A`: armies 0 and 2).
    pub seat: u8,
    pub team: String,
    /// Each seat's player: `you` or the bot's spec.
    pub players: Vec<String>,
    /// The seed: only once the game is over, unless the person chose it.
    pub seed: Option<u64>,
    /// 129 tokens in node order ([`seat_board`]); while deploying, the
    /// person's own pieces only.
    pub board: Vec<String>,
    /// While deploying: the 25 nodes of the person's zone a piece may stand on.
    pub zone: Vec<String>,
    /// The army to move.
    pub turn: u8,
    pub your_turn: bool,
    /// The person's legal moves (`from-to`, §10.4 node names).
    pub legal: Vec<String>,
    /// Every move played so far (moves are public at the table).
    pub moves: Vec<String>,
    pub last_move: Option<(String, String)>,
    /// What happened, as the person's seat saw it.
    pub log: Vec<String>,
    pub ply: u32,
    pub quiet: u32,
    /// Per army: why it ended (`flag_captured`, `no_legal_move`), if it did.
    pub ended: Vec<Option<String>>,
    /// `1-0` (team A won), `0-1` or `1/2-1/2`.
    pub result: Option<String>,
    /// `A`, `B`, or none for a draw.
    pub winner: Option<String>,
    pub termination: Option<String>,
    /// The person's team won (`win`), lost (`loss`) or drew (`draw`).
    pub your_result: Option<String>,
    /// A bot is to move (the page asks `POST /api/play/siguo/N/bot`).
    pub bot_to_move: bool,
    /// Once the game is over: the referee's board (every kind).
    pub reveal: Option<Vec<String>>,
    /// With `junqi serve --tc`: per army, the milliseconds left on its
    /// bot's clock (`null` for a seat without one); absent without `--tc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks_left_ms: Option<Vec<Option<u64>>>,
}

fn end_name(c: junqi_siguo::EndCause) -> String {
    match c {
        junqi_siguo::EndCause::FlagCaptured => "flag_captured".into(),
        junqi_siguo::EndCause::NoLegalMove => "no_legal_move".into(),
    }
}

fn team_name(t: Team) -> String {
    match t {
        Team::A => "A".into(),
        Team::B => "B".into(),
    }
}

impl SiguoSession {
    pub fn new(req: &NewSiguoGame) -> Result<SiguoSession, ApiError> {
        SiguoSession::new_timed(req, None)
    }

    /// [`SiguoSession::new`] with `junqi serve --tc`: every `mcts` seat
    /// without its own `movetime` plays on this clock.
    pub fn new_timed(req: &NewSiguoGame, tc: Option<&str>) -> Result<SiguoSession, ApiError> {
        let clock = match tc {
            Some(tc) => Some(junqi_bots::mcts::clock::parse_clock(tc).ok_or_else(|| {
                ApiError::bad_request(format!("--tc `{tc}`: expected <seconds>+<increment seconds>, e.g. 60+0.5"))
            })?),
            None => None,
        };
        let mut clocks: [Option<junqi_bots::mcts::MoveClock>; 4] = Default::default();
        let mode = req.mode.as_deref().unwrap_or("anqi");
        let rules = Rules::preset_with(mode, &req.options).map_err(|e| ApiError::bad_request(e.to_string()))?;
        let human = Army::new(req.seat as usize)
            .ok_or_else(|| ApiError::bad_request(format!("seat {}: 0, 1, 2 or 3", req.seat)))?;
        let specs: Vec<String> = match (&req.bots, &req.bot) {
            (Some(_), Some(_)) => return Err(ApiError::bad_request("give `bot` or `bots`, not both")),
            (Some(list), None) => {
                if list.len() != 4 {
                    return Err(ApiError::bad_request(format!(
                        "`bots` has {} entries: four, one per seat in seat order (the person's is ignored)",
                        list.len()
                    )));
                }
                list.clone()
            }
            (None, one) => vec![one.clone().unwrap_or_else(|| "heuristic".into()); 4],
        };
        let mut bots: [Option<Box<dyn SiguoBot>>; 4] = Default::default();
        let mut names: [String; 4] = Default::default();
        for army in Army::ALL {
            let i = army.index();
            if army == human {
                names[i] = "you".into();
                continue;
            }
            let spec = &specs[i];
            if spec.len() > MAX_SPEC_BYTES {
                return Err(ApiError::bad_request(format!(
                    "a bot spec of {} bytes: at most {MAX_SPEC_BYTES}",
                    spec.len()
                )));
            }
            let bot = bot_from_spec(spec).map_err(|e| ApiError::bad_request(format!("seat {i}: {e}")))?;
            names[i] = bot.name();
            if let Some((base, inc)) = clock.filter(|_| names[i].starts_with("mcts") && !bot.plays_by_time()) {
                clocks[i] = Some(junqi_bots::mcts::MoveClock::new(junqi_bots::mcts::TimeControl::Clock { base, inc }));
            }
            bots[i] = Some(bot);
        }
        let seed = req.seed.unwrap_or_else(crate::play::random_seed);
        // Drawn as `Position::new_game` draws them: the start is the seed's
        // unless the person edits their deployment.
        let mut deal = rng_from_seed(seed);
        let mut deployments: [Deployment; 4] = std::array::from_fn(|_| random_deployment(&rules, &mut deal));
        // A bot that deploys (a net with a learned model) replaces its army's
        // part of the deal, from the army's own stream as in self-play.
        junqi_siguo::own_deployments(&mut deployments, &rules, seed, |army, rules, rng| {
            bots[army.index()].as_mut()?.deploy(army, rules, rng)
        })
        .map_err(|e| ApiError::bad_request(format!("a bot deployed illegally: {e}")))?;
        let start = start_from(rules, &deployments)?;
        let infos = Army::ALL.map(|a| SiguoInfoSet::new(&start, a));
        Ok(SiguoSession {
            id: 0,
            rules,
            human,
            bots,
            specs: names,
            // The bots draw from their own stream, not the deal's.
            rng: rng_from_seed(seed ^ 0x5167_756f_626f_7473),
            seed,
            seed_chosen: req.seed.is_some(),
            deployments: Some(deployments),
            truth: start.clone(),
            start,
            infos,
            moves: Vec::new(),
            log: Vec::new(),
            resigned: false,
            clocks,
        })
    }

    fn over(&self) -> bool {
        self.resigned || self.truth.outcome().is_some()
    }

    /// Refused while the person is still deploying.
    fn started(&self) -> Result<(), ApiError> {
        match self.deployments {
            Some(_) => Err(ApiError::conflict("deploy your pieces first")),
            None => Ok(()),
        }
    }

    /// The person's deployment, being edited: refused once the game started.
    fn proposal(&mut self) -> Result<&mut Deployment, ApiError> {
        let human = self.human.index();
        self.deployments
            .as_mut()
            .map(|d| &mut d[human])
            .ok_or_else(|| ApiError::conflict("the deployment is over: the game has started"))
    }

    /// A new random deployment for the person to edit.
    pub fn shuffle(&mut self) -> Result<(), ApiError> {
        self.proposal()?;
        let fresh = random_deployment(&self.rules, &mut self.rng);
        *self.proposal()? = fresh;
        Ok(())
    }

    /// The person's deployment, `{node of their zone: kind letter}` for all
    /// 25 pieces (`None`: the one proposed), checked by §10.5's rules; then
    /// the game starts from the four deployments.
    pub fn deploy(&mut self, placement: Option<&HashMap<String, String>>) -> Result<(), ApiError> {
        let human = self.human;
        self.proposal()?;
        if let Some(placement) = placement {
            let pieces = crate::play::placement_pieces(placement, |name| zone_square(name, human))?;
            let mine = Deployment { colour: junqi_core::Colour::Red, pieces };
            validate(human, &mine, &self.rules)
                .map_err(|e| ApiError::bad_request(format!("illegal deployment: {e}")))?;
            *self.proposal()? = mine;
        }
        let deployments = self.deployments.take().expect("checked by proposal()");
        self.start = start_from(self.rules, &deployments)?;
        self.truth = self.start.clone();
        self.infos = Army::ALL.map(|a| SiguoInfoSet::new(&self.start, a));
        Ok(())
    }

    /// Play `mv` on the referee's board and tell every seat.
    fn apply(&mut self, mv: Move) -> Result<(), ApiError> {
        let before = self.truth.clone();
        let effect = self.truth.play(mv).map_err(|e| ApiError::bad_request(format!("{mv}: {e}")))?;
        let mut announcement = None;
        for info in &mut self.infos {
            announcement = Some(info.witness(&before, mv, &effect, &self.truth));
        }
        let a = announcement.expect("four seats");
        self.moves.push(mv);
        let who = if a.mover == self.human { "you".to_string() } else { format!("army {}", a.mover.index()) };
        let what = match a.ruling {
            junqi_siguo::Ruling::Move => "moves".to_string(),
            junqi_siguo::Ruling::AttackerWon => "attacks and wins".into(),
            junqi_siguo::Ruling::DefenderWon => "attacks and loses".into(),
            junqi_siguo::Ruling::BothRemoved => "attacks: both removed".into(),
            junqi_siguo::Ruling::FlagCaptured { .. } => "captures the flag".into(),
            junqi_siguo::Ruling::Stopped => "attacks: stopped".into(),
        };
        self.log.push(format!("{}. {who} {mv}: {what}", a.ply));
        for army in Army::ALL {
            if let Some(flag) = a.flag_shown[army.index()] {
                self.log.push(format!("army {}'s 司令 fell: its flag is on {flag}", army.index()));
            }
            if let Some(cause) = a.ended[army.index()] {
                self.log.push(format!("army {} ended ({})", army.index(), end_name(cause)));
            }
        }
        if let Some(o) = a.outcome {
            self.log.push(format!("game over: {} ({})", o.result_str(), o.termination.name()));
        }
        Ok(())
    }

    /// The person's move, then (unless `bot_later`) the bots' moves until it
    /// is the person's turn again or the game is over.
    pub fn play(&mut self, text: &str, bot_later: bool) -> Result<(), ApiError> {
        self.started()?;
        if self.over() {
            return Err(ApiError::conflict("the game is over"));
        }
        if self.truth.turn() != self.human {
            return Err(ApiError::conflict(format!("it is army {}'s turn (a bot)", self.truth.turn().index())));
        }
        let mv: Move = text.trim().parse().map_err(|e| ApiError::bad_request(format!("`{text}`: {e}")))?;
        let mut list = MoveList::new();
        self.infos[self.human.index()].legal_moves(&mut list);
        if !list.contains(mv) {
            return Err(ApiError::bad_request(format!("{mv} is not a legal move here")));
        }
        self.apply(mv)?;
        if !bot_later {
            self.bot_moves();
        }
        Ok(())
    }

    /// The bots play while it is not the person's turn and the game is on.
    pub fn bot_moves(&mut self) {
        for _ in 0..MAX_BOT_PLIES {
            if self.deployments.is_some() || self.over() || self.truth.turn() == self.human {
                return;
            }
            let seat = self.truth.turn();
            let i = seat.index();
            let Some(bot) = self.bots[i].as_mut() else { return };
            let chosen = match self.clocks[i].as_mut() {
                Some(clock) => {
                    // One clock per army (its seat always First): the plies of one game only grow.
                    bot.time_next_move(clock.start_move(junqi_core::Seat::First, self.truth.ply()), false);
                    let chosen = bot.choose(&self.infos[i], &mut self.rng);
                    clock.end_move();
                    chosen
                }
                None => bot.choose(&self.infos[i], &mut self.rng),
            };
            let mut list = MoveList::new();
            self.truth.legal_moves(&mut list);
            let mv = match chosen {
                Some(mv) if list.contains(mv) => mv,
                // A bot that finds no move, or an illegal one: the first
                // legal move is played for it and the log says so.
                other => {
                    self.log.push(format!(
                        "the bot of army {i} ({}) gave {} : the first legal move is played",
                        self.specs[i],
                        other.map_or("no move".to_string(), |m| format!("the illegal move {m}"))
                    ));
                    list[0]
                }
            };
            if self.apply(mv).is_err() {
                return;
            }
        }
    }

    /// The person gives up: their team loses.
    pub fn resign(&mut self) -> Result<(), ApiError> {
        self.started()?;
        if self.over() {
            return Err(ApiError::conflict("the game is over"));
        }
        self.resigned = true;
        self.log.push("you resign: your team loses".into());
        Ok(())
    }

    fn outcome(&self) -> Option<(Option<Team>, String)> {
        if let Some(o) = self.truth.outcome() {
            return Some((o.winner, o.termination.name().to_string()));
        }
        self.resigned.then(|| (Some(self.human.team().other()), "resignation".to_string()))
    }

    /// The person's information set (what the page is built from).
    pub fn seat_info(&self) -> &SiguoInfoSet {
        &self.infos[self.human.index()]
    }

    /// The page's view of the game, from the person's information set only
    /// (and, once the game is over, the referee's board); while deploying,
    /// the person's own pieces only.
    pub fn state(&self) -> SiguoState {
        let mut st = self.play_state();
        if let Some(d) = &self.deployments {
            let human = self.human;
            st.phase = "deploy".into();
            (st.your_turn, st.bot_to_move) = (false, false);
            st.legal.clear();
            st.board = vec![".".to_string(); st.board.len()];
            for &(sq, kind) in &d[human.index()].pieces {
                st.board[Node::in_zone(human, sq).expect("Red's half").index()] = token(human, Some(kind));
            }
            st.zone = junqi_core::board::squares(deployment_zone(junqi_core::Colour::Red))
                .filter_map(|sq| Node::in_zone(human, sq))
                .map(|n| n.to_string())
                .collect();
        }
        st
    }

    /// [`SiguoSession::state`] once the game has started.
    fn play_state(&self) -> SiguoState {
        let info = self.seat_info();
        let over = self.over();
        let your_turn = !over && info.turn() == self.human;
        let mut legal = Vec::new();
        if your_turn {
            let mut list = MoveList::new();
            info.legal_moves(&mut list);
            legal = list.iter().map(|m| m.to_string()).collect();
        }
        let outcome = self.outcome();
        let result = outcome.as_ref().map(|(w, _)| {
            Outcome { winner: *w, termination: junqi_siguo::Termination::TeamEliminated }.result_str().to_string()
        });
        let your_result = outcome.as_ref().map(|(w, _)| match w {
            None => "draw".to_string(),
            Some(t) if *t == self.human.team() => "win".into(),
            Some(_) => "loss".into(),
        });
        SiguoState {
            id: self.id,
            game: "siguo",
            mode: self.rules.mode.name().into(),
            phase: if over { "over" } else { "play" }.into(),
            seat: self.human.index() as u8,
            team: team_name(self.human.team()),
            players: self.specs.to_vec(),
            seed: (self.seed_chosen || over).then_some(self.seed),
            board: seat_board(info),
            zone: Vec::new(),
            turn: info.turn().index() as u8,
            your_turn,
            legal,
            moves: self.moves.iter().map(|m| m.to_string()).collect(),
            last_move: self.moves.last().map(|m| (m.from.to_string(), m.to.to_string())),
            log: self.log.clone(),
            ply: info.ply(),
            quiet: info.quiet(),
            ended: Army::ALL.iter().map(|&a| info.ended(a).map(end_name)).collect(),
            result,
            winner: outcome.as_ref().and_then(|(w, _)| w.map(team_name)),
            termination: outcome.map(|(_, t)| t),
            your_result,
            bot_to_move: !over && info.turn() != self.human,
            reveal: over.then(|| {
                Node::all()
                    .map(|n| self.truth.piece_at(n).map_or_else(|| ".".into(), |p| token(p.army, Some(p.kind))))
                    .collect()
            }),
            clocks_left_ms: self
                .clocks
                .iter()
                .any(Option::is_some)
                .then(|| self.clocks.iter().map(|c| c.as_ref().map(|c| c.remaining().as_millis() as u64)).collect()),
        }
    }

    /// The start position and the moves, for a test or a record.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The whole game as a four-player JGN record (every piece, the
    /// person's seat `person`), as `junqi export` writes a stored game:
    /// only once it is over.
    pub fn record(&self) -> Result<String, ApiError> {
        let Some((winner, termination)) = self.outcome() else {
            return Err(ApiError::conflict("the record is given once the game is over"));
        };
        let outcome = Outcome { winner, termination: junqi_siguo::Termination::TeamEliminated };
        let game = junqi_selfplay::SiguoGame {
            game_id: self.id,
            rules: self.rules.to_toml_string(),
            seed: self.seed,
            start: self.start.to_string(),
            moves: self.moves.iter().map(Move::to_string).collect(),
            result: outcome.result_str().to_string(),
            termination,
            plies: self.moves.len() as u32,
            bots: std::array::from_fn(
                |i| if i == self.human.index() { "person".into() } else { self.specs[i].clone() },
            ),
            code_version: junqi_selfplay::code_version(),
        };
        junqi_selfplay::siguo_jgn::siguo_record_text(&game, Some("junqi serve"), None).map_err(ApiError::unreadable)
    }
}

/// The start position of four deployments (armies 0–3).
fn start_from(rules: Rules, d: &[Deployment; 4]) -> Result<Position, ApiError> {
    Position::from_deployments(rules, [&d[0], &d[1], &d[2], &d[3]])
        .map_err(|e| ApiError::bad_request(format!("illegal deployment: {e}")))
}

/// The square of Red's half that node `name` of `army`'s zone stands for.
fn zone_square(name: &str, army: Army) -> Result<junqi_core::Square, ApiError> {
    let node: Node = name.parse().map_err(|e| ApiError::bad_request(format!("{e}")))?;
    node.square().filter(|_| node.zone() == Some(army)).ok_or_else(|| {
        ApiError::bad_request(format!(
            "{name} is not in your army's zone (army {}: `{}a1` … `{}e6`)",
            army.index(),
            army.letter(),
            army.letter()
        ))
    })
}

/// One node of the four-player board for the page.
#[derive(Serialize, Debug)]
pub struct SiguoNode {
    pub name: String,
    /// Column and row of the 17 × 17 grid (army 0 at the bottom), as
    /// junqi-siguo draws docs/siguo-board.svg.
    pub x: i32,
    pub y: i32,
    /// `post`, `camp` or `headquarters`.
    pub kind: &'static str,
    /// The army whose zone holds it; none in the centre.
    pub army: Option<u8>,
}

/// The four-player board's geometry: nodes and their road and railway
/// edges (node indices), from junqi-siguo's tables (`GET /api/siguo/board`).
#[derive(Serialize, Debug)]
pub struct SiguoGeometry {
    pub nodes: Vec<SiguoNode>,
    pub road: Vec<(usize, usize)>,
    pub rail: Vec<(usize, usize)>,
}

pub fn geometry() -> SiguoGeometry {
    let t = tables(false);
    let nodes = Node::all()
        .map(|n| {
            let (x, y) = n.coords();
            SiguoNode {
                name: n.to_string(),
                x,
                y,
                kind: match n.kind() {
                    NodeKind::Post => "post",
                    NodeKind::Camp => "camp",
                    NodeKind::Headquarters => "headquarters",
                },
                army: n.zone().map(|a| a.index() as u8),
            }
        })
        .collect();
    let edges = |adj: &Vec<Vec<Node>>| {
        let mut out = Vec::new();
        for a in Node::all() {
            for &b in &adj[a.index()] {
                if a < b {
                    out.push((a.index(), b.index()));
                }
            }
        }
        out
    };
    SiguoGeometry { nodes, road: edges(&t.road_adjacent), rail: edges(&t.rail_adjacent) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(seat: u8, seed: u64) -> NewSiguoGame {
        NewSiguoGame {
            mode: None,
            options: vec![],
            seat,
            bot: Some("random".into()),
            bots: None,
            seed: Some(seed),
            bot_later: false,
        }
    }

    #[test]
    fn a_siguo_anqi_game_shows_only_the_seat_kinds_until_the_end() {
        for seat in 0..4u8 {
            let mut s = SiguoSession::new(&req(seat, 11 + seat as u64)).unwrap();
            s.deploy(None).unwrap();
            assert_eq!(s.start().to_string(), Position::new_game(s.rules, s.seed).to_string(), "the seed's start");
            s.bot_moves();
            let mut n = 0;
            while s.state().phase == "play" && n < 400 {
                let st = s.state();
                assert!(st.your_turn, "{st:?}");
                assert_eq!(st.board, seat_board(s.seat_info()));
                for (node, t) in Node::all().zip(&st.board) {
                    let truth = s.truth.piece_at(node);
                    assert_eq!(t == ".", truth.is_none(), "{node}: {t}");
                    // A kind is shown only where the seat's information set
                    // has narrowed it to one (its own army, a shown flag, a
                    // deduction from the rulings), and then it is the truth.
                    let known = s.seat_info().known_kind(node);
                    assert_eq!(t.ends_with('?'), t != "." && known.is_none(), "{node}: {t}");
                    if let (Some(k), Some(p)) = (known, truth) {
                        assert_eq!(k, p.kind, "{node}");
                    }
                }
                s.play(&st.legal[n % st.legal.len()], n % 2 == 0).unwrap();
                s.bot_moves();
                n += 1;
            }
            if s.state().phase == "play" {
                s.resign().unwrap();
            }
            let st = s.state();
            assert!(st.result.is_some() && st.reveal.is_some() && st.seed.is_some());
        }
    }

    /// The person's proposal as the page sends it: node name to kind letter.
    fn placement(s: &SiguoSession) -> HashMap<String, String> {
        let st = s.state();
        Node::all()
            .zip(&st.board)
            .filter(|(_, t)| *t != ".")
            .map(|(n, t)| (n.to_string(), t[1..].to_string()))
            .collect()
    }

    #[test]
    fn the_person_edits_their_deployment_before_the_first_move_and_the_bots_keep_theirs() {
        for (mode, seat) in [("anqi", 0u8), ("shuangming", 1), ("quanming", 1)] {
            let army = Army::new(seat as usize).unwrap();
            let mut r = req(seat, 21);
            r.mode = Some(mode.into());
            let mut s = SiguoSession::new(&r).unwrap();
            let st = s.state();
            assert_eq!((st.phase.as_str(), st.your_turn, st.bot_to_move), ("deploy", false, false));
            assert_eq!(st.zone.len(), 25);
            // Only the person's own 25 pieces, in their zone, whatever the mode shows at the table.
            let own: Vec<&String> = st.board.iter().filter(|t| *t != ".").collect();
            assert_eq!(own.len(), 25, "{mode}");
            assert!(own.iter().all(|t| t.starts_with(&seat.to_string()) && !t.ends_with('?')), "{own:?}");
            assert!(st.legal.is_empty());
            assert!(s.play("sa1-sa2", false).unwrap_err().message.contains("deploy your pieces first"));
            assert!(s.resign().is_err());
            s.bot_moves();
            assert!(s.moves.is_empty(), "no bot moves before the person deploys");
            // Swap the flag with a piece outside the headquarters: refused.
            let mut p = placement(&s);
            let flag = p.iter().find(|(_, k)| *k == "F").map(|(n, _)| n.clone()).unwrap();
            let other = p.iter().find(|(n, _)| zone_square(n, army).unwrap().to_string() == "c3").unwrap().0.clone();
            let mut bad = p.clone();
            bad.insert(other.clone(), "F".into());
            bad.insert(flag.clone(), p[&other].clone());
            let err = s.deploy(Some(&bad)).unwrap_err();
            assert!(err.message.contains("illegal deployment"), "{}", err.message);
            let mut outside = p.clone();
            let k = outside.remove(&other).unwrap();
            outside.insert(format!("{}c3", army.next().letter()), k);
            assert!(s.deploy(Some(&outside)).unwrap_err().message.contains("not in your army's zone"));
            assert!(s.deploy(Some(&HashMap::new())).is_err(), "an empty placement");
            assert_eq!(s.state().phase, "deploy", "refusals leave the deployment open");
            // A legal swap (two pieces of the back rows) is taken as sent.
            let (a, b) = (&*format!("{}b2", army.letter()), &*format!("{}d2", army.letter()));
            let (ka, kb) = (p[a].clone(), p[b].clone());
            p.insert(a.into(), kb.clone());
            p.insert(b.into(), ka.clone());
            let seed_start = Position::new_game(s.rules, 21);
            s.deploy(Some(&p)).unwrap();
            let st = s.state();
            assert_eq!(st.phase, "play");
            let at = |name: &str| s.start().piece_at(name.parse().unwrap()).map(|p| p.kind.letter().to_string());
            assert_eq!((at(a), at(b)), (Some(kb), Some(ka)));
            for n in Node::all().filter(|n| n.zone() != Some(army)) {
                assert_eq!(s.start().piece_at(n), seed_start.piece_at(n), "{n}: the bots deploy from the seed");
            }
            assert!(s.deploy(None).unwrap_err().message.contains("deployment is over"));
            assert!(s.shuffle().is_err());
        }
    }

    #[test]
    fn a_shuffle_draws_another_legal_deployment() {
        let mut s = SiguoSession::new(&req(2, 8)).unwrap();
        let before = placement(&s);
        s.shuffle().unwrap();
        let after = placement(&s);
        assert_ne!(before, after);
        assert_eq!(after.len(), 25);
        s.deploy(Some(&after)).unwrap();
        assert_eq!(s.state().phase, "play");
    }

    #[test]
    fn the_record_is_given_at_the_end_and_reads_back_as_the_game() {
        let mut s = SiguoSession::new(&req(0, 31)).unwrap();
        assert!(s.record().is_err(), "no record while deploying");
        s.deploy(None).unwrap();
        for k in 0..5 {
            let legal = s.state().legal;
            s.play(&legal[k % legal.len()], false).unwrap();
        }
        assert_eq!(s.record().unwrap_err().status.as_u16(), 409, "no record while the game is on");
        s.resign().unwrap();
        let text = s.record().unwrap();
        let records = junqi_selfplay::siguo_jgn::parse_siguo_records(&text).unwrap();
        assert_eq!(records.len(), 1);
        let g = &records[0].game;
        assert_eq!(g.moves, s.state().moves);
        assert_eq!(g.start, s.start().to_string());
        assert_eq!((g.result.as_str(), g.termination.as_str()), ("0-1", "resignation"));
        assert_eq!(g.bots[0], "person");
        assert_eq!(records[0].event.as_deref(), Some("junqi serve"));
    }

    #[test]
    fn bad_new_games_are_refused() {
        let mut r = req(4, 1);
        assert!(SiguoSession::new(&r).err().unwrap().message.contains("seat 4"));
        r.seat = 0;
        r.bot = Some("nope".into());
        assert!(SiguoSession::new(&r).err().unwrap().message.contains("unknown four-player bot"));
        r.bot = None;
        r.bots = Some(vec!["random".into()]);
        assert!(SiguoSession::new(&r).err().unwrap().message.contains("four"));
        r.bots = Some(vec!["".into(), "random".into(), "greedy".into(), "heuristic".into()]);
        let s = SiguoSession::new(&r).unwrap();
        assert_eq!(s.state().players, ["you", "random", "greedy", "heuristic"]);
        r.mode = Some("fanqi".into());
        assert!(SiguoSession::new(&r).is_err());
    }
}
