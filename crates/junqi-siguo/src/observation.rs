//! Observation planes and legal-action masks for the four-player board
//! (docs/observation.md, "The four-player board"), from one seat's
//! [`SiguoInfoSet`] only and seen from that seat: its own army always at the
//! bottom of the 17 × 17 grid the board is drawn on (§10.1).
//!
//! Seat-relative armies: relative army `r` of seat `s` is army `(s + r) mod
//! 4`, so 0 is the seat itself, 1 the army on its right (next
//! counterclockwise), 2 its ally, 3 the army on its left. A node is turned
//! with the board: army `a`'s square `q` becomes relative army `(a − s)`'s
//! square `q`, the centre's palaces likewise, which is the quarter turns of
//! §10.1's drawing that bring army `s` to the bottom.

use crate::board::{tables, Army, Node, NodeKind, MIDDLE, NODES, ZONE};
use crate::infoset::SiguoInfoSet;
use crate::position::{Move, MoveList};
use junqi_core::piece::{Kind, KINDS};

/// Side of the grid the board is drawn on (§10.1).
pub const GRID: usize = 17;
/// Cells of one plane.
pub const CELLS: usize = GRID * GRID;

/// Plane 0: 1 on the 129 real nodes of the grid.
pub const PLANE_NODE: usize = 0;
/// Plane 1: railway nodes (§10.3; the palace arcs are not drawn, see the rule planes).
pub const PLANE_RAILWAY: usize = 1;
/// Plane 2: camps (行营).
pub const PLANE_CAMP: usize = 2;
/// Plane 3: headquarters (大本营).
pub const PLANE_HQ: usize = 3;
/// Planes 4–7: a piece of relative army `r` stands here.
pub const PLANE_OCCUPIED: usize = 4;
/// Planes 8–55: `8 + 12 r + k`: the piece of relative army `r` here may be
/// kind `k` (index of §2's table: 司令 0 … 军旗 11). One plane set for a
/// piece the seat knows; the seat's possible kinds otherwise.
pub const PLANE_KINDS: usize = 8;
/// Planes 56–59: the whole plane is 1 when relative army `r` is to move.
pub const PLANE_TO_MOVE: usize = PLANE_KINDS + 4 * KINDS;
/// Planes 60–63: the whole plane is 1 when relative army `r` has ended.
pub const PLANE_ENDED: usize = PLANE_TO_MOVE + 4;
/// Plane 64: `quiet / no_progress_plies` everywhere (§10.9).
pub const PLANE_QUIET: usize = PLANE_ENDED + 4;
/// Plane 65: `ply / max_plies` everywhere.
pub const PLANE_PLY: usize = PLANE_QUIET + 1;
/// Planes 66–73: 1 everywhere when the option differs from its default:
/// `turn_order = clockwise`, `rail_turns = one_turn`, `palace_arcs`,
/// `bomb_flies`, `bomb_front_rank`, `mine_rule = trade`,
/// `commander_hits_mine = false`, `hq_locked = false`.
pub const PLANE_RULES: usize = PLANE_PLY + 1;
/// Number of planes.
pub const PLANES: usize = PLANE_RULES + 8;
/// Length of one observation: `PLANES × 17 × 17`, plane-major, then row, then column.
pub const OBS_LEN: usize = PLANES * CELLS;
/// Number of actions: every (from, to) pair of seat-relative nodes.
pub const ACTIONS: usize = NODES * NODES;

/// `node` as `seat` sees it: the board turned so that `seat` sits at army 0's place.
pub fn relative_node(seat: Army, node: Node) -> Node {
    turn_node(node, 4 - seat.index())
}

/// The inverse of [`relative_node`].
pub fn absolute_node(seat: Army, node: Node) -> Node {
    turn_node(node, seat.index())
}

/// Relabel `node` as if every army's number grew by `by` (mod 4).
fn turn_node(node: Node, by: usize) -> Node {
    let i = node.index();
    let j = match node.zone() {
        Some(a) => ((a.index() + by) % 4) * ZONE + i % ZONE,
        None if i == MIDDLE => i,
        None if i < 125 => 121 + (i - 121 + by) % 4,
        None => 125 + (i - 125 + by) % 4,
    };
    Node::new(j).expect("a node")
}

