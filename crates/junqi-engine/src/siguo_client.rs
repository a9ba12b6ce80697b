//! `engine:cmd=PROGRAM ARGS` as a four-player bot of `arena --siguo` and
//! `sprt --siguo` (docs/protocol.md, "Four players").
//!
//! One engine process per army the spec plays in a game (a team's bot plays
//! two armies, so two processes per game in flight); a finished game's
//! processes wait for the next game of the same spec, which begins with
//! `newgame` as always. Each move the process is sent the seat's position
//! line (its view, its start view and the referee's announcements since),
//! the legal moves and `go`; a process that crashes, hangs past its
//! timeout, says `error` or answers with a malformed or illegal move
//! forfeits the game for its army's team (the arena records it), and is
//! killed; a fresh one starts for the next game.

use crate::client::{engine_config, probe, put_idle, take_idle, EngineConfig, EngineProcess};
use crate::grammar::{Command, GameResult};
use crate::siguo::{decode_siguo_deployment, newgame_line, SiguoRecord};
use junqi_bots::BotSpec;
use junqi_core::setup::Deployment;
use junqi_siguo::{Announcement, Army, Move, MoveList, Rules, SiguoAgent, SiguoInfoSet, Team, OPTION_NAMES};
use rand::RngCore;
use std::time::Duration;

/// Whether an engine whose handshake had these `plays siguo …` lines (the
/// words after `siguo`) plays `rules`; the error says what it cannot play.
/// An engine with no such line plays no four-player rules.
pub fn check_siguo(plays: &[String], rules: &Rules) -> Result<(), String> {
    if plays.is_empty() {
        return Err("it plays no four-player rules (its handshake has no `plays siguo <mode>` line)".into());
    }
    let lines: Vec<Vec<&str>> = plays.iter().map(|p| p.split_whitespace().collect()).collect();
    let Some(line) = lines.iter().find(|l| l.first() == Some(&rules.mode.name())) else {
        let modes: Vec<&str> = lines.iter().filter_map(|l| l.first().copied()).collect();
        return Err(format!("it plays four-player {} only, not {}", modes.join(" and "), rules.mode));
    };
    for word in &line[1..] {
        let (name, allowed) =
            word.split_once('=').ok_or_else(|| format!("plays siguo: `{word}` is not <option>=<values>"))?;
        if !OPTION_NAMES.contains(&name) {
            return Err(format!("plays siguo: `{name}` is not a four-player rule option"));
        }
        let value = rules.value(name).expect("a known option");
        if !allowed.split(',').any(|a| a == value) {
            return Err(format!("it plays {name}={allowed} only, not {name}={value}"));
        }
    }
    Ok(())
}

/// The factory registered with the arena: `engine:…` specs only.
pub fn build_siguo_engine(spec: &str, rules: &Rules) -> Option<Result<Box<dyn SiguoAgent>, String>> {
    if !spec.trim().starts_with("engine:") {
        return None;
    }
    Some(SiguoEngine::new(spec, rules).map(|e| Box::new(e) as Box<dyn SiguoAgent>))
}

/// The pool key of a four-player engine's idle processes (never lent to a
/// two-player bot of the same spec, whose games begin differently).
fn pool_key(spec: &str) -> String {
    format!("siguo {spec}")
}

/// An external engine playing one army of a four-player game.
pub struct SiguoEngine {
    config: EngineConfig,
    process: Option<EngineProcess>,
    record: Option<SiguoRecord>,
    /// The army it plays in the game under way, and its rules.
    seat: Option<Army>,
    rules: Option<Rules>,
    /// Its handshake had `deploys siguo`: it is asked for its army's deployment.
    deploys: bool,
    /// Time left on this game's clock (with `tc`).
    remaining: Duration,
}

impl SiguoEngine {
    /// Check the spec, start its engine once (refused when it does not
    /// speak the protocol or does not play `rules`).
    pub fn new(spec: &str, rules: &Rules) -> Result<SiguoEngine, String> {
        let parsed = BotSpec::parse(spec).map_err(|e| e.to_string())?;
        let mut config = engine_config(&parsed).map_err(|e| e.to_string())?;
        // The spec as given names the pool and the games' records.
        config.spec = spec.trim().to_string();
        let (_, siguo, deploys) = probe(&config).map_err(|e| format!("the engine does not start: {e}"))?;
        check_siguo(&siguo, rules).map_err(|e| format!("bot `{spec}` cannot play these rules: {e}"))?;
        let remaining = config.clock.map_or(Duration::ZERO, |(base, _)| base);
        Ok(SiguoEngine { config, process: None, record: None, seat: None, rules: None, deploys, remaining })
    }

    fn process(&mut self) -> Result<&mut EngineProcess, String> {
        if self.process.is_none() {
            // The probe's process waits under the spec itself.
            let idle = take_idle(&pool_key(&self.config.spec)).or_else(|| take_idle(&self.config.spec));
            self.process = Some(match idle {
                Some(p) => p,
                None => EngineProcess::start(&self.config)?,
            });
        }
        Ok(self.process.as_mut().expect("started above"))
    }

