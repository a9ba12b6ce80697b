//! 四国军棋 (the four-player game, docs/rules.md §10) in the browser: a
//! person plays one seat, bots (one spec per seat, the ally's included) the
//! other three. The referee (the true [`Position`]) stays here; the page
//! gets [`SiguoState`], built from the person's [`SiguoInfoSet`] only, so in
//! 四国暗棋 no kind of another army leaves the server while the game is on
//! (in 双明 the ally's kinds, in 全明 every kind, as the seat sees them at a
//! table). The referee's board is given only once the game is over.
//!
//! Each army deploys at random from the game's seed (§10.5); the person's
//! deployment is not edited in this first version.

use crate::ApiError;
use junqi_core::piece::Kind;
use junqi_core::{rng_from_seed, GameRng};
use junqi_siguo::{
    bot_from_spec, tables, Army, Move, MoveList, Node, NodeKind, Outcome, Position, Rules, SiguoBot, SiguoInfoSet, Team,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
fn token(army: Army, kind: Option<Kind>) -> String {
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
    /// `play` or `over`.
    pub phase: String,
    /// The person's seat (army 0–3) and team (`A`: armies 0 and 2).
    pub seat: u8,
    pub team: String,
    /// Each seat's player: `you` or the bot's spec.
    pub players: Vec<String>,
    /// The seed: only once the game is over, unless the person chose it.
    pub seed: Option<u64>,
    /// 129 tokens in node order ([`seat_board`]).
    pub board: Vec<String>,
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
        let start = Position::new_game(rules, seed);
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
            if self.over() || self.truth.turn() == self.human {
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
    /// (and, once the game is over, the referee's board).
    pub fn state(&self) -> SiguoState {
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

/// `GET /api/siguo/game?d=ID&id=N&view=all|0|1|2|3`.
#[derive(Deserialize, Debug)]
pub struct SiguoReplayQuery {
    pub d: String,
    pub id: u64,
    #[serde(default)]
    pub view: Option<String>,
}

/// A stored four-player game step by step, as the referee (`all`) or one
/// seat (its information set, rebuilt from the announcements) saw it.
#[derive(Serialize, Debug)]
pub struct SiguoReplay {
    pub id: u64,
    pub view: String,
    pub mode: String,
    pub bots: Vec<String>,
    pub result: String,
    pub termination: String,
    pub moves: Vec<String>,
    /// The board (129 tokens) at the start and after each move.
    pub frames: Vec<Vec<String>>,
    /// The referee's announcement of each move, in words.
    pub events: Vec<String>,
}

/// Replay `g` for `view` (`None`: the referee, every kind).
pub fn replay_stored(g: &junqi_selfplay::SiguoGame, view: Option<Army>) -> Result<SiguoReplay, ApiError> {
    let bad = |m: String| ApiError::unreadable(format!("game {}: {m}", g.game_id));
    let rules = Rules::from_toml_str(&g.rules).map_err(|e| bad(format!("rules: {e}")))?;
    let mut pos = junqi_siguo::parse(&g.start, rules).map_err(|e| bad(format!("start: {e}")))?;
    let mut info = view.map(|a| SiguoInfoSet::new(&pos, a));
    let board = |pos: &Position, info: &Option<SiguoInfoSet>| match info {
        Some(i) => seat_board(i),
        None => {
            Node::all().map(|n| pos.piece_at(n).map_or_else(|| ".".into(), |p| token(p.army, Some(p.kind)))).collect()
        }
    };
    let mut frames = vec![board(&pos, &info)];
    let mut events = Vec::new();
    for (k, text) in g.moves.iter().enumerate() {
        let mv: Move = text.parse().map_err(|e| bad(format!("move {}: {e}", k + 1)))?;
        let before = pos.clone();
        let effect = pos.play(mv).map_err(|e| bad(format!("move {}: {e}", k + 1)))?;
        let a = junqi_siguo::Announcement::new(&before, mv, &effect, &pos);
        if let Some(i) = info.as_mut() {
            i.update(&a);
        }
        events.push(format!("{}. army {} {mv}: {:?}", k + 1, a.mover.index(), a.ruling));
        frames.push(board(&pos, &info));
    }
    Ok(SiguoReplay {
        id: g.game_id,
        view: view.map_or("all".to_string(), |a| a.index().to_string()),
        mode: rules.mode.name().into(),
        bots: g.bots.to_vec(),
        result: g.result.clone(),
        termination: g.termination.clone(),
        moves: g.moves.clone(),
        frames,
        events,
    })
}

/// Game `id` of the four-player dataset in `dir` (its `games/` shards).
pub fn find_stored(dir: &std::path::Path, id: u64) -> Result<junqi_selfplay::SiguoGame, ApiError> {
    let games = dir.join("games");
    let mut shards: Vec<_> = std::fs::read_dir(&games)
        .map_err(|e| ApiError::not_found(format!("{}: {e}", games.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    shards.sort();
    for shard in shards {
        let list = junqi_selfplay::read_siguo_games_file(&shard).map_err(|e| ApiError::unreadable(e.to_string()))?;
        if let Some(g) = list.into_iter().find(|g| g.game_id == id) {
            return Ok(g);
        }
    }
    Err(ApiError::not_found(format!("no four-player game {id} in this dataset")))
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
