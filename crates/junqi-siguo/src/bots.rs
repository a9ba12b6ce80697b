//! Bots for the four-player board: `random`, `greedy` and `heuristic`
//! (the search, `mcts:N`, is in [`crate::search`]; [`bot_from_spec`] builds all).
//!
//! Every bot decides from one seat's information set ([`SiguoInfoSet`]) and
//! nothing else: the kinds it sees (its own army, and its ally's in 双明),
//! the armies and nodes of every piece, and the kinds the referee's
//! announcements have left possible for the others. No bot is ever given a
//! [`Position`], so none can read a hidden kind.
//!
//! * `random`: a uniformly random legal move.
//! * `greedy`: the most valuable capture the rules guarantee from what the
//!   seat knows (every kind the defender may still be loses to the attacker
//!   or is a flag), valued by the least valuable kind the defender may be;
//!   ties to the cheaper attacker, then at random; else a random move. As
//!   the two-player `greedy`.
//! * `heuristic`: plays as a team. It scores every legal move by the
//!   expected material of an attack over the kinds the defender may be
//!   (weighted by how many of each kind an army has), never attacks where
//!   every possible kind beats it, spends a bomb only where the expected
//!   trade gains (a bomb is worth a 团长 and more), attacks enemy pieces
//!   that stand near its own or its ally's headquarters first, advances
//!   towards the headquarters of live enemy armies that may hold a flag, and
//!   avoids nodes next to enemy pieces that may beat the mover.

use crate::board::{tables, Army, Node, NodeKind, NODES};
use crate::infoset::{Ruling, SiguoInfoSet};
use crate::position::{Move, MoveList, Outcome, Position};
use crate::rules::Rules;
use crate::setup::{army_deployment, validate, SetupError};
use junqi_core::piece::{Kind, KindSet};
use junqi_core::setup::Deployment;
use rand::{Rng, RngCore};
use std::collections::VecDeque;

/// A four-player bot: one decision from one seat's information set.
pub trait SiguoBot: Send {
    /// The bot's spec (`random`, `greedy`, `heuristic`).
    fn name(&self) -> String;
    /// The move of `info`'s seat, which is to move; `None` when it has no
    /// legal move (or it is not its turn).
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move>;
    /// Does the bot decide from its seat's legal moves alone? Such a bot
    /// ([`RandomBot`]) is asked through [`SiguoBot::choose_among`] by
    /// [`play_bots`], which then keeps no information set for its seat (a
    /// seat's legal moves are the referee's list, in the same order).
    fn moves_only(&self) -> bool {
        false
    }
    /// A `moves_only` bot's choice among the seat's legal moves (the same
    /// choice [`SiguoBot::choose`] makes from the same random stream); `None`
    /// for other bots or an empty list.
    fn choose_among(&mut self, moves: &MoveList, rng: &mut dyn RngCore) -> Option<Move> {
        let _ = (moves, rng);
        None
    }
    /// Decide the next move by `deadline` (a host's time for it: `junqi
    /// engine --siguo`'s `go movetime`, `junqi play --siguo --tc`), in
    /// place of the bot's own budget for that one move; with `keep_sims`
    /// its simulations still cap it, else time alone decides. Returns
    /// whether the bot plays by time (the search, `mcts`); a bot without a
    /// time notion ignores it and returns false.
    fn time_next_move(&mut self, deadline: std::time::Instant, keep_sims: bool) -> bool {
        let _ = (deadline, keep_sims);
        false
    }
    /// Does the bot's spec set its own time (`movetime`)? A clock for
    /// every bot of a game (`play --siguo --tc`) then leaves it alone.
    fn plays_by_time(&self) -> bool {
        false
    }
    /// The policy behind the bot's last [`SiguoBot::choose`]: each move it
    /// weighed and its share (summing to 1), as the search's root visit
    /// shares; `None` for a bot without one (the move chosen is all).
    fn last_policy(&self) -> Option<Vec<(Move, f32)>> {
        None
    }
    /// The bot's own deployment for `army` in a new game under `rules`
    /// (written on Red's half, as [`crate::setup::validate`] reads it), or
    /// `None` (the default): the army keeps the deal's. A net with a
    /// learned deployment model deploys by it.
    fn deploy(&mut self, army: Army, rules: &Rules, rng: &mut dyn RngCore) -> Option<Deployment> {
        let _ = (army, rules, rng);
        None
    }
}

