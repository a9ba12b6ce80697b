//! Worlds drawn through a belief (src/determinize.rs,
//! `sample_world_believing`; src/search.rs, `SiguoEvaluator::belief`): a
//! drawn world always fits the seat's information set whatever the belief
//! says, the belief moves the draw, and the search reads the hidden kinds
//! only through its evaluator's belief, which sees the information set alone.

use super::infoset::{check_world, rules_under_test, swapped, two_officers, Table};
use junqi_core::piece::{Kind, KINDS};
use junqi_core::{rng_from_seed, KindBelief};
use junqi_siguo::search::{SearchBot, SearchConfig};
use junqi_siguo::{
    belief_by_node, hidden_kind_targets, Army, LeafEstimate, Mode, Node, Position, Rules, SiguoBot, SiguoEvaluator,
    SiguoInfoSet, NODES,
};
use rand::Rng;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

/// A belief that is sure of the true kind of every piece on the board.
fn oracle(truth: &Position) -> KindBelief {
    let mut b = KindBelief::with_nodes(NODES);
    for (node, piece) in truth.pieces() {
        b.probs[node.index()][piece.kind.index()] = 1.0;
    }
    b
}

/// Beliefs of every shape: random, sure of the wrong thing (every piece a
/// flag), sure of the truth.
fn beliefs(truth: &Position, rng: &mut impl Rng) -> Vec<KindBelief> {
    let mut random = KindBelief::with_nodes(NODES);
    for p in random.probs.iter_mut() {
        p.iter_mut().for_each(|x| *x = rng.random::<f32>());
    }
    let mut flags = KindBelief::with_nodes(NODES);
    flags.probs.iter_mut().for_each(|p| p[Kind::Flag.index()] = 1.0);
    vec![random, flags, oracle(truth)]
}

/// Every world drawn through any belief fits the seat's set (public facts,
/// kinds in their sets, §2's counts, flags and mines where deployment put
/// them, the flag shown after 司令阵亡), along random games of every rule set.
#[test]
fn worlds_drawn_through_any_belief_fit_the_information_set() {
    let mut rng = rng_from_seed(44);
    let mut worlds = 0;
    for (i, rules) in rules_under_test().into_iter().enumerate() {
        let mut t = Table::new(Position::new_game(rules, 4400 + i as u64));
        let mut plies = 0;
        loop {
            if plies % 40 == 0 || t.truth.is_game_over() {
                for seat in &t.seats {
                    for belief in beliefs(&t.truth, &mut rng) {
                        let world = seat.sample_world_believing(&mut rng, Some(&belief)).unwrap();
                        check_world(seat, &world, true);
                        worlds += 1;
                    }
                }
            }
            let Some(mv) = t.random_move(&mut rng) else { break };
            t.play(mv);
            plies += 1;
            if plies > 600 {
                break;
            }
        }
    }
    assert!(worlds > 300, "{worlds}");
}

/// How often the hidden pieces on the board get their true kind in worlds
/// drawn for seat 0 of 四国暗棋 after some random plies.
fn true_kind_share(belief: Option<&KindBelief>) -> f64 {
    let mut t = Table::new(Position::new_game(Rules::preset(Mode::Anqi), 12));
    let mut rng = rng_from_seed(3);
    for _ in 0..40 {
        let mv = t.random_move(&mut rng).unwrap();
        t.play(mv);
    }
    let info = &t.seats[0];
    let (mut right, mut all) = (0, 0);
    for _ in 0..100 {
        let world = info.sample_world_believing(&mut rng, belief).unwrap();
        for (node, piece) in t.truth.pieces().filter(|(_, p)| !info.sees(p.army)) {
            right += (world.piece_at(node).map(|p| p.kind) == Some(piece.kind)) as u32;
            all += 1;
        }
    }
    right as f64 / all as f64
}

/// The belief moves the draw: sure of the truth, nearly every hidden piece
/// is drawn as what it is; without a belief, about as often as chance.
#[test]
fn a_belief_moves_the_draw() {
    let truth_belief = {
        let mut t = Table::new(Position::new_game(Rules::preset(Mode::Anqi), 12));
        let mut rng = rng_from_seed(3);
        for _ in 0..40 {
            let mv = t.random_move(&mut rng).unwrap();
            t.play(mv);
        }
        oracle(&t.truth)
    };
    let (uniform, believed) = (true_kind_share(None), true_kind_share(Some(&truth_belief)));
    assert!(uniform < 0.3, "uniform draws found the true kind {uniform:.2} of the time");
    assert!(believed > 0.9, "the true belief's draws found it {believed:.2} of the time");
}

/// The belief targets are the true kinds of exactly the pieces whose kind
/// the seat's set leaves open, at their seat-relative nodes, and
/// `belief_by_node` turns such a seat-relative answer back to absolute nodes.
#[test]
fn belief_targets_and_answers_are_seat_relative() {
    let truth = Position::new_game(Rules::preset(Mode::Anqi), 5);
    for seat in Army::ALL {
        let info = SiguoInfoSet::new(&truth, seat);
        let targets = hidden_kind_targets(&truth, &info);
        assert_eq!(targets.len(), NODES);
        let mut probs = vec![0.0f32; NODES * KINDS];
        for (j, &t) in targets.iter().enumerate().filter(|(_, &t)| t > 0) {
            probs[j * KINDS + t as usize - 1] = 1.0;
        }
        let belief = belief_by_node(seat, &probs);
        let mut hidden = 0;
        for node in Node::all() {
            let piece = truth.piece_at(node);
            let open = piece.is_some_and(|p| !info.sees(p.army) && info.possible_kinds(node).count_ones() > 1);
            let want = if open { piece.unwrap().kind.index() + 1 } else { 0 };
            let r = junqi_siguo::observation::relative_node(seat, node).index();
            assert_eq!(targets[r] as usize, want, "seat {seat} node {node}");
            if open {
                assert_eq!(belief.probs[node.index()][want - 1], 1.0, "seat {seat} node {node}");
                hidden += 1;
            }
        }
        assert_eq!(hidden, 75, "three armies of 25 are hidden from seat {seat}");
    }
    let open = Position::new_game(Rules::preset(Mode::Quanming), 5);
    assert!(hidden_kind_targets(&open, &SiguoInfoSet::new(&open, Army::ALL[0])).is_empty(), "全明 hides nothing");
}

