//! A compact code of one seat's four-player observation (docs/observation.md,
//! "The four-player code"): what a training sample stores in place of the
//! [`crate::observation`] planes, from which those planes are rebuilt
//! exactly ([`SiguoCode::planes`]), and the belief head's layout: its
//! training targets ([`hidden_kind_targets`]) and its answer by absolute
//! node ([`belief_by_node`]).
//!
//! Everything is seat-relative, as the planes are: node `j` of the code is
//! the seat's relative node `j` ([`crate::observation::relative_node`]) and
//! an army is relative army `r` (0 the seat, 1 on its right, 2 its ally, 3
//! on its left). The bytes ([`SiguoCode::to_bytes`], [`CODE_LEN`] of them):
//!
//! | bytes | field |
//! |---|---|
//! | 0 | the seat (army 0–3) |
//! | 1 | the relative army to move |
//! | 2 | ended armies: bit `r` set when relative army `r` has ended |
//! | 3 | rule flags: bit `i` = rule plane `i` of the planes (`turn_order = clockwise` … `hq_locked = false`) |
//! | 4–7, 8–11 | `quiet`, `ply` (u32, little-endian) |
//! | 12–15, 16–19 | the rules' `no_progress_plies`, `max_plies` (u32, little-endian) |
//! | 20 + 2j | relative node `j` (0–128): 0 when empty, else `(r + 1) << 12 \| kinds` (u16, little-endian), `kinds` the seat's possible-kinds bitmask of the piece (bit `k` = kind `k` of §2's table) |

use crate::board::{tables, Army, Node, NodeKind, NODES};
use crate::infoset::SiguoInfoSet;
use crate::observation::{
    relative_army, relative_node, BufferLength, CELLS, GRID, OBS_LEN, PLANE_CAMP, PLANE_ENDED, PLANE_HQ, PLANE_KINDS,
    PLANE_NODE, PLANE_OCCUPIED, PLANE_PLY, PLANE_QUIET, PLANE_RAILWAY, PLANE_RULES, PLANE_TO_MOVE,
};
use crate::position::Position;
use crate::rules::{RailTurns, Rules, TurnOrder};
use junqi_core::piece::{Kind, KindSet, KINDS};
use junqi_core::rules::MineRule;
use junqi_core::KindBelief;

/// The code's name, as datasets record it.
pub const CODE_FORMAT: &str = "siguo-code/1";
/// Bytes of one code.
pub const CODE_LEN: usize = HEADER + 2 * NODES;
const HEADER: usize = 20;
/// The possible-kinds bits of a node entry.
const KIND_BITS: u16 = (1 << KINDS) - 1;

/// One seat's observation, compactly (see the module's table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiguoCode {
    pub seat: Army,
    /// Relative army to move.
    pub to_move: u8,
    /// Bit `r`: relative army `r` has ended.
    pub ended: u8,
    /// Bit `i`: rule plane `i` is on.
    pub rule_flags: u8,
    pub quiet: u32,
    pub ply: u32,
    pub no_progress_plies: u32,
    pub max_plies: u32,
    /// Per relative node: 0 empty, else `(r + 1) << 12 | kinds`.
    pub nodes: [u16; NODES],
}

/// Bytes that are not a code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a {CODE_FORMAT} code: {0}")]
pub struct CodeError(pub String);

/// The rule planes' options, in plane order (docs/observation.md).
pub fn rule_flags(rules: &Rules) -> u8 {
    let options = [
        rules.turn_order == TurnOrder::Clockwise,
        rules.rail_turns == RailTurns::OneTurn,
        rules.palace_arcs,
        rules.bomb_flies,
        rules.bomb_front_rank,
        rules.mine_rule == MineRule::Trade,
        !rules.commander_hits_mine,
        !rules.hq_locked,
    ];
    options.iter().enumerate().fold(0, |acc, (i, &on)| acc | (u8::from(on) << i))
}