/// The bot names [`bot_from_spec`] knows, besides the search `mcts:N`
/// ([`crate::search`]).
pub const BOT_NAMES: [&str; 3] = ["random", "greedy", "heuristic"];

/// Builds the bot of a spec it knows (junqi-net's `net:FILE`): `None` for
/// a spec of another kind, `Some(Err)` for a bad one of its kind.
pub type SiguoBotFactory = fn(spec: &str) -> Option<Result<Box<dyn SiguoBot>, String>>;

static BOT_FACTORIES: std::sync::Mutex<Vec<SiguoBotFactory>> = std::sync::Mutex::new(Vec::new());

/// Make the bot specs `factory` knows valid in [`bot_from_spec`] (so in
/// `selfplay --siguo`); registering the same factory twice changes nothing.
pub fn register_siguo_bot(factory: SiguoBotFactory) {
    let mut all = BOT_FACTORIES.lock().unwrap_or_else(|e| e.into_inner());
    if !all.iter().any(|f| std::ptr::fn_addr_eq(*f, factory)) {
        all.push(factory);
    }
}

/// A bot from its name (or a registered factory's spec); an error naming
/// the known bots otherwise.
pub fn bot_from_spec(spec: &str) -> Result<Box<dyn SiguoBot>, String> {
    match spec.trim() {
        "random" => Ok(Box::new(RandomBot)),
        "greedy" => Ok(Box::new(GreedyBot)),
        "heuristic" => Ok(Box::new(HeuristicBot)),
        other => match crate::search::parse_spec(other) {
            Some(bot) => Ok(Box::new(bot?)),
            None => {
                let registered = BOT_FACTORIES.lock().unwrap_or_else(|e| e.into_inner()).clone();
                registered.iter().find_map(|f| f(other)).unwrap_or_else(|| {
                    Err(format!(
                        "unknown four-player bot `{other}`: expected one of {}, or mcts:N (mcts:sims=N,movetime=MS)",
                        BOT_NAMES.join(", ")
                    ))
                })
            }
        },
    }
}

/// The value of a piece: the flag ends its army; officers by rank; an
/// engineer like a 排长; a bomb like a 团长 (as the two-player greedy).
pub fn piece_value(kind: Kind) -> u32 {
    match kind {
        Kind::Flag => 1000,
        Kind::Commander => 10,
        Kind::General => 9,
        Kind::Division => 8,
        Kind::Brigade => 7,
        Kind::Regiment | Kind::Bomb => 6,
        Kind::Battalion => 5,
        Kind::Company => 4,
        Kind::Platoon | Kind::Engineer => 3,
        Kind::Mine => 2,
    }
}

fn legal(info: &SiguoInfoSet) -> MoveList {
    let mut moves = MoveList::new();
    info.legal_moves(&mut moves);
    moves
}

/// Is `army` an enemy of the seat?
fn enemy(info: &SiguoInfoSet, army: Army) -> bool {
    army.team() != info.seat().team()
}

/// `random`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomBot;

impl SiguoBot for RandomBot {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        self.choose_among(&legal(info), rng)
    }
    fn moves_only(&self) -> bool {
        true
    }
    fn choose_among(&mut self, moves: &MoveList, rng: &mut dyn RngCore) -> Option<Move> {
        (!moves.is_empty()).then(|| moves[rng.random_range(0..moves.len())])
    }
}

/// A capture the rules guarantee from one seat's knowledge.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProvableCapture {
    pub mv: Move,
    pub attacker: Kind,
    /// [`piece_value`] of the least valuable kind the defender may be.
    pub value: u32,
}

/// Every legal attack of the seat to move on an enemy piece that wins (or
/// takes a flag) whatever kind the defender may be.
pub fn provable_captures(info: &SiguoInfoSet, moves: &MoveList) -> Vec<ProvableCapture> {
    let rules = info.rules();
    moves
        .iter()
        .filter_map(|&mv| {
            let attacker = info.known_kind(mv.from)?;
            let army = info.army_at(mv.to)?;
            let kinds = info.possible_kinds(mv.to);
            if !enemy(info, army) || kinds == 0 {
                return None;
            }
            let wins = Kind::in_set(kinds).all(|y| {
                matches!(crate::infoset::ruling(rules, attacker, y), Ruling::AttackerWon | Ruling::FlagCaptured { .. })
            });
            let value = Kind::in_set(kinds).map(piece_value).min()?;
            wins.then_some(ProvableCapture { mv, attacker, value })
        })
        .collect()
}

