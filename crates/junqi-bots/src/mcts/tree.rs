//! The search tree: one arena of nodes keyed by the action sequence from the
//! root, children as sibling lists, and a stamped action table to find a
//! node's child for an action without allocating.

use junqi_core::{Move, Square, ACTIONS};

pub(crate) const NONE: u32 = u32::MAX;

/// One node: the action that leads to it from its parent, and its statistics
/// from the point of view of the seat that chose that action.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub mv: Move,
    pub first_child: u32,
    pub next_sibling: u32,
    pub visits: u32,
    /// Availability count (ISMCTS): simulations in which this node's action
    /// was legal at its parent.
    pub avail: u32,
    /// Sum of the values backed up through this node, for the seat that chose `mv`.
    pub value: f32,
    /// Sum of the draw chances backed up through this node (the same for both seats).
    pub draws: f32,
    /// Prior probability of `mv` at its parent (PUCT); 0 when there are none.
    pub prior: f32,
    /// This node's own table of priors for its children in `Tree::priors`
    /// (start, length); length 0: no priors, select by UCB1.
    pub priors_at: (u32, u32),
}

impl Node {
    pub fn mean(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value / self.visits as f32
        }
    }

    /// The mean score for the seat that chose `mv` when it counts a draw as
    /// `draw_score` ([`super::LeafValue::scored`]).
    pub fn score(&self, draw_score: f32) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            (self.value + draw_score * self.draws) / self.visits as f32
        }
    }
}

/// The arena. Cleared (not freed) between searches.
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    /// Priors tables of all nodes, back to back.
    pub priors: Vec<(Move, f32)>,
    /// `lookup[action_id] = (stamp, child)`: valid when the stamp is current.
    lookup: Vec<(u32, u32)>,
    stamp: u32,
}

impl Tree {
    pub fn new() -> Tree {
        Tree { nodes: Vec::new(), priors: Vec::new(), lookup: vec![(0, NONE); ACTIONS], stamp: 0 }
    }

    /// Start a new search: only the root is left.
    pub fn reset(&mut self) {
        self.nodes.clear();
        self.priors.clear();
        let zero = Square::new(0).expect("square 0");
        self.nodes.push(Node {
            mv: Move::flip(zero),
            first_child: NONE,
            next_sibling: NONE,
            visits: 0,
            avail: 0,
            value: 0.0,
            draws: 0.0,
            prior: 0.0,
            priors_at: (0, 0),
        });
    }

    pub fn add_child(&mut self, parent: u32, mv: Move, prior: f32) -> u32 {
        let id = self.nodes.len() as u32;
        let next = self.nodes[parent as usize].first_child;
        self.nodes.push(Node {
            mv,
            first_child: NONE,
            next_sibling: next,
            visits: 0,
            avail: 1,
            value: 0.0,
            draws: 0.0,
            prior,
            priors_at: (0, 0),
        });
        self.nodes[parent as usize].first_child = id;
        id
    }

    /// Make [`Tree::child`] answer for `parent`'s children.
    pub fn index_children(&mut self, parent: u32) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.lookup.fill((0, NONE));
            self.stamp = 1;
        }
        let mut c = self.nodes[parent as usize].first_child;
        while c != NONE {
            self.lookup[self.nodes[c as usize].mv.action_id()] = (self.stamp, c);
            c = self.nodes[c as usize].next_sibling;
        }
    }

    /// The child for `mv` of the node last passed to [`Tree::index_children`].
    #[inline]
    pub fn child(&self, mv: Move) -> Option<u32> {
        let (stamp, c) = self.lookup[mv.action_id()];
        (stamp == self.stamp).then_some(c)
    }

    /// Keep `priors` (one per action of `moves`) as `node`'s table.
    pub fn set_priors(&mut self, node: u32, moves: &[Move], priors: &[f32]) {
        let start = self.priors.len() as u32;
        self.priors.extend(moves.iter().copied().zip(priors.iter().copied()));
        self.nodes[node as usize].priors_at = (start, moves.len() as u32);
    }

    /// `node`'s prior for `mv`, if it has a table that lists it.
    pub fn prior(&self, node: u32, mv: Move) -> Option<f32> {
        let (start, len) = self.nodes[node as usize].priors_at;
        self.priors[start as usize..(start + len) as usize].iter().find(|(m, _)| *m == mv).map(|&(_, p)| p)
    }

    /// The root's children.
    pub fn root_children(&self) -> impl Iterator<Item = &Node> + '_ {
        let mut c = self.nodes[0].first_child;
        std::iter::from_fn(move || {
            if c == NONE {
                return None;
            }
            let node = &self.nodes[c as usize];
            c = node.next_sibling;
            Some(node)
        })
    }
}