/// What an evaluator believes of an information set.
type BeliefOf = Box<dyn FnMut(&SiguoInfoSet) -> Option<KindBelief> + Send>;

/// A leaf evaluator that logs every information set it is handed (the
/// search's worlds show through them: each is what the army to move knows
/// in its world), values a set by its army's own material, and believes
/// what `belief` says of a set: a function of the set, or of a truth.
struct Logging {
    log: Arc<Mutex<Vec<u64>>>,
    belief: BeliefOf,
}

impl SiguoEvaluator for Logging {
    fn name(&self) -> String {
        "logging".into()
    }
    fn evaluate(&mut self, info: &SiguoInfoSet) -> LeafEstimate {
        let mut h = DefaultHasher::new();
        info.hash(&mut h);
        self.log.lock().unwrap().push(h.finish());
        let own: u32 = info
            .pieces()
            .filter(|&(_, a, _)| a == info.seat())
            .filter_map(|(n, _, _)| info.known_kind(n))
            .map(junqi_siguo::bots::piece_value)
            .sum();
        LeafEstimate { priors: Vec::new(), value: (own as f64 / 2000.0).min(1.0) }
    }
    fn belief(&mut self, info: &SiguoInfoSet) -> Option<KindBelief> {
        (self.belief)(info)
    }
}

/// A belief computed from the set alone: each open piece most likely the
/// highest-ranked kind its set allows.
fn from_the_set(info: &SiguoInfoSet) -> Option<KindBelief> {
    let mut b = KindBelief::with_nodes(NODES);
    for (node, _, set) in info.pieces() {
        if let Some(k) = Kind::in_set(set).next() {
            b.probs[node.index()][k.index()] = 0.9;
        }
    }
    Some(b)
}

/// The search's decision and the log of what its evaluator was handed, for
/// `info` with the seed fixed.
fn searched(info: &SiguoInfoSet, config: SearchConfig, belief: BeliefOf) -> (String, Vec<u64>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let evaluator = Logging { log: log.clone(), belief };
    let mut bot = SearchBot::with_evaluator(config, Box::new(evaluator));
    let mv = bot.choose(info, &mut rng_from_seed(8)).expect("a move");
    let log = log.lock().unwrap().clone();
    (mv.to_string(), log)
}

/// Issue 44: swapping the kinds of two of an enemy army's officers in the
/// true position changes neither the worlds the search draws (what its
/// evaluator is handed, set by set) nor its move, for a fixed seed, with a
/// belief computed from the information set. The comparison can fail: a
/// belief read from the truth (cheating) tells the two truths apart, and
/// the belief changes the worlds (`belief=0` draws others).
#[test]
fn the_search_reads_hidden_kinds_only_through_the_belief() {
    let config = SearchConfig { simulations: 120, ..SearchConfig::default() };
    let mut compared = 0;
    for seed in 0..3u64 {
        let start = Position::new_game(Rules::preset(Mode::Anqi), 440 + seed);
        let (a, b) = two_officers(&start, Army::ALL[1]);
        let (mut x, mut y) = (Table::new(start.clone()), Table::new(swapped(&start, a, b)));
        let mut rng = rng_from_seed(seed);
        // A few plies in which the two truths are announced alike.
        for _ in 0..12 {
            // Officers move alike whatever their rank: the same moves are legal in both.
            let mv = x.random_move(&mut rng).unwrap();
            x.play(mv);
            y.play(mv);
            if x.log.last() != y.log.last() {
                break;
            }
        }
        let seat = x.truth.turn().index();
        let (ix, iy) = (&x.seats[seat], &y.seats[seat]);
        if ix != iy || x.truth.outcome().is_some() || seat == 1 {
            continue; // announced apart, or army 1 to move: nothing to compare
        }
        let (mx, lx) = searched(ix, config, Box::new(from_the_set));
        let (my, ly) = searched(iy, config, Box::new(from_the_set));
        assert_eq!((&mx, &lx), (&my, &ly), "seed {seed}: the search told the truths apart");
        assert!(lx.len() > 100, "{} evaluations", lx.len());
        let (tx, ty) = (oracle(&x.truth), oracle(&y.truth));
        let (_, cx) = searched(ix, config, Box::new(move |_| Some(tx.clone())));
        let (_, cy) = searched(iy, config, Box::new(move |_| Some(ty.clone())));
        assert_ne!(cx, cy, "seed {seed}: a belief read from the truth shows in the worlds");
        let (_, uniform) = searched(ix, SearchConfig { belief: false, ..config }, Box::new(from_the_set));
        assert_ne!(uniform, lx, "seed {seed}: belief=0 draws other worlds");
        compared += 1;
    }
    assert!(compared >= 2, "{compared} positions compared");
}