/// `greedy`.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyBot;

impl SiguoBot for GreedyBot {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        let moves = legal(info);
        if moves.is_empty() {
            return None;
        }
        let caps = provable_captures(info, &moves);
        let best = caps.iter().map(|c| (c.value, std::cmp::Reverse(piece_value(c.attacker)))).max();
        if let Some(best) = best {
            let top: Vec<Move> = caps
                .iter()
                .filter(|c| (c.value, std::cmp::Reverse(piece_value(c.attacker))) == best)
                .map(|c| c.mv)
                .collect();
            return Some(top[rng.random_range(0..top.len())]);
        }
        Some(moves[rng.random_range(0..moves.len())])
    }
}

/// `heuristic`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicBot;

/// What a bomb is worth to the heuristic when it trades: more than a 团长,
/// so it is spent only on a 师长 or better (or where that is likely).
const BOMB_WORTH: f64 = 7.5;
/// What taking a flag is worth (its army ends).
const FLAG_WORTH: f64 = 200.0;

fn worth(kind: Kind) -> f64 {
    match kind {
        Kind::Flag => FLAG_WORTH,
        Kind::Bomb => BOMB_WORTH,
        k => piece_value(k) as f64,
    }
}

/// Steps (over road and railway edges) from every node to the nearest of `targets`.
fn distances(palace_arcs: bool, targets: &[Node]) -> [u32; NODES] {
    let t = tables(palace_arcs);
    let mut dist = [u32::MAX; NODES];
    let mut queue = VecDeque::new();
    for &n in targets {
        dist[n.index()] = 0;
        queue.push_back(n);
    }
    while let Some(n) = queue.pop_front() {
        for &m in &t.adjacent[n.index()] {
            if dist[m.index()] == u32::MAX {
                dist[m.index()] = dist[n.index()] + 1;
                queue.push_back(m);
            }
        }
    }
    dist
}

/// The headquarters of `armies` that may hold a flag, from the seat's knowledge.
fn flag_nodes(info: &SiguoInfoSet, armies: impl Iterator<Item = Army>) -> Vec<Node> {
    let armies: Vec<Army> = armies.filter(|&a| info.ended(a).is_none()).collect();
    info.pieces()
        .filter(|&(n, a, set)| armies.contains(&a) && n.kind() == NodeKind::Headquarters && set & Kind::Flag.bit() != 0)
        .map(|(n, _, _)| n)
        .collect()
}

/// Expected material of `attacker` attacking a piece that may be any of
/// `kinds` (weighted by the number of each kind in an army), and whether
/// every possible kind beats the attacker outright.
fn attack_value(info: &SiguoInfoSet, attacker: Kind, kinds: KindSet) -> (f64, bool) {
    let rules = info.rules();
    let (mut total, mut weight) = (0.0, 0.0);
    let mut always_lost = true;
    for y in Kind::in_set(kinds) {
        let w = y.count() as f64;
        let v = match crate::infoset::ruling(rules, attacker, y) {
            Ruling::AttackerWon => {
                always_lost = false;
                worth(y)
            }
            Ruling::FlagCaptured { capturer_removed } => {
                always_lost = false;
                FLAG_WORTH - if capturer_removed { worth(attacker) } else { 0.0 }
            }
            Ruling::BothRemoved => {
                always_lost = false;
                worth(y) - worth(attacker)
            }
            Ruling::DefenderWon => -worth(attacker),
            Ruling::Stopped | Ruling::Move => -1.0,
        };
        total += w * v;
        weight += w;
    }
    if weight == 0.0 {
        return (0.0, false);
    }
    (total / weight, always_lost)
}

