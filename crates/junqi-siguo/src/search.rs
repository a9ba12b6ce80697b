//! `mcts:N`: an information-set search for one seat with a team value.
//!
//! The bot decides from its seat's [`SiguoInfoSet`] only. Each of its `N`
//! simulations draws a world with [`SiguoInfoSet::sample_world`] (from the
//! bot's random stream, so the search is deterministic given it) and walks
//! one tree shared by every world (single-observer information-set MCTS):
//! the tree's edges are moves, a node's children are the moves tried there,
//! and at each node only the moves legal in the simulation's world compete
//! (UCB1 with availability counts). At the root the heuristic's scores of
//! the seat's moves ([`HeuristicBot::scores`], from the same information
//! set) give a softmax prior: untried root moves are tried best first, and
//! a progressive bias (the prior over 1 + visits) is added to their UCB
//! value. One new node is added per simulation;
//! its world is then played on by a short rollout (each army takes a flag,
//! else its most valuable winning capture, else moves at random: the kinds
//! are the world's) and valued by material (or by the result where the game
//! ended).
//!
//! The game is zero-sum between the teams (armies 0 and 2 against 1 and 3),
//! so every edge keeps the value of team A (a win 1, a draw ½, a loss 0) and
//! the army that moves in the simulation's world at that node chooses by its
//! own team's value: an ally maximises the same value as the seat, an enemy
//! minimises it. The army to move is read from the world ([`Position::turn`]
//! skips ended armies), never derived from the depth, so skipped turns cost
//! no simulation and the sign is always that of whoever actually moved.
//!
//! By time: `mcts:sims=N,movetime=MS` (or `mcts:movetime=MS`, `sims` then
//! [`TIMED_SIMS`]) stops at the deadline or after `N` simulations, whichever
//! comes first, as the two-player search (junqi-bots' `mcts::clock`): it
//! looks at the clock after every simulation and always makes at least one,
//! so a move always comes back. A host's time for one decision (`junqi
//! engine --siguo`'s `go movetime`, `junqi play --siguo --tc`) comes through
//! [`SiguoBot::time_next_move`].

use crate::board::{Army, Team};
use crate::bots::{piece_value, HeuristicBot, SiguoBot};
use crate::infoset::{ruling, Ruling, SiguoInfoSet};
use crate::position::{Move, MoveList, Position};
use junqi_core::piece::Kind;
use rand::{Rng, RngCore};
use std::time::{Duration, Instant};

/// The search's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// Simulations (sampled worlds) per decision.
    pub simulations: u32,
    /// Rollout plies (captures first, else random) played past a new node
    /// before it is valued.
    pub rollout_plies: u32,
    /// The UCB1 exploration constant.
    pub exploration: f64,
    /// Weight of the root's progressive bias: a root move's
    /// [`HeuristicBot::scores`] prior (softmax) times this, over 1 + its
    /// visits, is added to its UCB value; 0 searches without it.
    pub prior: f64,
    /// Time per decision (`movetime`): the search stops at the deadline,
    /// after at least one simulation; `None` searches by simulations only.
    pub movetime: Option<Duration>,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig { simulations: 200, rollout_plies: 4, exploration: 0.7, prior: PRIOR, movetime: None }
    }
}

const PRIOR: f64 = 1.0;

/// The simulations cap of a search by time given no `sims`: time decides.
pub const TIMED_SIMS: u32 = 100_000_000;

/// The longest `movetime`: an hour (as the two-player search's).
const MAX_MOVETIME_MS: u64 = 3_600_000;

/// Is the search past `deadline` after `done` simulations? Never before the
/// first one, so a move always comes back (junqi-bots' search stops alike).
fn out_of_time(deadline: Option<Instant>, done: u32) -> bool {
    done > 0 && deadline.is_some_and(|d| Instant::now() >= d)
}

/// What an army that has not ended is worth in the material value, besides
/// its pieces (its flag still stands: an army ends when it falls).
const ARMY_WORTH: f64 = 60.0;
/// The material difference at which the value is tanh(1) away from a draw.
const SCALE: f64 = 40.0;

fn material_worth(kind: Kind) -> f64 {
    match kind {
        Kind::Flag => 0.0,
        k => piece_value(k) as f64,
    }
}

/// Team A's value of a world: its result where the game is over, else
/// ½ + ½·tanh((material of A − material of B) / SCALE), where an army that
/// has not ended counts [`ARMY_WORTH`] and its pieces' values.
pub fn team_a_value(pos: &Position) -> f64 {
    if let Some(outcome) = pos.outcome() {
        return outcome.score(Team::A);
    }
    let mut m = [0.0f64; 4];
    for army in Army::ALL {
        if pos.ended(army).is_none() {
            m[army.index()] += ARMY_WORTH;
        }
    }
    for (_, piece) in pos.pieces() {
        if pos.ended(piece.army).is_none() {
            m[piece.army.index()] += material_worth(piece.kind);
        }
    }
    let diff: f64 = Army::ALL.iter().map(|a| if a.team() == Team::A { m[a.index()] } else { -m[a.index()] }).sum();
    0.5 + 0.5 * (diff / SCALE).tanh()
}

