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
//! Guided by an evaluator: `mcts:sims=N,eval=SPEC` (`eval=net:FILE`, a
//! four-player net, registered by junqi-net) replaces the rollouts and the
//! heuristic's prior with a [`SiguoEvaluator`] and UCB1 with PUCT. A node is
//! evaluated the first time a simulation reaches it: the evaluator is handed
//! the information set that the army to move there would have in the
//! simulation's world, carried down the simulation as at a table: the
//! simulation starts each army from an information set (the seat's own for
//! the seat, [`SiguoInfoSet::view_of`] the drawn world for another army:
//! the kinds it sees, the seat's sets for the armies neither sees, and of
//! the seat's own army, and its ally's in 双明, what needs no history: the
//! deployment rules at ply 0, later flags and mines that never moved), and
//! every move played in the tree is announced by the referee
//! ([`Announcement`]) and narrows it by [`SiguoInfoSet::update`], exactly as
//! in a game. The root is evaluated once from the seat's own information
//! set, the one the search was given. The evaluator never sees a
//! world: [`SiguoEvaluator::evaluate`] takes a [`SiguoInfoSet`] and nothing
//! else. It answers priors over that army's legal moves and the expected
//! score of that army's team; the search turns the score into team A's
//! value (an ally's as it is, an enemy's as 1 − it) before backing it up.
//! Below an evaluated node each army selects by PUCT, `Q + c·P·√A/(1 + N)`,
//! with `Q` its own team's mean value (unvisited moves: the node's own
//! evaluation), `P` the prior (uniform for a move the first evaluation did
//! not list: another world may allow moves the first one did not), `A` the
//! move's availability and `N` its visits; `c` is the exploration constant.
//! The root is PUCT too, or with `search=gumbel` (an evaluator needed) the
//! two-player search's Gumbel root (junqi-bots' [`GumbelRoot`]): Gumbel-top-k
//! over the root's priors (`k`, default 16; `gscale`, the noise's scale,
//! default 1, 0 for the prior's top k), sequential halving of the budget
//! among them by the seat's team value (completed by the root's own
//! evaluation), the decision the best survivor and the decision's policy
//! ([`SiguoBot::last_policy`]) the improved policy. Its schedule is laid out
//! for `sims` (at most [`GUMBEL_SCHEDULE`]: a search by time past it goes on
//! giving the least visited survivor one more visit).
//!
//! Mixed leaves: `mix=λ` with an evaluator values each new leaf by
//! `(1 − λ)·v + λ·r`, `v` the evaluator's value and `r` the rollout's (the
//! leaf's world played on `rollout_plies` plies as above and valued by
//! material), as AlphaGo mixed its value net with rollouts. The rollout
//! plays the simulation's drawn world, whose kinds come from the seat's
//! information set (and the belief), never the true position's.
//!
//! Worlds through a belief: with an evaluator that has one
//! ([`SiguoEvaluator::belief`], a net with a belief head), each
//! simulation's world is drawn by [`SiguoInfoSet::sample_world_believing`]
//! from the belief about the seat's own information set (asked once per
//! decision): the same worlds that fit the set (counts, fights, 司令阵亡's
//! flag), each as likely as the belief makes it. `belief=0`, or an
//! evaluator without one, draws them uniformly. The belief is computed
//! from the information set alone, so no hidden kind enters the search.
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
use crate::infoset::{ruling, Announcement, Ruling, SiguoInfoSet};
use crate::position::{Move, MoveList, Position};
use crate::rules::Rules;
use junqi_bots::mcts::{GumbelOptions, GumbelRoot};
use junqi_core::piece::Kind;
use junqi_core::setup::Deployment;
use junqi_core::KindBelief;
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
    /// `Some`: the Gumbel root (`search=gumbel`; with an evaluator only).
    pub gumbel: Option<GumbelOptions>,
    /// Draw the worlds from the evaluator's belief about the hidden kinds
    /// ([`SiguoEvaluator::belief`]) when it has one; `false` (`belief=0`)
    /// draws them uniformly from the information set.
    pub belief: bool,
    /// With an evaluator (`mix=λ`): each new leaf's value is
    /// `(1 − λ)·evaluator + λ·rollout`, the rollout's [`team_a_value`] after
    /// `rollout_plies` of the simulation's world (AlphaGo's mixing of a value
    /// net and rollouts); 0, the default, values leaves by the evaluator alone.
    pub mix: f64,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            simulations: 200,
            rollout_plies: 4,
            exploration: 0.7,
            prior: PRIOR,
            movetime: None,
            gumbel: None,
            belief: true,
            mix: 0.0,
        }
    }
}