/// The expected loss of `kind` standing on `node`, next to enemy pieces
/// that may beat it: the largest chance among its enemy neighbours, times
/// its worth.
fn danger(info: &SiguoInfoSet, kind: Kind, node: Node, vacated: Node) -> f64 {
    let t = tables(info.rules().palace_arcs);
    let rules = info.rules();
    let mut worst: f64 = 0.0;
    for &m in &t.adjacent[node.index()] {
        if m == vacated {
            continue;
        }
        let Some(army) = info.army_at(m) else { continue };
        if !enemy(info, army) {
            continue;
        }
        let kinds = info.possible_kinds(m);
        let (mut beat, mut all) = (0.0, 0.0);
        for y in Kind::in_set(kinds) {
            if !y.is_movable() {
                continue;
            }
            let w = y.count() as f64;
            all += w;
            if matches!(crate::infoset::ruling(rules, y, kind), Ruling::AttackerWon | Ruling::FlagCaptured { .. }) {
                beat += w;
            }
        }
        if all > 0.0 {
            worst = worst.max(beat / all);
        }
    }
    worst * worth(kind)
}

impl HeuristicBot {
    /// The score of every legal move (higher is better), from `info` only.
    pub fn scores(info: &SiguoInfoSet, moves: &MoveList) -> Vec<f64> {
        let seat = info.seat();
        let arcs = info.rules().palace_arcs;
        let enemies = Army::ALL.into_iter().filter(|&a| enemy(info, a));
        let targets = flag_nodes(info, enemies);
        let to_enemy = distances(arcs, &targets);
        let ours = flag_nodes(info, [seat, seat.ally()].into_iter());
        let to_home = distances(arcs, &ours);
        moves
            .iter()
            .map(|&mv| {
                let Some(kind) = info.known_kind(mv.from) else { return 0.0 };
                let mut score = 0.0;
                match info.army_at(mv.to) {
                    Some(army) if enemy(info, army) => {
                        let (value, lost) = attack_value(info, kind, info.possible_kinds(mv.to));
                        if lost {
                            return -1000.0;
                        }
                        score += value;
                        // An enemy near our team's headquarters first (the ally's flag as ours).
                        let d = to_home[mv.to.index()];
                        if d <= 3 && value > -worth(kind) {
                            score += 4.0 / (d.max(1) as f64);
                        }
                        score -= 0.5 * danger(info, kind, mv.to, mv.from);
                    }
                    _ => {
                        // A step towards an enemy headquarters that may hold a flag.
                        let (a, b) = (to_enemy[mv.from.index()], to_enemy[mv.to.index()]);
                        if a != u32::MAX && b != u32::MAX {
                            let gain = a as f64 - b as f64;
                            let drive = match kind {
                                Kind::Bomb => 0.05,
                                Kind::Commander | Kind::General => 0.2,
                                _ => 0.4,
                            };
                            score += drive * gain.clamp(-3.0, 3.0);
                        }
                        score -= 0.5 * (danger(info, kind, mv.to, mv.from) - danger(info, kind, mv.from, mv.from));
                    }
                }
                score
            })
            .collect()
    }
}

impl SiguoBot for HeuristicBot {
    fn name(&self) -> String {
        "heuristic".into()
    }
    fn choose(&mut self, info: &SiguoInfoSet, rng: &mut dyn RngCore) -> Option<Move> {
        let moves = legal(info);
        if moves.is_empty() {
            return None;
        }
        let scores = HeuristicBot::scores(info, &moves);
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, s) in scores.iter().enumerate() {
            let s = s + rng.random::<f64>() * 0.05;
            if s > best.0 {
                best = (s, i);
            }
        }
        Some(moves[best.1])
    }
}

/// `start` (the deal of `deal_seed`) with each army deployed by its bot
/// where the bot deploys ([`SiguoBot::deploy`]); the other armies keep the
/// deal's deployment, and without any bot that deploys `start` comes back
/// unchanged. A bot's deployment that breaks §10.5 is an error naming it.
pub fn deploy_bots(start: &Position, deal_seed: u64, bots: &mut [Box<dyn SiguoBot>; 4]) -> Result<Position, String> {
    deploy_armies(start, deal_seed, |army, rules, rng| bots[army.index()].deploy(army, rules, rng)).map_err(|e| {
        let army = match &e {
            SetupError::Deployment { army, .. } | SetupError::NotRedHalf { army } => *army,
        };
        format!("bot {} deployed illegally: {e}", bots[army.index()].name())
    })
}