/// A rollout's move in a world (whose kinds are all drawn): a capture of a
/// flag if there is one, else the capture that wins the most valuable
/// piece, else a uniformly random move.
fn rollout_move(world: &Position, moves: &MoveList, rng: &mut dyn RngCore) -> Move {
    let mover = world.turn().team();
    let rules = world.rules();
    let mut best: Option<(u32, Move)> = None;
    for &mv in moves.iter() {
        let (Some(a), Some(d)) = (world.piece_at(mv.from), world.piece_at(mv.to)) else { continue };
        if d.army.team() == mover {
            continue;
        }
        let gain = match ruling(rules, a.kind, d.kind) {
            Ruling::FlagCaptured { .. } => 10_000,
            Ruling::AttackerWon => piece_value(d.kind),
            _ => continue,
        };
        if best.is_none_or(|(g, _)| gain > g) {
            best = Some((gain, mv));
        }
    }
    match best {
        Some((_, mv)) => mv,
        None => moves[rng.random_range(0..moves.len())],
    }
}

/// The value of team A as seen by `team`.
fn oriented(value_a: f64, team: Team) -> f64 {
    if team == Team::A {
        value_a
    } else {
        1.0 - value_a
    }
}

/// One edge of the tree: a move, the node it leads to, its visits, team A's
/// summed value and how often it was available (legal in a simulation's world
/// when its node was selected from).
#[derive(Clone, Debug)]
struct Edge {
    mv: Move,
    child: usize,
    visits: u32,
    value_a: f64,
    available: u32,
}

#[derive(Clone, Debug, Default)]
struct Node {
    edges: Vec<Edge>,
}

/// The root's statistics after a search: per move, visits and team A's mean value.
#[derive(Clone, Debug, PartialEq)]
pub struct RootStats {
    pub moves: Vec<(Move, u32, f64)>,
}

/// `mcts:N`, `mcts:sims=N,movetime=MS`.
#[derive(Clone, Debug, Default)]
pub struct SearchBot {
    pub config: SearchConfig,
    /// The next decision's deadline and simulations cap from a host
    /// ([`SiguoBot::time_next_move`]), used once.
    next: Option<(Instant, u32)>,
    /// The root's visit shares of the last decision ([`SiguoBot::last_policy`]).
    last: Option<Vec<(Move, f32)>>,
}

impl SearchBot {
    pub fn new(config: SearchConfig) -> SearchBot {
        SearchBot { config, next: None, last: None }
    }