impl SiguoCode {
    /// The code of `info`'s seat.
    pub fn of(info: &SiguoInfoSet) -> SiguoCode {
        let seat = info.seat();
        let rules = info.rules();
        let mut nodes = [0u16; NODES];
        for (node, army, kinds) in info.pieces() {
            let r = relative_army(seat, army) as u16;
            nodes[relative_node(seat, node).index()] = ((r + 1) << 12) | (kinds & KIND_BITS);
        }
        let ended = Army::ALL
            .iter()
            .filter(|&&a| info.ended(a).is_some())
            .fold(0u8, |acc, &a| acc | (1 << relative_army(seat, a)));
        SiguoCode {
            seat,
            to_move: relative_army(seat, info.turn()) as u8,
            ended,
            rule_flags: rule_flags(rules),
            quiet: info.quiet(),
            ply: info.ply(),
            no_progress_plies: rules.no_progress_plies,
            max_plies: rules.max_plies,
            nodes,
        }
    }

    /// The [`CODE_LEN`] bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(CODE_LEN);
        out.extend([self.seat.index() as u8, self.to_move, self.ended, self.rule_flags]);
        for v in [self.quiet, self.ply, self.no_progress_plies, self.max_plies] {
            out.extend(v.to_le_bytes());
        }
        for v in self.nodes {
            out.extend(v.to_le_bytes());
        }
        out
    }

    /// A code from its bytes, checked: the length, the seat, the army to
    /// move, the flags and every node entry in range.
    pub fn from_bytes(bytes: &[u8]) -> Result<SiguoCode, CodeError> {
        let bad = |m: String| Err(CodeError(m));
        if bytes.len() != CODE_LEN {
            return bad(format!("{} bytes, a code has {CODE_LEN}", bytes.len()));
        }
        let Some(seat) = Army::new(bytes[0] as usize) else { return bad(format!("seat {}", bytes[0])) };
        if bytes[1] > 3 || bytes[2] > 15 {
            return bad(format!("army to move {} or ended armies {:#x} out of range", bytes[1], bytes[2]));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("four bytes"));
        let mut nodes = [0u16; NODES];
        for (j, v) in nodes.iter_mut().enumerate() {
            *v = u16::from_le_bytes([bytes[HEADER + 2 * j], bytes[HEADER + 2 * j + 1]]);
            if *v != 0 && (*v >> 12 == 0 || *v >> 12 > 4 || *v & KIND_BITS == 0) {
                return bad(format!("node {j}: entry {v:#06x}"));
            }
        }
        if u32_at(12) == 0 || u32_at(16) == 0 {
            return bad("no_progress_plies or max_plies is 0".into());
        }
        Ok(SiguoCode {
            seat,
            to_move: bytes[1],
            ended: bytes[2],
            rule_flags: bytes[3],
            quiet: u32_at(4),
            ply: u32_at(8),
            no_progress_plies: u32_at(12),
            max_plies: u32_at(16),
            nodes,
        })
    }

    /// The pieces as (relative node, relative army, possible kinds).
    pub fn pieces(&self) -> impl Iterator<Item = (Node, usize, KindSet)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(j, &v)| (Node::new(j).expect("a node"), (v >> 12) as usize - 1, v & KIND_BITS))
    }

    /// How far the quiet-move counter has run towards its draw (§10.9):
    /// `quiet / no_progress_plies`, at most 1 (plane `PLANE_QUIET`).
    pub fn quiet_fraction(&self) -> f32 {
        (self.quiet as f32 / self.no_progress_plies.max(1) as f32).min(1.0)
    }

    /// The pieces on the board of the seat's team and of the enemy team
    /// (relative armies 0 and 2, and 1 and 3).
    pub fn team_pieces(&self) -> (u32, u32) {
        let mut count = [0u32; 2];
        for (_, r, _) in self.pieces() {
            count[r % 2] += 1;
        }
        (count[0], count[1])
    }

    /// The relative army of the piece on relative node `node` (`None` when
    /// it is empty or past the board). Relative armies 1 and 3 are the
    /// seat's enemies, 2 its ally.
    pub fn army_at(&self, node: usize) -> Option<usize> {
        self.nodes.get(node).filter(|&&v| v != 0).map(|&v| (v >> 12) as usize - 1)
    }

    /// Whether playing action `action` (`from × 129 + to`, seat-relative)
    /// surely resets the quiet-move counter (§10.9): an attack on an enemy
    /// army's piece, since a fight removes a piece, save where the attacker
    /// is a 司令 and the defender may be a mine while `commander_hits_mine`
    /// is off (§10.7: the 司令 stops at the mine, nothing leaves). A quiet
    /// move that happens to end an army also resets it; that is not
    /// counted.
    pub fn is_progress(&self, action: usize) -> bool {
        let (from, to) = (action / NODES, action % NODES);
        if !self.army_at(to).is_some_and(|r| r % 2 == 1) {
            return false;
        }
        let bounces = self.rule_flags & (1 << 6) != 0; // !commander_hits_mine, plane 72
        let kinds = |node: usize| self.nodes.get(node).map_or(0, |&v| v & KIND_BITS);
        !(bounces && kinds(from) & Kind::Commander.bit() != 0 && kinds(to) & Kind::Mine.bit() != 0)
    }

    /// The observation planes ([`crate::observation::encode`]'s, exactly) into
    /// `out` (length [`OBS_LEN`]; overwritten).
    pub fn planes_into(&self, out: &mut [f32]) -> Result<(), BufferLength> {
        if out.len() != OBS_LEN {
            return Err(BufferLength(out.len()));
        }
        out.fill(0.0);
        let t = tables(self.rule_flags & 4 != 0);
        let cell = |node: Node| {
            let (x, y) = node.coords();
            y as usize * GRID + x as usize
        };
        let mut set = |plane: usize, c: usize| out[plane * CELLS + c] = 1.0;
        for node in Node::all() {
            // The node the seat sees at relative node `node`'s place.
            let (c, absolute) = (cell(node), crate::observation::absolute_node(self.seat, node));
            set(PLANE_NODE, c);
            if t.railway.contains(absolute) {
                set(PLANE_RAILWAY, c);
            }
            match absolute.kind() {
                NodeKind::Camp => set(PLANE_CAMP, c),
                NodeKind::Headquarters => set(PLANE_HQ, c),
                NodeKind::Post => {}
            }
        }
        for (node, r, kinds) in self.pieces() {
            set(PLANE_OCCUPIED + r, cell(node));
            for k in Kind::in_set(kinds) {
                set(PLANE_KINDS + KINDS * r + k.index(), cell(node));
            }
        }
        let mut fill = |plane: usize, v: f32| out[plane * CELLS..(plane + 1) * CELLS].fill(v);
        fill(PLANE_TO_MOVE + self.to_move as usize, 1.0);
        for r in (0..4).filter(|r| self.ended & (1 << r) != 0) {
            fill(PLANE_ENDED + r, 1.0);
        }
        fill(PLANE_QUIET, self.quiet_fraction());
        fill(PLANE_PLY, (self.ply as f32 / self.max_plies as f32).min(1.0));
        for i in (0..8).filter(|i| self.rule_flags & (1 << i) != 0) {
            fill(PLANE_RULES + i, 1.0);
        }
        Ok(())
    }

    /// The observation planes.
    pub fn planes(&self) -> Vec<f32> {
        let mut out = vec![0.0; OBS_LEN];
        self.planes_into(&mut out).expect("the buffer has OBS_LEN floats");
        out
    }
}