const PRIOR: f64 = 1.0;

/// The simulations cap of a search by time given no `sims`: time decides.
pub const TIMED_SIMS: u32 = 100_000_000;

/// The most simulations a Gumbel root's schedule is laid out for.
pub const GUMBEL_SCHEDULE: u32 = 100_000;

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
    /// The node it leads to (0: not made yet, with an evaluator).
    child: usize,
    /// With an evaluator: the move's prior.
    prior: f64,
    visits: u32,
    value_a: f64,
    available: u32,
}

#[derive(Clone, Debug, Default)]
struct Node {
    edges: Vec<Edge>,
    /// With an evaluator: its answer at the node's first visit (priors, and
    /// team A's value, the value of moves not tried yet), `None` before.
    estimate: Option<LeafEstimate>,
}

/// What a leaf evaluator says of one army's information set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeafEstimate {
    /// Priors over the army's legal moves ([`SiguoInfoSet::legal_moves`]),
    /// in any order; a legal move not listed gets a uniform prior.
    pub priors: Vec<(Move, f32)>,
    /// The expected score of the army's team: a win 1, a draw ½, a loss 0.
    pub value: f64,
}

/// A leaf evaluator of the search (`mcts:…,eval=SPEC`): a four-player net
/// from junqi-net (`eval=net:FILE`), registered with
/// [`register_siguo_evaluator`]. It is handed an information set only, so it
/// cannot read a hidden kind of the simulation's world.
pub trait SiguoEvaluator: Send {
    /// The evaluator's spec, as written after `eval=` (`net:FILE`).
    fn name(&self) -> String;
    /// Priors over the legal moves of `info`'s seat, which is to move in a
    /// game that goes on, and the expected score of that seat's team.
    fn evaluate(&mut self, info: &SiguoInfoSet) -> LeafEstimate;
    /// What `info`'s seat believes the kinds of the pieces it cannot see
    /// are, by absolute node (a net's belief head), from `info` alone; the
    /// search draws its worlds through it. `None` (the default, or a net
    /// without the head): the worlds are drawn uniformly.
    fn belief(&mut self, _info: &SiguoInfoSet) -> Option<KindBelief> {
        None
    }
    /// A deployment for `army` (as [`SiguoBot::deploy`]: a net's learned
    /// model); `None`, the default, keeps the deal's. The search deploys by it.
    fn deploy(&mut self, army: Army, rules: &Rules, rng: &mut dyn RngCore) -> Option<Deployment> {
        let _ = (army, rules, rng);
        None
    }
}

/// Builds the evaluator of a spec it knows (`net:FILE`): `None` for a spec
/// of another kind, `Some(Err)` for a bad one of its kind.
pub type SiguoEvaluatorFactory = fn(spec: &str) -> Option<Result<Box<dyn SiguoEvaluator>, String>>;

static EVALUATORS: std::sync::Mutex<Vec<SiguoEvaluatorFactory>> = std::sync::Mutex::new(Vec::new());

/// Make the evaluator specs `factory` knows valid after `eval=` in
/// `mcts:…` (junqi-net's `register_net_bots` registers `net:FILE`).
/// Registering the same factory twice changes nothing.
pub fn register_siguo_evaluator(factory: SiguoEvaluatorFactory) {
    let mut all = EVALUATORS.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|f| std::ptr::fn_addr_eq(*f, factory)) {
        all.push(factory);
    }
}

/// The evaluator of `spec` from the registered factories.
fn evaluator_from_spec(spec: &str) -> Result<Box<dyn SiguoEvaluator>, String> {
    let all = EVALUATORS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    all.iter()
        .find_map(|f| f(spec))
        .unwrap_or_else(|| Err(format!("unknown evaluator `{spec}` (net:FILE, once junqi-net's bots are registered)")))
}

/// The root's statistics after a search: per move, visits and team A's
/// mean value; with a Gumbel root its decision and improved policy (in
/// `moves` order).
#[derive(Clone, Debug, PartialEq)]
pub struct RootStats {
    pub moves: Vec<(Move, u32, f64)>,
    pub gumbel: Option<(Move, Vec<f32>)>,
}