    /// The search from `info`'s seat: the root's statistics, or `None` when
    /// the seat is not to move or has no legal move. With `movetime`, it
    /// stops at the deadline (after at least one simulation).
    pub fn search(&self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<RootStats> {
        let deadline = self.config.movetime.map(|t| Instant::now() + t);
        self.search_until(info, rng, self.config.simulations, deadline)
    }

    /// [`SearchBot::search`] with at most `simulations` and a `deadline`.
    fn search_until(
        &self,
        info: &SiguoInfoSet,
        rng: &mut dyn RngCore,
        simulations: u32,
        deadline: Option<Instant>,
    ) -> Option<RootStats> {
        if info.outcome().is_some() || info.turn() != info.seat() {
            return None;
        }
        let mut root_moves = MoveList::new();
        info.legal_moves(&mut root_moves);
        if root_moves.is_empty() {
            return None;
        }
        let prior: Vec<f64> = if self.config.prior > 0.0 {
            let scores = HeuristicBot::scores(info, &root_moves);
            let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let exp: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
            let sum: f64 = exp.iter().sum();
            exp.iter().map(|e| self.config.prior * e / sum).collect()
        } else {
            vec![0.0; root_moves.len()]
        };
        let mut nodes = vec![Node::default()];
        let mut list = MoveList::new();
        let mut path: Vec<(usize, usize)> = Vec::new();
        for done in 0..simulations.max(1) {
            if out_of_time(deadline, done) {
                break;
            }
            let Ok(mut world) = info.sample_world(rng) else { continue };
            path.clear();
            let mut node = 0;
            while world.outcome().is_none() {
                let mover = world.turn().team();
                if node == 0 {
                    list.clear();
                    root_moves.iter().for_each(|&m| list.push(m));
                } else {
                    world.legal_moves(&mut list);
                }
                if list.is_empty() {
                    break;
                }
                // Availability: every edge legal in this world counts one more chance.
                let mut untried = Vec::new();
                for &mv in list.iter() {
                    match nodes[node].edges.iter_mut().find(|e| e.mv == mv) {
                        Some(e) => e.available += 1,
                        None => untried.push(mv),
                    }
                }
                let expand = !untried.is_empty();
                let edge = if expand {
                    // One new node per simulation, then the rollout.
                    // At the root, the heuristic's best untried move first (with a prior).
                    let mv = if node == 0 && self.config.prior > 0.0 {
                        let p = |m: &Move| prior[root_moves.iter().position(|r| r == m).unwrap_or(0)];
                        *untried.iter().max_by(|a, b| p(a).total_cmp(&p(b))).unwrap()
                    } else {
                        untried[rng.random_range(0..untried.len())]
                    };
                    nodes.push(Node::default());
                    let child = nodes.len() - 1;
                    nodes[node].edges.push(Edge { mv, child, visits: 0, value_a: 0.0, available: 1 });
                    nodes[node].edges.len() - 1
                } else {
                    let c = self.config.exploration;
                    let mut best = (f64::NEG_INFINITY, usize::MAX);
                    for (i, e) in nodes[node].edges.iter().enumerate() {
                        if !list.contains(e.mv) {
                            continue;
                        }
                        let mean = oriented(e.value_a / e.visits.max(1) as f64, mover);
                        let mut ucb = mean + c * ((e.available.max(1) as f64).ln() / e.visits.max(1) as f64).sqrt();
                        if node == 0 {
                            let i = root_moves.iter().position(|&m| m == e.mv).unwrap_or(0);
                            ucb += prior[i] / (1 + e.visits) as f64;
                        }
                        if ucb > best.0 {
                            best = (ucb, i);
                        }
                    }
                    best.1
                };
                let mv = nodes[node].edges[edge].mv;
                world.play_unchecked(mv);
                path.push((node, edge));
                node = nodes[node].edges[edge].child;
                if expand {
                    break;
                }
            }
            // Rollout, then the value of team A.
            let mut plies = 0;
            while world.outcome().is_none() && plies < self.config.rollout_plies {
                world.legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                let mv = rollout_move(&world, &list, rng);
                world.play_unchecked(mv);
                plies += 1;
            }
            let value = team_a_value(&world);
            for &(n, e) in &path {
                let edge = &mut nodes[n].edges[e];
                edge.visits += 1;
                edge.value_a += value;
            }
        }
        let moves = root_moves
            .iter()
            .map(|&mv| match nodes[0].edges.iter().find(|e| e.mv == mv) {
                Some(e) => (mv, e.visits, e.value_a / e.visits.max(1) as f64),
                None => (mv, 0, 0.5),
            })
            .collect();
        Some(RootStats { moves })
    }
}

impl SiguoBot for SearchBot {
    fn name(&self) -> String {
        match self.config.movetime {
            None => format!("mcts:{}", self.config.simulations),
            Some(t) => format!("mcts:sims={},movetime={}", self.config.simulations, t.as_millis()),
        }
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        self.last = None;
        let stats = match self.next.take() {
            Some((deadline, sims)) => self.search_until(info, rng, sims, Some(deadline)),
            None => self.search(info, rng),
        }?;
        let visits: u32 = stats.moves.iter().map(|m| m.1).sum();
        self.last = Some(stats.moves.iter().map(|m| (m.0, m.1 as f32 / visits.max(1) as f32)).collect());
        let team = info.seat().team();
        // The most visited move; ties by the seat's team value.
        stats
            .moves
            .iter()
            .max_by(|a, b| (a.1, oriented(a.2, team)).partial_cmp(&(b.1, oriented(b.2, team))).unwrap())
            .map(|m| m.0)
    }
    fn time_next_move(&mut self, deadline: Instant, keep_sims: bool) -> bool {
        self.next = Some((deadline, if keep_sims { self.config.simulations } else { TIMED_SIMS }));
        true
    }
    fn plays_by_time(&self) -> bool {
        self.config.movetime.is_some()
    }
    fn last_policy(&self) -> Option<Vec<(Move, f32)>> {
        self.last.clone()
    }
}

/// `mcts` (200 simulations), `mcts:N`, or keys: `mcts:sims=N`,
/// `mcts:movetime=MS`, `mcts:N,movetime=MS` (`sims` 1 to 100 000 000,
/// [`TIMED_SIMS`] with `movetime` and no `sims`; `movetime` 1 to 3 600 000
/// ms); `None` for another spec, a one-line error for a bad one.
pub fn parse_spec(spec: &str) -> Option<Result<SearchBot, String>> {
    let rest = spec.strip_prefix("mcts")?;
    if rest.is_empty() {
        return Some(Ok(SearchBot::new(SearchConfig::default())));
    }
    Some(match rest.strip_prefix(':') {
        Some(keys) => parse_keys(spec, keys),
        None => Err(format!("bad four-player bot `{spec}`: expected mcts, mcts:N or mcts:sims=N,movetime=MS")),
    })
}

fn parse_keys(spec: &str, keys: &str) -> Result<SearchBot, String> {
    let bad =
        |why: String| format!("bad four-player bot `{spec}`: {why} (expected mcts, mcts:N or mcts:sims=N,movetime=MS)");
    let (mut sims, mut movetime) = (None, None);
    for (i, part) in keys.split(',').enumerate() {
        let part = part.trim();
        let (key, value) = match part.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None if i == 0 => ("sims", part),
            None => return Err(bad(format!("`{part}` is not key=value"))),
        };
        let number = |max: u64| value.parse::<u64>().ok().filter(|n| (1..=max).contains(n));
        match key {
            "sims" if sims.is_none() => {
                let n = number(TIMED_SIMS as u64)
                    .ok_or_else(|| bad(format!("sims `{value}`: expected 1 to {TIMED_SIMS}")))?;
                sims = Some(n as u32);
            }
            "movetime" if movetime.is_none() => {
                let ms = number(MAX_MOVETIME_MS)
                    .ok_or_else(|| bad(format!("movetime `{value}`: expected 1 to {MAX_MOVETIME_MS} milliseconds")))?;
                movetime = Some(Duration::from_millis(ms));
            }
            "sims" | "movetime" => return Err(bad(format!("`{key}` given twice"))),
            other => return Err(bad(format!("unknown key `{other}`; the keys are sims and movetime"))),
        }
    }
    let d = SearchConfig::default();
    let simulations = sims.unwrap_or(if movetime.is_some() { TIMED_SIMS } else { d.simulations });
    Ok(SearchBot::new(SearchConfig { simulations, movetime, ..d }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::bot_from_spec;
    use crate::rules::{Mode, Rules};

    fn start() -> (Position, SiguoInfoSet) {
        let pos = Position::new_game(Rules::preset(Mode::Anqi), 7);
        let info = SiguoInfoSet::new(&pos, pos.turn());
        (pos, info)
    }

    /// `mcts:sims=100000000,movetime=50` comes back with a legal move long
    /// before its simulations would run out (a generous bound: seconds, in
    /// a debug build on a loaded machine, where the 10⁸ simulations would
    /// take hours).
    #[test]
    fn movetime_stops_the_search_with_a_legal_move() {
        let (pos, info) = start();
        let mut bot = bot_from_spec("mcts:sims=100000000,movetime=50").unwrap();
        assert_eq!(bot.name(), "mcts:sims=100000000,movetime=50");
        assert!(bot.plays_by_time());
        let started = Instant::now();
        let mv = bot.choose(&info, &mut junqi_core::rng_from_seed(1)).expect("a move");
        assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        assert!(legal.contains(mv), "{mv} is not legal");
        // A host's deadline for one move, already past: still one simulation and a legal move.
        let mut bot = bot_from_spec("mcts:100000000").unwrap();
        assert!(!bot.plays_by_time());
        assert!(bot.time_next_move(Instant::now(), false));
        assert!(legal.contains(bot.choose(&info, &mut junqi_core::rng_from_seed(2)).expect("a move")));
        assert!(!bot_from_spec("heuristic").unwrap().time_next_move(Instant::now(), false), "no time notion");
    }

    #[test]
    fn time_keys_parse_and_bad_ones_are_one_line_errors() {
        let name = |spec: &str| bot_from_spec(spec).unwrap().name();
        assert_eq!(name("mcts:37"), "mcts:37");
        assert_eq!(name("mcts:sims=37"), "mcts:37");
        assert_eq!(name("mcts:movetime=20"), format!("mcts:sims={TIMED_SIMS},movetime=20"));
        assert_eq!(name("mcts:37,movetime=20"), "mcts:sims=37,movetime=20");
        for bad in [
            "mcts:movetime=0",
            "mcts:movetime=x",
            "mcts:movetime=3600001",
            "mcts:sims=5,movetime=",
            "mcts:movetime=5,movetime=6",
            "mcts:tc=60+1",
            "mcts:sims=100000001",
            "mcts:5,7",
        ] {
            let err = bot_from_spec(bad).err().unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(err.contains(bad) && !err.contains('\n'), "{bad}: {err}");
        }
        assert!(bot_from_spec("mcts:movetime=0").err().unwrap().contains("movetime `0`"));
    }
}