/// The army `seat` calls relative army `r`.
pub fn relative_army(seat: Army, army: Army) -> usize {
    (army.index() + 4 - seat.index()) % 4
}

/// The grid cell (`y * 17 + x`) where `seat` sees `node`.
pub fn cell(seat: Army, node: Node) -> usize {
    let (x, y) = relative_node(seat, node).coords();
    y as usize * GRID + x as usize
}

/// The action index of `mv` for `seat`: `from × 129 + to` in seat-relative nodes.
pub fn action_index(seat: Army, mv: Move) -> usize {
    relative_node(seat, mv.from).index() * NODES + relative_node(seat, mv.to).index()
}

/// The move of an action index for `seat` (`None` past the table).
pub fn action_move(seat: Army, index: usize) -> Option<Move> {
    if index >= ACTIONS {
        return None;
    }
    let (from, to) = (Node::new(index / NODES)?, Node::new(index % NODES)?);
    Some(Move::new(absolute_node(seat, from), absolute_node(seat, to)))
}

/// A buffer of the wrong length for [`encode_into`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an observation is {OBS_LEN} floats, the buffer holds {0}")]
pub struct BufferLength(pub usize);

/// The observation of `info`'s seat into `out` (length [`OBS_LEN`]; overwritten).
pub fn encode_into(info: &SiguoInfoSet, out: &mut [f32]) -> Result<(), BufferLength> {
    if out.len() != OBS_LEN {
        return Err(BufferLength(out.len()));
    }
    out.fill(0.0);
    let seat = info.seat();
    let rules = info.rules();
    let t = tables(rules.palace_arcs);
    let mut set = |plane: usize, c: usize, v: f32| out[plane * CELLS + c] = v;
    for node in Node::all() {
        let c = cell(seat, node);
        set(PLANE_NODE, c, 1.0);
        if t.railway.contains(node) {
            set(PLANE_RAILWAY, c, 1.0);
        }
        match node.kind() {
            NodeKind::Camp => set(PLANE_CAMP, c, 1.0),
            NodeKind::Headquarters => set(PLANE_HQ, c, 1.0),
            NodeKind::Post => {}
        }
    }
    for (node, army, kinds) in info.pieces() {
        let (c, r) = (cell(seat, node), relative_army(seat, army));
        set(PLANE_OCCUPIED + r, c, 1.0);
        for k in Kind::in_set(kinds) {
            set(PLANE_KINDS + KINDS * r + k.index(), c, 1.0);
        }
    }
    let mut fill = |plane: usize, v: f32| out[plane * CELLS..(plane + 1) * CELLS].fill(v);
    fill(PLANE_TO_MOVE + relative_army(seat, info.turn()), 1.0);
    for army in Army::ALL {
        if info.ended(army).is_some() {
            fill(PLANE_ENDED + relative_army(seat, army), 1.0);
        }
    }
    fill(PLANE_QUIET, (info.quiet() as f32 / rules.no_progress_plies as f32).min(1.0));
    fill(PLANE_PLY, (info.ply() as f32 / rules.max_plies as f32).min(1.0));
    let flags = crate::code::rule_flags(rules);
    for i in (0..8).filter(|i| flags & (1 << i) != 0) {
        fill(PLANE_RULES + i, 1.0);
    }
    Ok(())
}

/// The observation of `info`'s seat.
pub fn encode(info: &SiguoInfoSet) -> Vec<f32> {
    let mut out = vec![0.0; OBS_LEN];
    encode_into(info, &mut out).expect("the buffer has OBS_LEN floats");
    out
}

/// The legal-action mask of `info`'s seat (length [`ACTIONS`]): true at the
/// index of each legal move; all false when the seat is not to move or the
/// game is over.
pub fn legal_action_mask(info: &SiguoInfoSet) -> Vec<bool> {
    let mut mask = vec![false; ACTIONS];
    let mut moves = MoveList::new();
    info.legal_moves(&mut moves);
    for &mv in &moves {
        mask[action_index(info.seat(), mv)] = true;
    }
    mask
}
