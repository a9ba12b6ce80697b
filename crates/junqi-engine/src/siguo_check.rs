//! The four-player suite of `junqi engine-check` (docs/protocol.md, "Four
//! players"), run on the process [`crate::check`] started, for an engine
//! whose handshake has `plays siguo …` lines. It sends the lines our
//! four-player host sends ([`crate::siguo_client`]): a short game of every
//! mode the engine plays in every seat, against random moves (`newgame
//! siguo` with every option and a seed above 2^63, the seat's position
//! line of view, start view and events, `legal`, each kind of `go` with the
//! host's `timeout`, `result` from the seat's team's side); a position late
//! in a long game (a line of some kilobytes); then lines the engine must
//! refuse with `error` and go on: `deploy` out of place (after a game's
//! first position, or at all from an engine without `deploys siguo`) and a
//! `newgame` with seat 4. An engine that said `deploys siguo` is sent
//! `deploy` after each `newgame`, and its deployment must be legal.

use crate::check::{limits, refused, Hello, Peer, Report, Suites, CHECK_DEAL_SEED, CHECK_SEED};
use crate::grammar::{Command, GameResult};
use crate::siguo::{decode_siguo_deployment, newgame_line, SiguoRecord};
use crate::siguo_client::check_siguo;
use junqi_core::GameRng;
use junqi_siguo::{deploy_armies, Announcement, Army, Mode, Move, MoveList, Position, Rules, SiguoInfoSet};
use rand::seq::IndexedRandom;

/// The engine's moves in each game (then the game is cut short).
const PLIES: usize = 8;
/// Random games played to find a long one.
const LONG_GAMES: u64 = 8;

/// A game under way as the host keeps it: the true position, every seat's
/// information set, and the engine's seat's record of events.
struct Table {
    pos: Position,
    infos: Vec<SiguoInfoSet>,
    record: SiguoRecord,
    seat: Army,
}

impl Table {
    fn new(rules: Rules, deal: u64, seat: Army) -> Table {
        Table::from_start(Position::new_game(rules, deal), seat)
    }

    fn from_start(pos: Position, seat: Army) -> Table {
        let infos: Vec<SiguoInfoSet> = Army::ALL.iter().map(|&a| SiguoInfoSet::new(&pos, a)).collect();
        let record = SiguoRecord::new(&infos[seat.index()]);
        Table { pos, infos, record, seat }
    }

    fn legal(&self) -> Vec<Move> {
        let mut list = MoveList::new();
        self.pos.legal_moves(&mut list);
        list.iter().copied().collect()
    }

    /// Play `mv` and announce it to every seat.
    fn play(&mut self, mv: Move) -> Result<(), String> {
        let before = self.pos.clone();
        let effect = self.pos.play(mv).map_err(|e| format!("the referee refused {mv}: {e}"))?;
        let a = Announcement::new(&before, mv, &effect, &self.pos);
        for info in &mut self.infos {
            info.update(&a);
        }
        self.record.observe(&a);
        Ok(())
    }

    fn random_move(&self, rng: &mut GameRng) -> Move {
        *self.legal().choose(rng).expect("a game not over has a move")
    }

    /// Ask the engine for its seat's move (position, legal, go) and check it.
    fn ask(&self, peer: &mut Peer, n: usize, hello: &Hello) -> Result<Move, String> {
        let info = &self.infos[self.seat.index()];
        peer.silent_line(&format!("position {}", self.record.position(info)))?;
        // The seat's legal moves as the host computes them, from its information set.
        let mut list = MoveList::new();
        info.legal_moves(&mut list);
        let legal: Vec<Move> = list.iter().copied().collect();
        let words: Vec<String> = legal.iter().map(Move::to_string).collect();
        peer.silent_line(&format!("legal {}", words.join(" ")))?;
        // The four-player host tells every engine its timeout.
        let mut limits = limits(n, hello, peer.timeout);
        limits.timeout = Some(peer.timeout.as_millis() as u64);
        let (best, mv): (String, Move) = peer.go(limits, "a four-player move")?;
        if !legal.contains(&mv) {
            return Err(format!("`{best}` is not legal for seat {} at ply {}", self.seat.index(), self.pos.ply()));
        }
        Ok(mv)
    }

    /// `result` from the seat's team's side; a game cut short is told as a draw.
    fn result(&self, peer: &mut Peer) -> Result<(), String> {
        let (result, termination) = match self.pos.outcome() {
            Some(o) if o.winner == Some(self.seat.team()) => (GameResult::Win, o.termination.name()),
            Some(o) if o.winner.is_some() => (GameResult::Loss, o.termination.name()),
            Some(o) => (GameResult::Draw, o.termination.name()),
            None => (GameResult::Draw, "max_plies"),
        };
        peer.silent(&Command::Result { result, termination: termination.to_string() })
    }
}

/// A short game of `rules`, the engine playing `seat` against random moves
/// (its army deployed by itself when it said `deploys siguo`).
fn game(peer: &mut Peer, hello: &Hello, rules: Rules, seat: Army) -> Result<(), String> {
    peer.silent_line(&newgame_line(&rules, seat, CHECK_SEED))?;
    let mut rng: GameRng = junqi_core::rng_from_seed(CHECK_SEED);
    let deal = Position::new_game(rules, CHECK_DEAL_SEED);
    let start = if hello.siguo_deploys { deployed(peer, &deal, seat)? } else { deal };
    let mut table = Table::from_start(start, seat);
    let mut moved = 0;
    while table.pos.outcome().is_none() && moved < PLIES {
        let mv = if table.pos.turn() == seat {
            moved += 1;
            table.ask(peer, moved - 1, hello)?
        } else {
            table.random_move(&mut rng)
        };
        table.play(mv)?;
    }
    table.result(peer)
}