/// The belief head's targets for `info`'s seat in `truth` (the referee's
/// position, which `info` was kept from): per seat-relative node (the
/// [`NODES`] of the head's layout), 1 + the true kind of a piece of an army
/// the seat does not see whose kind its set leaves open, else 0. Empty
/// when there is no such piece (全明, or every such kind already proven).
pub fn hidden_kind_targets(truth: &Position, info: &SiguoInfoSet) -> Vec<u8> {
    let seat = info.seat();
    let mut out = Vec::new();
    for (node, piece) in truth.pieces() {
        if info.sees(piece.army) || info.possible_kinds(node).count_ones() <= 1 {
            continue;
        }
        if out.is_empty() {
            out.resize(NODES, 0);
        }
        out[relative_node(seat, node).index()] = 1 + piece.kind.index() as u8;
    }
    out
}

/// A belief head's answer for `seat` (per seat-relative node, [`KINDS`]
/// probabilities each: `node * KINDS + kind`) by absolute node, as
/// [`SiguoInfoSet::sample_world_believing`] reads it; a short answer leaves
/// the nodes it misses empty (uniform).
pub fn belief_by_node(seat: Army, probs: &[f32]) -> KindBelief {
    let mut belief = KindBelief::with_nodes(NODES);
    for node in Node::all() {
        let r = relative_node(seat, node).index();
        if let Some(p) = probs.get(r * KINDS..(r + 1) * KINDS) {
            belief.probs[node.index()].copy_from_slice(p);
        }
    }
    belief
}