/// `mcts:N`, `mcts:sims=N,movetime=MS`, `mcts:sims=N,eval=SPEC`.
#[derive(Default)]
pub struct SearchBot {
    pub config: SearchConfig,
    /// The leaf evaluator (`eval=`): PUCT with its priors and values in
    /// place of rollouts; `None` searches with rollouts.
    pub evaluator: Option<Box<dyn SiguoEvaluator>>,
    /// The next decision's deadline and simulations cap from a host
    /// ([`SiguoBot::time_next_move`]), used once.
    next: Option<(Instant, u32)>,
    /// The policy of the last decision ([`SiguoBot::last_policy`]): the
    /// root's visit shares, or the Gumbel root's improved policy; `None`
    /// when no simulation completed.
    last: Option<Vec<(Move, f32)>>,
}

impl std::fmt::Debug for SearchBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchBot").field("spec", &self.name()).finish()
    }
}

impl SearchBot {
    pub fn new(config: SearchConfig) -> SearchBot {
        SearchBot { config, evaluator: None, next: None, last: None }
    }

    /// The search guided by `evaluator` (`mcts:…,eval=SPEC`).
    pub fn with_evaluator(config: SearchConfig, evaluator: Box<dyn SiguoEvaluator>) -> SearchBot {
        SearchBot { evaluator: Some(evaluator), ..SearchBot::new(config) }
    }