/// `deploy` and the engine's `deployment` of `seat` (legal, on its zone),
/// in place of the deal's.
fn deployed(peer: &mut Peer, deal: &Position, seat: Army) -> Result<Position, String> {
    peer.send(&Command::Deploy { timeout: Some(peer.timeout.as_millis() as u64) })?;
    let line = peer.answer("deployment")?.pop().expect("ends with its keyword");
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let own = decode_siguo_deployment(&words, seat, deal.rules()).map_err(|e| format!("`{line}`: {e}"))?;
    let start = deploy_armies(deal, CHECK_DEAL_SEED, |army, _, _| (army == seat).then(|| own.clone()));
    start.map_err(|e| format!("`{line}`: {e}"))
}

/// The longest of [`LONG_GAMES`] games of random moves, and the engine's
/// move for the army to move before its last move: the longest position
/// line of the check (some kilobytes), in a game whose `newgame` the
/// engine's process has just been sent.
fn late_position(peer: &mut Peer, hello: &Hello, rules: Rules) -> Result<(), String> {
    let mut rng: GameRng = junqi_core::rng_from_seed(CHECK_SEED);
    let mut longest = (0, Vec::new());
    for deal in 0..LONG_GAMES {
        let mut pos = Position::new_game(rules, CHECK_DEAL_SEED.wrapping_add(deal));
        let mut moves = Vec::new();
        let mut list = MoveList::new();
        while pos.outcome().is_none() {
            pos.legal_moves(&mut list);
            let mv = *list.as_slice().choose(&mut rng).expect("a game not over has a move");
            pos.play(mv).map_err(|e| format!("the referee refused {mv}: {e}"))?;
            moves.push(mv);
        }
        if moves.len() > longest.1.len() {
            longest = (deal, moves);
        }
    }
    let (deal, mut moves) = longest;
    // Before the last move: a position where the game is not over.
    moves.pop();
    let mut pos = Position::new_game(rules, CHECK_DEAL_SEED.wrapping_add(deal));
    for &mv in &moves {
        pos.play(mv).map_err(|e| format!("the referee refused {mv}: {e}"))?;
    }
    let mut table = Table::new(rules, CHECK_DEAL_SEED.wrapping_add(deal), pos.turn());
    for mv in moves {
        table.play(mv)?;
    }
    peer.silent_line(&newgame_line(&rules, table.seat, CHECK_SEED))?;
    let mv = table.ask(peer, 0, hello)?;
    table.play(mv)?;
    table.result(peer)
}

/// Run the four-player suite if the engine announces four-player rules (or
/// `suites` asks for it alone, when its absence fails); whether every step
/// passed.
pub(crate) fn run(report: &mut Report, peer: &mut Peer, hello: &Hello, suites: Suites) -> bool {
    if hello.siguo_plays.is_empty() {
        let why = "the engine announces no `plays siguo <mode>` line";
        return match suites {
            Suites::FourPlayer => report.step("siguo", Err(format!("{why} (docs/protocol.md, Four players)"))),
            _ => report.step(&format!("siguo: skipped, {why}"), Ok(())),
        };
    }
    let mut played = None;
    for mode in Mode::ALL {
        let rules = Rules::preset(mode);
        if let Err(why) = check_siguo(&hello.siguo_plays, &rules) {
            report.step(&format!("siguo {mode}: skipped, {why}"), Ok(()));
            continue;
        }
        for seat in Army::ALL {
            let name = format!("siguo {mode} as seat {}", seat.index());
            if !report.step(&name, game(peer, hello, rules, seat)) {
                return false;
            }
        }
        played.get_or_insert(rules);
    }
    let Some(rules) = played else {
        return report.step("siguo", Err("the engine's `plays siguo` lines name no mode it plays".into()));
    };
    let late = format!("siguo {}: a position late in a long game", rules.mode);
    if !report.step(&late, late_position(peer, hello, rules)) {
        return false;
    }
    // Refused, and the engine goes on (`isready` is still answered).
    let still_ready = |peer: &mut Peer| peer.send(&Command::IsReady).and_then(|()| peer.answer("readyok").map(drop));
    let deploy_line = Command::Deploy { timeout: Some(peer.timeout.as_millis() as u64) }.to_string();
    let deploy = refused(peer, &deploy_line);
    let step = match hello.siguo_deploys {
        // The late position's game has begun: a deployment is out of place.
        true => "siguo: `deploy` after a game's first position is answered with `error`",
        false => "siguo: `deploy` is answered with `error` (no `deploys siguo` line)",
    };
    if !report.step(step, deploy.and_then(|()| still_ready(peer))) {
        return false;
    }
    let seat4 = newgame_line(&rules, Army::ALL[0], CHECK_SEED).replace(" seat 0 ", " seat 4 ");
    report.step(
        "siguo: `newgame … seat 4` is answered with `error`",
        refused(peer, &seat4).and_then(|()| still_ready(peer)),
    )
}