    fn try_choose(&mut self, info: &SiguoInfoSet) -> Result<Move, String> {
        let record = self.record.as_ref().ok_or("asked for a move before the game started")?;
        let position = record.position(info);
        let ply = info.ply();
        let mut legal = MoveList::new();
        info.legal_moves(&mut legal);
        // As for two players (see EngineConfig::move_limits).
        let (mut limits, timeout) = self.config.move_limits(self.remaining);
        limits.timeout = Some(timeout.as_millis() as u64);
        let (clock, mut remaining) = (self.config.clock, self.remaining);
        let process = self.process()?;
        process.drain()?;
        process.send_line(&format!("position {position}"))?;
        let moves: Vec<String> = legal.iter().map(Move::to_string).collect();
        process.send_line(&format!("legal {}", moves.join(" ")))?;
        let (lines, text) = process.go(limits, timeout, clock, &mut remaining, ply)?;
        self.remaining = remaining;
        let best = lines.last().expect("answer ends with its keyword");
        let mv: Move = text.parse().map_err(|_| format!("`{best}`: `{text}` is not a four-player move"))?;
        if !legal.contains(mv) {
            return Err(format!("illegal move {mv} at ply {ply}"));
        }
        Ok(mv)
    }

    /// Why this game is lost: the process is killed (a fresh one starts for the next game).
    fn fail(&mut self, reason: String) -> String {
        self.process = None;
        self.record = None;
        self.seat = None;
        self.rules = None;
        reason
    }

    /// `deploy` (with the host's `timeout` to a version 3 engine) and the
    /// `deployment` it answers, read on the seat's zone and checked.
    fn try_deploy(&mut self) -> Result<Deployment, String> {
        let (seat, rules) = match (self.seat, self.rules) {
            (Some(seat), Some(rules)) => (seat, rules),
            _ => return Err("asked for a deployment before the game started".into()),
        };
        let timeout = self.config.timeout;
        let line = self.process()?.deploy(timeout)?;
        let words: Vec<&str> = line.split_whitespace().skip(1).collect();
        decode_siguo_deployment(&words, seat, &rules).map_err(|e| format!("bad {e}"))
    }
}

impl SiguoAgent for SiguoEngine {
    fn start(&mut self, rules: &Rules, seat: Army, rng: &mut dyn RngCore) -> Result<(), String> {
        // As the two-player client: the seed from the bots' random stream,
        // nothing an engine could trace back to the deal.
        let seed = rng.next_u64();
        if let Some((base, _)) = self.config.clock {
            self.remaining = base;
        }
        self.record = None;
        self.seat = Some(seat);
        self.rules = Some(*rules);
        let line = newgame_line(rules, seat, seed);
        let sent = self.process().and_then(|p| p.send_line(&line));
        sent.map_err(|e| self.fail(e))
    }

    /// Asked only of an engine that said `deploys siguo`.
    fn deploy(&mut self) -> Result<Option<Deployment>, String> {
        if !self.deploys {
            return Ok(None);
        }
        self.try_deploy().map(Some).map_err(|e| self.fail(e))
    }

    fn begin(&mut self, info: &SiguoInfoSet) {
        self.record = Some(SiguoRecord::new(info));
    }

    fn observe(&mut self, announcement: &Announcement) {
        if let Some(record) = &mut self.record {
            record.observe(announcement);
        }
    }

    fn choose(&mut self, info: &SiguoInfoSet) -> Result<Move, String> {
        self.try_choose(info).map_err(|e| self.fail(e))
    }

    /// `result` from the seat's team's side (a failure costs nothing: the game is over).
    fn finish(&mut self, winner: Option<Team>, termination: &str) {
        self.record = None;
        let Some(seat) = self.seat.take() else { return };
        let Some(process) = self.process.as_mut() else { return };
        let result = match winner {
            None => GameResult::Draw,
            Some(team) if team == seat.team() => GameResult::Win,
            Some(_) => GameResult::Loss,
        };
        let line = Command::Result { result, termination: termination.to_string() }.to_string();
        if process.send_line(&line).is_err() {
            self.process = None;
        }
    }
}

impl Drop for SiguoEngine {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            put_idle(&pool_key(&self.config.spec), process);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_siguo::Mode;

    #[test]
    fn plays_siguo_lines_limit_modes_and_option_values() {
        let anqi = Rules::preset(Mode::Anqi);
        let mut flying = anqi;
        flying.apply_override("bomb_flies=true").unwrap();
        let plays = vec!["anqi bomb_flies=false".to_string()];
        assert_eq!(check_siguo(&plays, &anqi), Ok(()));
        assert!(check_siguo(&plays, &flying).unwrap_err().contains("bomb_flies=true"));
        assert!(check_siguo(&plays, &Rules::preset(Mode::Quanming)).unwrap_err().contains("anqi only"));
        assert!(check_siguo(&[], &anqi).unwrap_err().contains("no four-player rules"));
        assert!(check_siguo(&["anqi colour=red".to_string()], &anqi).is_err());
    }
}