    /// The search from `info`'s seat: the root's statistics, or `None` when
    /// the seat is not to move or has no legal move. With `movetime`, it
    /// stops at the deadline (after at least one simulation).
    pub fn search(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<RootStats> {
        let deadline = self.config.movetime.map(|t| Instant::now() + t);
        self.search_until(info, rng, self.config.simulations, deadline)
    }

    /// [`SearchBot::search`] with at most `simulations` and a `deadline`.
    fn search_until(
        &mut self,
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
        let config = self.config;
        let mut evaluator = self.evaluator.as_deref_mut();
        let mut nodes = vec![Node::default()];
        // The worlds' hidden kinds come from the evaluator's belief about
        // the seat's own information set, asked once per decision (first:
        // a net answers the root's evaluation below from the same pass).
        let belief = evaluator.as_deref_mut().filter(|_| config.belief).and_then(|e| e.belief(info));
        // With an evaluator, the root is evaluated from the seat's own
        // information set, and the heuristic's prior is not used.
        if let Some(e) = evaluator.as_deref_mut() {
            nodes[0].estimate = Some(team_a_estimate(e, info));
        }
        let prior: Vec<f64> = if config.prior > 0.0 && evaluator.is_none() {
            let scores = HeuristicBot::scores(info, &root_moves);
            let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let exp: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
            let sum: f64 = exp.iter().sum();
            exp.iter().map(|e| config.prior * e / sum).collect()
        } else {
            vec![0.0; root_moves.len()]
        };
        let seat = info.seat().team();
        let mut groot = match (config.gumbel, &nodes[0].estimate) {
            (Some(options), Some(root)) => {
                let moves: Vec<Move> = root_moves.iter().copied().collect();
                let uniform = 1.0 / moves.len() as f32;
                let priors: Vec<f32> =
                    moves.iter().map(|m| root.priors.iter().find(|p| p.0 == *m).map_or(uniform, |p| p.1)).collect();
                let raw = Some(oriented(root.value, seat) as f32);
                Some(GumbelRoot::new(&moves, &priors, raw, simulations.clamp(1, GUMBEL_SCHEDULE), options, rng))
            }
            _ => None,
        };
        let mut list = MoveList::new();
        let mut path: Vec<(usize, usize)> = Vec::new();
        // With an evaluator: the referee's announcements of the moves played
        // in this simulation's world, for the information set of the army
        // evaluated at its leaf.
        let mut heard: Vec<Announcement> = Vec::new();
        for done in 0..simulations.max(1) {
            if out_of_time(deadline, done) {
                break;
            }
            let Ok(mut world) = info.sample_world_believing(rng, belief.as_ref()) else { continue };
            let start = evaluator.is_some().then(|| world.clone());
            heard.clear();
            path.clear();
            let mut node = 0;
            let mut leaf = None;
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
                if let Some(e) = evaluator.as_deref_mut() {
                    // A node's first visit: the evaluator's answer for the
                    // army to move, from what it would know in this world:
                    // its set at the simulation's start, updated by what the
                    // referee announced of every move since.
                    if nodes[node].estimate.is_none() {
                        let start = start.as_ref().expect("the simulation's first world");
                        let mut view = info.view_of(start, world.turn());
                        heard.iter().for_each(|a| view.update(a));
                        let estimate = team_a_estimate(e, &view);
                        leaf = Some(estimate.value);
                        nodes[node].estimate = Some(estimate);
                        break;
                    }
                    let edge = match &groot {
                        Some(g) if node == 0 => {
                            add_edges(&mut nodes[0], &list);
                            let mv = g.actions[g.next_action(done)].mv;
                            nodes[0].edges.iter().position(|e| e.mv == mv).expect("every root move has an edge")
                        }
                        _ => puct_edge(&mut nodes[node], &list, mover, config.exploration),
                    };
                    if nodes[node].edges[edge].child == 0 {
                        nodes.push(Node::default());
                        let child = nodes.len() - 1;
                        nodes[node].edges[edge].child = child;
                    }
                    let (mv, before) = (nodes[node].edges[edge].mv, world.clone());
                    let effect = world.play_unchecked(mv);
                    heard.push(Announcement::new(&before, mv, &effect, &world));
                    path.push((node, edge));
                    node = nodes[node].edges[edge].child;
                    continue;
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
                    let mv = if node == 0 && config.prior > 0.0 {
                        let p = |m: &Move| prior[root_moves.iter().position(|r| r == m).unwrap_or(0)];
                        *untried.iter().max_by(|a, b| p(a).total_cmp(&p(b))).unwrap()
                    } else {
                        untried[rng.random_range(0..untried.len())]
                    };
                    nodes.push(Node::default());
                    let child = nodes.len() - 1;
                    nodes[node].edges.push(Edge { mv, child, prior: 0.0, visits: 0, value_a: 0.0, available: 1 });
                    nodes[node].edges.len() - 1
                } else {
                    let c = config.exploration;
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
            // The evaluator's value, or a rollout, then the value of team A
            // (an evaluator's search values ended games by their result);
            // with `mix`, an evaluated leaf's world is rolled out too.
            let rolled = evaluator.is_none() || (leaf.is_some() && config.mix > 0.0);
            let rollout_plies = if rolled { config.rollout_plies } else { 0 };
            let mut plies = 0;
            while world.outcome().is_none() && plies < rollout_plies {
                world.legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                let mv = rollout_move(&world, &list, rng);
                world.play_unchecked(mv);
                plies += 1;
            }
            let value = match leaf {
                Some(v) if config.mix > 0.0 => (1.0 - config.mix) * v + config.mix * team_a_value(&world),
                Some(v) => v,
                None => team_a_value(&world),
            };
            for &(n, e) in &path {
                let edge = &mut nodes[n].edges[e];
                edge.visits += 1;
                edge.value_a += value;
            }
            if let (Some(g), Some(&(0, e))) = (groot.as_mut(), path.first()) {
                let edge = &nodes[0].edges[e];
                let action = g.actions.iter_mut().find(|a| a.mv == edge.mv).expect("a root move");
                action.visits = edge.visits;
                action.q = oriented(edge.value_a / edge.visits as f64, seat) as f32;
            }
        }
        let moves = root_moves
            .iter()
            .map(|&mv| match nodes[0].edges.iter().find(|e| e.mv == mv) {
                Some(e) => (mv, e.visits, e.value_a / e.visits.max(1) as f64),
                None => (mv, 0, 0.5),
            })
            .collect();
        let gumbel = groot.map(|g| (g.actions[g.best_action()].mv, g.improved_policy()));
        Some(RootStats { moves, gumbel })
    }
}

/// The evaluator's answer for `info`'s seat with the value turned into
/// team A's (an ally of team A keeps it, an enemy's is 1 − it). An answer
/// that is not a number is taken as the worst: a NaN value as a loss for
/// the seat's team, a prior that is NaN, infinite or negative as 0.
fn team_a_estimate(evaluator: &mut dyn SiguoEvaluator, info: &SiguoInfoSet) -> LeafEstimate {
    let mut estimate = evaluator.evaluate(info);
    for p in estimate.priors.iter_mut() {
        if !(p.1.is_finite() && p.1 >= 0.0) {
            p.1 = 0.0;
        }
    }
    let value = if estimate.value.is_nan() { 0.0 } else { estimate.value.clamp(0.0, 1.0) };
    LeafEstimate { value: oriented(value, info.seat().team()), ..estimate }
}

/// PUCT at an evaluated `node` among the moves `list` legal in this world
/// (`mover`'s team chooses; edges by [`add_edges`]): the edge with the
/// largest `Q + c·P·√A/(1 + N)`, a score that is not a number counting as
/// the worst (the first legal edge when every score is one).
fn puct_edge(node: &mut Node, list: &MoveList, mover: Team, c: f64) -> usize {
    add_edges(node, list);
    let estimate = node.estimate.as_ref().expect("an evaluated node");
    let untried = oriented(estimate.value, mover);
    let mut best = (f64::NEG_INFINITY, usize::MAX);
    for (i, e) in node.edges.iter().enumerate() {
        if !list.contains(e.mv) {
            continue;
        }
        let q = if e.visits == 0 { untried } else { oriented(e.value_a / e.visits as f64, mover) };
        let score = q + c * e.prior * (e.available as f64).sqrt() / (1 + e.visits) as f64;
        let score = if score.is_nan() { f64::NEG_INFINITY } else { score };
        if best.1 == usize::MAX || score > best.0 {
            best = (score, i);
        }
    }
    best.1
}

/// An edge for every move of `list` at the evaluated `node` not yet tried
/// (its prior from the node's estimate, uniform where the estimate lists
/// none), and one more availability for the others.
fn add_edges(node: &mut Node, list: &MoveList) {
    let estimate = node.estimate.as_ref().expect("an evaluated node");
    let uniform = 1.0 / list.len() as f64;
    for &mv in list.iter() {
        match node.edges.iter_mut().find(|e| e.mv == mv) {
            Some(e) => e.available += 1,
            None => {
                let prior = estimate.priors.iter().find(|p| p.0 == mv).map_or(uniform, |p| p.1 as f64);
                node.edges.push(Edge { mv, child: 0, prior, visits: 0, value_a: 0.0, available: 1 });
            }
        }
    }
}

impl SiguoBot for SearchBot {
    fn name(&self) -> String {
        let sims = self.config.simulations;
        match (self.config.movetime, &self.evaluator) {
            (None, None) => format!("mcts:{sims}"),
            (t, e) => {
                let mut spec = format!("mcts:sims={sims}");
                if let Some(t) = t {
                    spec.push_str(&format!(",movetime={}", t.as_millis()));
                }
                if let Some(g) = self.config.gumbel {
                    spec.push_str(",search=gumbel");
                    let d = GumbelOptions::default();
                    if g.considered != d.considered {
                        spec.push_str(&format!(",k={}", g.considered));
                    }
                    if g.gumbel_scale != d.gumbel_scale {
                        spec.push_str(&format!(",gscale={}", g.gumbel_scale));
                    }
                }
                if !self.config.belief {
                    spec.push_str(",belief=0");
                }
                if self.config.mix > 0.0 {
                    spec.push_str(&format!(",mix={}", self.config.mix));
                }
                if let Some(e) = e {
                    spec.push_str(&format!(",eval={}", e.name()));
                }
                spec
            }
        }
    }
    fn deploy(&mut self, army: Army, rules: &Rules, rng: &mut dyn RngCore) -> Option<Deployment> {
        self.evaluator.as_mut()?.deploy(army, rules, rng)
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        self.last = None;
        let stats = match self.next.take() {
            Some((deadline, sims)) => self.search_until(info, rng, sims, Some(deadline)),
            None => self.search(info, rng),
        }?;
        // No simulation completed (no world could be drawn): no policy, so a
        // caller falls back to the move played.
        let visits: u32 = stats.moves.iter().map(|m| m.1).sum();
        if let Some((decision, policy)) = stats.gumbel {
            // The Gumbel root's decision, and its improved policy.
            if visits > 0 {
                self.last = Some(stats.moves.iter().map(|m| m.0).zip(policy).collect());
            }
            return Some(decision);
        }
        if visits > 0 {
            self.last = Some(stats.moves.iter().map(|m| (m.0, m.1 as f32 / visits as f32)).collect());
        }
        let team = info.seat().team();
        // The most visited move; ties by the seat's team value.
        stats
            .moves
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(oriented(a.2, team).total_cmp(&oriented(b.2, team))))
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
/// ms), `eval=SPEC` (a registered [`SiguoEvaluator`]: `net:FILE`, its
/// file name without a comma) and with it `belief=0|1` (default 1: the
/// worlds drawn through the evaluator's belief), `mix=λ` (0 to 1, default 0:
/// each leaf valued `(1 − λ)·evaluator + λ·rollout`) and `search=puct|gumbel` (either
/// refused without an evaluator; `gumbel`:
/// `k` 1 to 1000, `gscale` 0 to 100); `None` for another spec, a one-line
/// error for a bad one.
pub fn parse_spec(spec: &str) -> Option<Result<SearchBot, String>> {
    let rest = spec.strip_prefix("mcts")?;
    if rest.is_empty() {
        return Some(Ok(SearchBot::new(SearchConfig::default())));
    }
    Some(match rest.strip_prefix(':') {
        Some(keys) => parse_keys(spec, keys),
        None => Err(format!("bad four-player bot `{spec}`: expected mcts, mcts:N or mcts:sims=N,movetime=MS,search=gumbel,eval=net:FILE")),
    })
}

fn parse_keys(spec: &str, keys: &str) -> Result<SearchBot, String> {
    let bad = |why: String| {
        format!("bad four-player bot `{spec}`: {why} (expected mcts, mcts:N or mcts:sims=N,movetime=MS,search=gumbel,eval=net:FILE)")
    };
    let (mut sims, mut movetime, mut eval) = (None, None, None);
    let (mut search, mut k, mut gscale, mut belief, mut mix) = (None, None, None, None, None);
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
            "eval" if eval.is_none() => eval = Some(evaluator_from_spec(value).map_err(bad)?),
            "search" if search.is_none() => match value {
                "puct" | "gumbel" => search = Some(value == "gumbel"),
                _ => return Err(bad(format!("search `{value}`: expected puct or gumbel"))),
            },
            "k" if k.is_none() => {
                k = Some(number(1000).ok_or_else(|| bad(format!("k `{value}`: expected 1 to 1000")))? as u32)
            }
            "gscale" if gscale.is_none() => {
                let g = value.parse::<f32>().ok().filter(|g| (0.0..=100.0).contains(g));
                gscale = Some(g.ok_or_else(|| bad(format!("gscale `{value}`: expected 0 to 100")))?);
            }
            "belief" if belief.is_none() => match value {
                "0" | "1" => belief = Some(value == "1"),
                _ => return Err(bad(format!("belief `{value}`: expected 0 or 1"))),
            },
            "mix" if mix.is_none() => {
                let m = value.parse::<f64>().ok().filter(|m| (0.0..=1.0).contains(m));
                mix = Some(m.ok_or_else(|| bad(format!("mix `{value}`: expected 0 to 1")))?);
            }
            "sims" | "movetime" | "eval" | "search" | "k" | "gscale" | "belief" | "mix" => {
                return Err(bad(format!("`{key}` given twice")))
            }
            other => {
                return Err(bad(format!(
                    "unknown key `{other}`; the keys are sims, movetime, eval, search, k, gscale, belief and mix"
                )))
            }
        }
    }
    let gumbel = search == Some(true);
    if let (Some(g), None) = (search, &eval) {
        let which = if g { "gumbel" } else { "puct" };
        return Err(bad(format!("search={which} needs an evaluator (eval=net:FILE)")));
    }
    if belief.is_some() && eval.is_none() {
        return Err(bad("belief=0|1 needs an evaluator (eval=net:FILE)".into()));
    }
    if mix.is_some() && eval.is_none() {
        return Err(bad("mix needs an evaluator (eval=net:FILE): without one every leaf is a rollout's".into()));
    }
    if !gumbel && (k.is_some() || gscale.is_some()) {
        return Err(bad("k and gscale apply only with search=gumbel".into()));
    }
    let g = GumbelOptions::default();
    let gumbel = gumbel.then(|| GumbelOptions {
        considered: k.unwrap_or(g.considered),
        gumbel_scale: gscale.unwrap_or(g.gumbel_scale),
        ..g
    });
    let d = SearchConfig::default();
    let simulations = sims.unwrap_or(if movetime.is_some() { TIMED_SIMS } else { d.simulations });
    let belief = belief.unwrap_or(d.belief);
    Ok(SearchBot {
        evaluator: eval,
        ..SearchBot::new(SearchConfig { simulations, movetime, gumbel, belief, mix: mix.unwrap_or(0.0), ..d })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::bot_from_spec;
    use crate::rules::Mode;

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
            "mcts:5,belief=0",
        ] {
            let err = bot_from_spec(bad).err().unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(err.contains(bad) && !err.contains('\n'), "{bad}: {err}");
        }
        assert!(bot_from_spec("mcts:movetime=0").err().unwrap().contains("movetime `0`"));
    }
}