/// The seed of `army`'s deployment in the deal of `deal_seed`: each army
/// draws from its own stream, so what one army's bot draws never shifts
/// another's, and a model in the same seat of both games of an arena pair
/// (one deal, the teams' seats swapped) deploys the same way in both.
pub fn deployment_seed(deal_seed: u64, army: Army) -> u64 {
    (deal_seed ^ 0x4445_504C_4F59_2121).wrapping_add((army.index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// [`deploy_bots`] for any players: `deploy` gives an army's own
/// deployment or `None` (keep the deal's), drawing from the army's stream
/// ([`deployment_seed`]); the first illegal one is the error.
pub fn deploy_armies(
    start: &Position,
    deal_seed: u64,
    deploy: impl FnMut(Army, &Rules, &mut dyn RngCore) -> Option<Deployment>,
) -> Result<Position, SetupError> {
    let rules = *start.rules();
    let mut deployments = Army::ALL.map(|army| army_deployment(start, army));
    if !own_deployments(&mut deployments, &rules, deal_seed, deploy)? {
        return Ok(start.clone());
    }
    let [a, b, c, d] = &deployments;
    Position::from_deployments(rules, [a, b, c, d])
}

/// [`deploy_armies`] on the four armies' deployments themselves (Red's
/// half, as [`validate`] reads them): each army `deploy` gives one for
/// replaces its dealt one, checked. Whether any was replaced.
pub fn own_deployments(
    deployments: &mut [Deployment; 4],
    rules: &Rules,
    deal_seed: u64,
    mut deploy: impl FnMut(Army, &Rules, &mut dyn RngCore) -> Option<Deployment>,
) -> Result<bool, SetupError> {
    let mut changed = false;
    for army in Army::ALL {
        let mut rng = junqi_core::rng_from_seed(deployment_seed(deal_seed, army));
        if let Some(d) = deploy(army, rules, &mut rng) {
            validate(army, &d, rules)?;
            deployments[army.index()] = d;
            changed = true;
        }
    }
    Ok(changed)
}

/// A game played by four bots, each from its own seat's information set.
#[derive(Clone, Debug)]
pub struct BotGame {
    pub start: Position,
    pub moves: Vec<Move>,
    /// Per move, the mover's [`SiguoBot::last_policy`] for it.
    pub policies: Vec<Option<Vec<(Move, f32)>>>,
    pub outcome: Outcome,
}

/// Play one game from `start`, seat `i` by `bots[i]`, every seat's
/// information set kept from the referee's announcements (none for a seat
/// whose bot decides from the legal moves alone, [`SiguoBot::moves_only`]).
/// A bot that returns an illegal move (or none while its army can move) is
/// an error.
pub fn play_bots(start: Position, bots: &mut [Box<dyn SiguoBot>; 4], rng: &mut dyn RngCore) -> Result<BotGame, String> {
    let mut pos = start.clone();
    let mut infos: Vec<Option<SiguoInfoSet>> =
        Army::ALL.iter().map(|&a| (!bots[a.index()].moves_only()).then(|| SiguoInfoSet::new(&pos, a))).collect();
    let mut moves = Vec::new();
    let mut policies = Vec::new();
    let mut list = MoveList::new();
    loop {
        if let Some(outcome) = pos.outcome() {
            return Ok(BotGame { start, moves, policies, outcome });
        }
        let seat = pos.turn();
        let bot = &mut bots[seat.index()];
        let chosen = match &infos[seat.index()] {
            Some(info) => bot.choose(info, rng),
            None => {
                pos.legal_moves(&mut list);
                bot.choose_among(&list, rng)
            }
        };
        let mv = chosen.ok_or_else(|| format!("bot {} found no move for {seat} at ply {}", bot.name(), pos.ply()))?;
        policies.push(bot.last_policy());
        if infos.iter().all(Option::is_none) {
            if !list.contains(mv) {
                return Err(format!("bot {} played {mv} for {seat}: not a legal move", bot.name()));
            }
            pos.play_unchecked(mv);
        } else {
            let before = pos.clone();
            let effect = pos.play(mv).map_err(|e| format!("bot {} played {mv} for {seat}: {e}", bot.name()))?;
            let a = crate::infoset::Announcement::new(&before, mv, &effect, &pos);
            for info in infos.iter_mut().flatten() {
                info.update(&a);
            }
        }
        moves.push(mv);
    }
}
