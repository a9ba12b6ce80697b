//! Observation planes and legal-action masks, built from one seat's
//! [`InfoSet`] only. The full plane table is in `docs/observation.md`.
//!
//! An observation is `OBS_CHANNELS` planes of `12 × 5` floats, row-major
//! (`[C, 12, 5]`), in the observing seat's frame ([`crate::frame`]): plane
//! entry `row * 5 + col` is the node at rank `row + 1`, file `col` as that
//! seat sees the board, so row 0 is always its own back rank. For seat 1 this
//! is the node index itself; seat 2 sees the board rotated by 180°.
//!
//! "Mine" and "enemy" are colours: the observing seat's colour and the other
//! one. In 翻棋 before colours are assigned, "mine" is Red and "enemy" is Black
//! (plane [`COLOURS_ASSIGNED`] is 0 then, so the two cases are told apart).

use crate::frame::square_to_frame;
use junqi_core::board::{squares, Bitboard, CAMPS, HEADQUARTERS, MOUNTAIN_SIDES, NODES, RAILWAY};
use junqi_core::piece::KINDS;
use junqi_core::rules::{ColorRule, FlagCapturer, MineRule, Mountains, RailTurns};
use junqi_core::{Colour, InfoSet, Kind, Mode, MoveList, Seat, HISTORY_PLIES};

/// Nodes per plane (12 rows × 5 columns).
pub const PLANE: usize = NODES;

// ---- plane indices (see docs/observation.md) ----

/// 12 planes, one per kind (`Kind` order: 司令 … 军旗): the observing seat's own
/// pieces whose kind it knows (face-up; in 暗棋/明棋 all of them).
pub const OWN_KIND: usize = 0;
/// 12 planes, one per kind: 1 where an enemy piece stands and that kind is
/// still possible for it (a single kind for a known piece; the 暗棋 belief set).
pub const ENEMY_KIND: usize = OWN_KIND + KINDS;
/// Own pieces (face-up in 翻棋).
pub const OWN_OCCUPANCY: usize = ENEMY_KIND + KINDS;
/// Enemy pieces (face-up in 翻棋).
pub const ENEMY_OCCUPANCY: usize = OWN_OCCUPANCY + 1;
/// 翻棋 face-down pieces (colour unknown).
pub const FACE_DOWN: usize = ENEMY_OCCUPANCY + 1;
/// 12 constant planes: 翻棋 face-down pieces of my colour per kind / the kind's army count.
pub const POOL_OWN: usize = FACE_DOWN + 1;
/// 12 constant planes: 翻棋 face-down pieces of the enemy colour per kind / army count.
pub const POOL_ENEMY: usize = POOL_OWN + KINDS;
/// 12 constant planes: my pieces on the board per kind (face-up or down) / army count.
pub const MATERIAL_OWN: usize = POOL_ENEMY + KINDS;
/// 12 constant planes: enemy pieces on the board per kind / army count
/// (暗棋: an upper bound, the army less the removed pieces whose kind is known).
pub const MATERIAL_ENEMY: usize = MATERIAL_OWN + KINDS;
/// Static board: camps (行营).
pub const CAMP: usize = MATERIAL_ENEMY + KINDS;
/// Static board: headquarters (大本营).
pub const HQ: usize = CAMP + 1;
/// Static board: railway nodes.
pub const RAIL: usize = HQ + 1;
/// Constant: `min(quiet / no_progress_plies, 1)`.
pub const QUIET: usize = RAIL + 1;
/// Constant: `min(ply / max_plies, 1)`.
pub const PLY: usize = QUIET + 1;
/// Constant: 1 once colours are assigned (always in 暗棋/明棋).
pub const COLOURS_ASSIGNED: usize = PLY + 1;
/// Constant: 1 when the observing seat plays Red (0 while unassigned).
pub const MY_COLOUR_RED: usize = COLOURS_ASSIGNED + 1;
/// Constant: 1 when the observing seat is seat 2.
pub const SEAT_TWO: usize = MY_COLOUR_RED + 1;
/// 2 constant planes: 翻棋 before assignment, the previous flip was Red / Black
/// (what `two_in_a_row` looks at).
pub const LAST_FLIP: usize = SEAT_TWO + 1;
/// 3 constant planes, one-hot: fanqi, anqi, mingqi.
pub const MODE: usize = LAST_FLIP + 2;
/// Rule option `hq_locked`.
pub const OPT_HQ_LOCKED: usize = MODE + 3;
/// Rule option `mine_rule = trade`.
pub const OPT_MINE_TRADE: usize = OPT_HQ_LOCKED + 1;
/// 3 planes, one-hot `rail_turns`: engineer, none, all.
pub const OPT_RAIL_TURNS: usize = OPT_MINE_TRADE + 1;
/// Rule option `bomb_flies`.
pub const OPT_BOMB_FLIES: usize = OPT_RAIL_TURNS + 3;
/// Rule option `bomb_captures_flag`.
pub const OPT_BOMB_CAPTURES_FLAG: usize = OPT_BOMB_FLIES + 1;
/// Rule option `flag_capturer = lowest`.
pub const OPT_FLAG_LOWEST: usize = OPT_BOMB_CAPTURES_FLAG + 1;
/// Rule option `attack_hidden`.
pub const OPT_ATTACK_HIDDEN: usize = OPT_FLAG_LOWEST + 1;
/// Rule option `engineer_scout`.
pub const OPT_ENGINEER_SCOUT: usize = OPT_ATTACK_HIDDEN + 1;
/// Rule option `color_rule = two_in_a_row`.
pub const OPT_TWO_IN_A_ROW: usize = OPT_ENGINEER_SCOUT + 1;
/// Rule option `reveal_flag_on_commander_loss`.
pub const OPT_REVEAL_FLAG: usize = OPT_TWO_IN_A_ROW + 1;

/// 8 per-node planes, the seat's history ([`junqi_core::History`]): the last
/// 4 actions, newest first; plane `HISTORY + 2i` is the node the action
/// `i + 1` plies ago started from, `HISTORY + 2i + 1` the node it ended on
/// (a flip: the same node). Public in every mode.
pub const HISTORY: usize = OPT_REVEAL_FLAG + 1;
/// Constant: 1 when the seat has seen the board in front of it before
/// (since the last attack or flip).
pub const SEEN_BEFORE: usize = HISTORY + 2 * HISTORY_PLIES;
/// Constant: 1 when it has seen it at least twice before.
pub const SEEN_TWICE: usize = SEEN_BEFORE + 1;

/// Planes of the second observation (`obs-code-v2`, before the rule-state
/// planes): 0–109. A net made for it reads the first 110 planes.
pub const V2_CHANNELS: usize = SEEN_TWICE + 1;
/// Rule option `flag_carry` (翻棋).
pub const OPT_FLAG_CARRY: usize = V2_CHANNELS;
/// Rule option `hunqi` (翻棋).
pub const OPT_HUNQI: usize = OPT_FLAG_CARRY + 1;
/// 2 planes, `mountains`: `open`, `engineer` (both 0 for `closed`).
pub const OPT_MOUNTAINS: usize = OPT_HUNQI + 1;
/// 4 per-node planes (`flag_carry`): where my flag is carried, where it lies
/// under a piece, then the same for the enemy's flag.
pub const FLAG_WITH_PIECE: usize = OPT_MOUNTAINS + 2;
/// Per node (`mountains`): 1 on the four side nodes of a mountain that holds
/// one of my pieces.
pub const MOUNTAIN_OWN: usize = FLAG_WITH_PIECE + 4;
/// Per node: the same for a mountain that holds an enemy piece.
pub const MOUNTAIN_ENEMY: usize = MOUNTAIN_OWN + 1;
/// 12 per-node planes, one per kind: 1 on the four side nodes of a mountain
/// that holds a piece of that kind.
pub const MOUNTAIN_KIND: usize = MOUNTAIN_ENEMY + 1;

/// Number of planes of an observation.
pub const OBS_CHANNELS: usize = MOUNTAIN_KIND + KINDS;
/// Planes of the first observation (`obs-code-v1`, before the history
/// planes): 0–99. A net made for it reads the first 100 planes.
pub const V1_CHANNELS: usize = HISTORY;
/// The observation widths a two-player net may read, oldest first: a net
/// reads the first `in_channels` planes of today's observation.
pub const NET_WIDTHS: [usize; 3] = [V1_CHANNELS, V2_CHANNELS, OBS_CHANNELS];
/// The rule-option planes that came with `obs-code-v3`, as bits of
/// [`RuleState::options`]: bit `b` is plane `OPT_FLAG_CARRY + b`.
pub(crate) const V3_OPTION_PLANES: usize = FLAG_WITH_PIECE - OPT_FLAG_CARRY;
/// The 0/1 flag planes `COLOURS_ASSIGNED ..= OPT_REVEAL_FLAG`.
pub(crate) const FLAG_PLANES: usize = V1_CHANNELS - COLOURS_ASSIGNED;
/// Floats per observation: `OBS_CHANNELS × 12 × 5`.
pub const OBS_SIZE: usize = OBS_CHANNELS * PLANE;

/// Plane names in index order (for docs, debugging and dataset metadata).
pub fn plane_name(c: usize) -> Option<String> {
    const KIND_NAMES: [&str; KINDS] = [
        "commander",
        "general",
        "division",
        "brigade",
        "regiment",
        "battalion",
        "company",
        "platoon",
        "engineer",
        "bomb",
        "mine",
        "flag",
    ];
    let kind = |base: usize| KIND_NAMES[c - base];
    Some(match c {
        _ if c < ENEMY_KIND => format!("own_{}", kind(OWN_KIND)),
        _ if c < OWN_OCCUPANCY => format!("enemy_may_be_{}", kind(ENEMY_KIND)),
        OWN_OCCUPANCY => "own_occupancy".into(),
        ENEMY_OCCUPANCY => "enemy_occupancy".into(),
        FACE_DOWN => "face_down".into(),
        _ if c < POOL_ENEMY => format!("pool_own_{}", kind(POOL_OWN)),
        _ if c < MATERIAL_OWN => format!("pool_enemy_{}", kind(POOL_ENEMY)),
        _ if c < MATERIAL_ENEMY => format!("material_own_{}", kind(MATERIAL_OWN)),
        _ if c < CAMP => format!("material_enemy_{}", kind(MATERIAL_ENEMY)),
        CAMP => "camp".into(),
        HQ => "headquarters".into(),
        RAIL => "railway".into(),
        QUIET => "quiet_fraction".into(),
        PLY => "ply_fraction".into(),
        COLOURS_ASSIGNED => "colours_assigned".into(),
        MY_COLOUR_RED => "my_colour_red".into(),
        SEAT_TWO => "seat_two".into(),
        _ if c == LAST_FLIP => "last_flip_red".into(),
        _ if c == LAST_FLIP + 1 => "last_flip_black".into(),
        _ if c == MODE => "mode_fanqi".into(),
        _ if c == MODE + 1 => "mode_anqi".into(),
        _ if c == MODE + 2 => "mode_mingqi".into(),
        OPT_HQ_LOCKED => "opt_hq_locked".into(),
        OPT_MINE_TRADE => "opt_mine_rule_trade".into(),
        _ if c == OPT_RAIL_TURNS => "opt_rail_turns_engineer".into(),
        _ if c == OPT_RAIL_TURNS + 1 => "opt_rail_turns_none".into(),
        _ if c == OPT_RAIL_TURNS + 2 => "opt_rail_turns_all".into(),
        OPT_BOMB_FLIES => "opt_bomb_flies".into(),
        OPT_BOMB_CAPTURES_FLAG => "opt_bomb_captures_flag".into(),
        OPT_FLAG_LOWEST => "opt_flag_capturer_lowest".into(),
        OPT_ATTACK_HIDDEN => "opt_attack_hidden".into(),
        OPT_ENGINEER_SCOUT => "opt_engineer_scout".into(),
        OPT_TWO_IN_A_ROW => "opt_color_rule_two_in_a_row".into(),
        OPT_REVEAL_FLAG => "opt_reveal_flag_on_commander_loss".into(),
        _ if c < SEEN_BEFORE => {
            format!("last{}_{}", (c - HISTORY) / 2 + 1, if (c - HISTORY) % 2 == 0 { "from" } else { "to" })
        }
        SEEN_BEFORE => "seen_before".into(),
        SEEN_TWICE => "seen_twice".into(),
        OPT_FLAG_CARRY => "opt_flag_carry".into(),
        OPT_HUNQI => "opt_hunqi".into(),
        _ if c == OPT_MOUNTAINS => "opt_mountains_open".into(),
        _ if c == OPT_MOUNTAINS + 1 => "opt_mountains_engineer".into(),
        _ if c == FLAG_WITH_PIECE => "own_flag_carried".into(),
        _ if c == FLAG_WITH_PIECE + 1 => "own_flag_under_piece".into(),
        _ if c == FLAG_WITH_PIECE + 2 => "enemy_flag_carried".into(),
        _ if c == FLAG_WITH_PIECE + 3 => "enemy_flag_under_piece".into(),
        MOUNTAIN_OWN => "mountain_own".into(),
        MOUNTAIN_ENEMY => "mountain_enemy".into(),
        _ if c < OBS_CHANNELS => format!("mountain_{}", kind(MOUNTAIN_KIND)),
        _ => return None,
    })
}

/// The nodes of `bb` in `seat`'s frame.
#[inline]
fn bb_to_frame(bb: Bitboard, seat: Seat) -> Bitboard {
    match seat {
        Seat::First => bb,
        // Rotation by 180° maps node i to 59 - i: reverse the 64 bits, then
        // drop the 4 unused low bits.
        Seat::Second => bb.reverse_bits() >> (64 - NODES),
    }
}

#[inline]
fn set_nodes(plane: &mut [f32], bb: Bitboard) {
    for sq in squares(bb) {
        plane[sq.index()] = 1.0;
    }
}

#[inline]
fn plane_mut(out: &mut [f32], c: usize) -> &mut [f32] {
    &mut out[c * PLANE..(c + 1) * PLANE]
}

/// Set a constant plane (every plane outside the piece planes is written
/// exactly once per call, so the buffer is never cleared as a whole).
#[inline]
fn fill(out: &mut [f32], c: usize, value: f32) {
    plane_mut(out, c).fill(value);
}

#[inline]
fn flag(out: &mut [f32], c: usize, on: bool) {
    fill(out, c, on as u8 as f32);
}

/// The static board planes (camps, headquarters, railway). The board is
/// symmetric under the 180° rotation, so both seats share them.
pub(crate) static STATIC_PLANES: [f32; 3 * PLANE] = {
    let mut t = [0f32; 3 * PLANE];
    let boards = [CAMPS, HEADQUARTERS, RAILWAY];
    let mut p = 0;
    while p < 3 {
        let mut i = 0;
        while i < PLANE {
            if boards[p] >> i & 1 != 0 {
                t[p * PLANE + i] = 1.0;
            }
            i += 1;
        }
        p += 1;
    }
    t
};

/// The three static board planes (camps, headquarters, railway), 60 floats each.
pub fn static_planes() -> &'static [f32] {
    &STATIC_PLANES
}

/// Write the observation of `info`'s seat into `out` (`OBS_SIZE` floats,
/// `[C, 12, 5]` row-major, in that seat's frame: row 0 = its back rank).
///
/// Self-play passes the information set of the seat to move, so this is "the
/// mover's observation". Only `info` is read, never the hidden truth; nothing
/// is allocated, and every float of `out` is overwritten.
pub fn encode_observation(info: &InfoSet, out: &mut [f32]) {
    assert_eq!(out.len(), OBS_SIZE, "observation buffer must hold OBS_SIZE floats");
    let view = info.view();
    let seat = info.seat();
    let mode = view.mode();
    let mine = view.colour_of(seat).unwrap_or(Colour::Red);
    let enemy = mine.other();

    // ---- pieces: sparse, so clear these planes and set the few ones ----
    out[..POOL_OWN * PLANE].fill(0.0);
    let own_bb = view.colour_bb(mine);
    let enemy_bb = view.colour_bb(enemy);
    for sq in squares(own_bb) {
        if let Some(p) = view.piece_at(sq) {
            let f = square_to_frame(sq, seat).index();
            out[(OWN_KIND + p.kind.index()) * PLANE + f] = 1.0;
        }
    }
    for sq in squares(enemy_bb) {
        let f = square_to_frame(sq, seat).index();
        let set = match mode {
            Mode::Anqi => info.possible_kinds(sq),
            _ => view.piece_at(sq).map_or(0, |p| p.kind.bit()),
        };
        let mut s = set;
        while s != 0 {
            let k = s.trailing_zeros() as usize;
            s &= s - 1;
            out[(ENEMY_KIND + k) * PLANE + f] = 1.0;
        }
    }
    set_nodes(plane_mut(out, OWN_OCCUPANCY), bb_to_frame(own_bb, seat));
    set_nodes(plane_mut(out, ENEMY_OCCUPANCY), bb_to_frame(enemy_bb, seat));
    set_nodes(plane_mut(out, FACE_DOWN), bb_to_frame(view.face_down(), seat));

    // ---- counts, fractions and flags: constant-filled ----
    for (group, base) in counts(info).iter().zip([POOL_OWN, POOL_ENEMY, MATERIAL_OWN, MATERIAL_ENEMY]) {
        for kind in Kind::ALL {
            fill(out, base + kind.index(), group[kind.index()] as f32 / kind.count() as f32);
        }
    }
    let (quiet, ply) = fractions(view);
    fill(out, QUIET, quiet);
    fill(out, PLY, ply);
    let flags = flag_bits(info);
    for b in 0..FLAG_PLANES {
        flag(out, COLOURS_ASSIGNED + b, flags >> b & 1 == 1);
    }

    // ---- history: the last actions' nodes, then the repetitions ----
    out[HISTORY * PLANE..SEEN_BEFORE * PLANE].fill(0.0);
    for (i, (from, to)) in history_nodes(info).into_iter().enumerate() {
        if let Some((from, to)) = from.zip(to) {
            out[(HISTORY + 2 * i) * PLANE + from] = 1.0;
            out[(HISTORY + 2 * i + 1) * PLANE + to] = 1.0;
        }
    }
    let seen = seen_count(info);
    flag(out, SEEN_BEFORE, seen >= 1);
    flag(out, SEEN_TWICE, seen >= 2);

    // ---- the state of the rules that add some: options, loose flags, mountains ----
    let state = RuleState::of(info);
    for b in 0..V3_OPTION_PLANES {
        flag(out, OPT_FLAG_CARRY + b, state.options >> b & 1 == 1);
    }
    out[FLAG_WITH_PIECE * PLANE..].fill(0.0);
    state.for_each_node(|c, f| out[c * PLANE + f] = 1.0);

    // ---- static board ----
    out[CAMP * PLANE..(RAIL + 1) * PLANE].copy_from_slice(&STATIC_PLANES);
}

/// Whether plane `c` varies from node to node (pieces, the static board,
/// the last actions, loose flags, mountains); the others are constant.
pub fn varies_per_node(c: usize) -> bool {
    c < POOL_OWN || (CAMP..=RAIL).contains(&c) || (HISTORY..SEEN_BEFORE).contains(&c) || c >= FLAG_WITH_PIECE
}

/// The state behind the planes that came with `obs-code-v3`, in the seat's
/// frame: the rule options that add state, where a flag shares a node with
/// a piece (`flag_carry`), and who is in each mountain (`mountains`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RuleState {
    /// Bit `b`: plane `OPT_FLAG_CARRY + b`.
    pub options: u8,
    /// My flag, then the enemy's: the frame node of the piece it shares and
    /// whether that piece carries it.
    pub flags: [Option<(usize, bool)>; 2],
    /// Per mountain in the seat's frame (`MOUNTAIN_SIDES` order as the seat
    /// sees the board): its piece, as (an enemy piece?, kind).
    pub mountains: [Option<(bool, Kind)>; 2],
}

impl RuleState {
    pub fn of(info: &InfoSet) -> RuleState {
        let view = info.view();
        let seat = info.seat();
        let rules = view.rules();
        let mine = view.colour_of(seat).unwrap_or(Colour::Red);
        // As for the older option planes, an option that does not apply to
        // the mode (docs/rules.md §6) reads as off.
        let (fanqi, anqi) = (rules.mode == Mode::Fanqi, rules.mode == Mode::Anqi);
        let options = [
            fanqi && rules.flag_carry,
            fanqi && rules.hunqi,
            !anqi && rules.mountains == Mountains::Open,
            !anqi && rules.mountains == Mountains::Engineer,
        ];
        let mut state = RuleState {
            options: options.iter().enumerate().fold(0, |bits, (b, &on)| bits | (on as u8) << b),
            ..RuleState::default()
        };
        for (i, colour) in [mine, mine.other()].into_iter().enumerate() {
            state.flags[i] = view.loose_flag(colour).map(|l| (square_to_frame(l.at, seat).index(), l.carried));
        }
        for (i, side) in MOUNTAIN_SIDES.iter().enumerate() {
            // Seat 2's rotation swaps the two mountains.
            let frame = if bb_to_frame(*side, seat) == MOUNTAIN_SIDES[i] { i } else { 1 - i };
            state.mountains[frame] = view.mountain(i).map(|p| (p.colour != mine, p.kind));
        }
        state
    }

    /// Call `f(plane, node)` for every 1 of the per-node planes from
    /// [`FLAG_WITH_PIECE`] on; they are 0 elsewhere.
    pub fn for_each_node(&self, mut f: impl FnMut(usize, usize)) {
        for (i, flag) in self.flags.iter().enumerate() {
            if let Some((node, carried)) = *flag {
                f(FLAG_WITH_PIECE + 2 * i + !carried as usize, node);
            }
        }
        for (side, piece) in MOUNTAIN_SIDES.iter().zip(self.mountains) {
            if let Some((enemy, kind)) = piece {
                for sq in squares(*side) {
                    f(if enemy { MOUNTAIN_ENEMY } else { MOUNTAIN_OWN }, sq.index());
                    f(MOUNTAIN_KIND + kind.index(), sq.index());
                }
            }
        }
    }
}

/// The piece counts behind the count planes, per kind (`Kind` order), as
/// whole numbers: 翻棋 face-down pieces of my colour and of the enemy's,
/// then pieces on the board of mine and of the enemy's (暗棋: the bound).
pub(crate) fn counts(info: &InfoSet) -> [[u8; KINDS]; 4] {
    let view = info.view();
    let mine = view.colour_of(info.seat()).unwrap_or(Colour::Red);
    let enemy = mine.other();
    let fanqi = view.mode() == Mode::Fanqi;
    let mut c = [[0u8; KINDS]; 4];
    for kind in Kind::ALL {
        let k = kind.index();
        if fanqi {
            c[0][k] = info.unseen(mine, kind);
            c[1][k] = info.unseen(enemy, kind);
        }
        c[2][k] = view.count(mine, kind);
        c[3][k] = view.count(enemy, kind);
    }
    c
}

/// The last actions' (from, to) nodes in the seat's frame, newest first.
pub(crate) fn history_nodes(info: &InfoSet) -> [(Option<usize>, Option<usize>); HISTORY_PLIES] {
    let seat = info.seat();
    info.history()
        .recent()
        .map(|m| (m.map(|m| square_to_frame(m.from, seat).index()), m.map(|m| square_to_frame(m.to, seat).index())))
}

/// How often the seat saw the board in front of it before, capped at 2
/// (all the planes tell).
pub(crate) fn seen_count(info: &InfoSet) -> u8 {
    info.history().repetitions().min(2) as u8
}

/// Planes `quiet_fraction` and `ply_fraction`.
pub(crate) fn fractions(view: &junqi_core::Position) -> (f32, f32) {
    let rules = view.rules();
    (
        (view.quiet() as f32 / rules.no_progress_plies as f32).min(1.0),
        (view.ply() as f32 / rules.max_plies as f32).min(1.0),
    )
}

/// The 0/1 planes `COLOURS_ASSIGNED ..= OPT_REVEAL_FLAG` as bits: bit `b`
/// is plane `COLOURS_ASSIGNED + b`.
pub(crate) fn flag_bits(info: &InfoSet) -> u32 {
    let view = info.view();
    let seat = info.seat();
    let rules = view.rules();
    let mode = rules.mode;
    let fanqi = mode == Mode::Fanqi;
    let assigned = view.colour_of(seat);
    let last_flip = if assigned.is_none() { view.last_flip() } else { None };
    let planes = [
        (COLOURS_ASSIGNED, assigned.is_some()),
        (MY_COLOUR_RED, assigned == Some(Colour::Red)),
        (SEAT_TWO, seat == Seat::Second),
        (LAST_FLIP, last_flip == Some(Colour::Red)),
        (LAST_FLIP + 1, last_flip == Some(Colour::Black)),
        (MODE, mode == Mode::Fanqi),
        (MODE + 1, mode == Mode::Anqi),
        (MODE + 2, mode == Mode::Mingqi),
        (OPT_HQ_LOCKED, rules.hq_locked),
        (OPT_MINE_TRADE, rules.mine_rule == MineRule::Trade),
        (OPT_RAIL_TURNS, rules.rail_turns == RailTurns::Engineer),
        (OPT_RAIL_TURNS + 1, rules.rail_turns == RailTurns::None),
        (OPT_RAIL_TURNS + 2, rules.rail_turns == RailTurns::All),
        (OPT_BOMB_FLIES, rules.bomb_flies),
        (OPT_BOMB_CAPTURES_FLAG, rules.bomb_captures_flag),
        (OPT_FLAG_LOWEST, rules.flag_capturer == FlagCapturer::Lowest),
        (OPT_ATTACK_HIDDEN, fanqi && rules.attack_hidden),
        (OPT_ENGINEER_SCOUT, mode == Mode::Anqi && rules.engineer_scout),
        (OPT_TWO_IN_A_ROW, fanqi && rules.color_rule == ColorRule::TwoInARow),
        (OPT_REVEAL_FLAG, !fanqi && rules.reveal_flag_on_commander_loss),
    ];
    planes.iter().filter(|p| p.1).fold(0, |bits, p| bits | 1 << (p.0 - COLOURS_ASSIGNED))
}

/// Write the legal-action mask of the seat to move into `out` (3600 entries,
/// 1 = legal, in the mover's frame: from × to, flips on the diagonal).
/// `scratch` is reused move storage. The list is the one [`InfoSet::legal_moves`]
/// derives (equal to the referee's while the game goes on).
pub fn encode_mask(info: &InfoSet, scratch: &mut MoveList, out: &mut [u8]) {
    assert_eq!(out.len(), junqi_core::ACTIONS);
    info.legal_moves(scratch);
    mask_from_moves(scratch, info.view().turn(), out);
}

/// Write the mask of the absolute moves `moves` in `seat`'s frame into `out`
/// (3600 entries, cleared first).
pub fn mask_from_moves(moves: &MoveList, seat: Seat, out: &mut [u8]) {
    assert_eq!(out.len(), junqi_core::ACTIONS);
    out.fill(0);
    for &m in moves.iter() {
        out[crate::frame::action_to_frame(m, seat)] = 1;
    }
}

/// The packed form of [`mask_from_moves`] (what `pack_bits` of that mask
/// gives), written straight from the moves into `out` (450 bytes, cleared first).
pub fn packed_mask_from_moves(moves: &MoveList, seat: Seat, out: &mut [u8]) {
    assert_eq!(out.len(), junqi_core::ACTIONS / 8);
    out.fill(0);
    for &m in moves.iter() {
        let id = crate::frame::action_to_frame(m, seat);
        out[id / 8] |= 1 << (id % 8);
    }
}

/// Pack a 0/1 mask into bits, least significant bit first (3600 → 450 bytes).
pub fn pack_bits(mask: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; mask.len().div_ceil(8)];
    pack_bits_into(mask, &mut out);
    out
}

/// [`pack_bits`] into a caller-owned buffer of `mask.len().div_ceil(8)` bytes.
pub fn pack_bits_into(mask: &[u8], out: &mut [u8]) {
    assert_eq!(out.len(), mask.len().div_ceil(8));
    for (byte, chunk) in out.iter_mut().zip(mask.chunks(8)) {
        let mut b = 0u8;
        for (i, &m) in chunk.iter().enumerate() {
            b |= ((m != 0) as u8) << i;
        }
        *byte = b;
    }
}

/// Inverse of [`pack_bits`] for `len` entries.
pub fn unpack_bits(packed: &[u8], len: usize) -> Vec<u8> {
    (0..len).map(|i| (packed.get(i / 8).copied().unwrap_or(0) >> (i % 8)) & 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_indices_are_contiguous_and_named() {
        assert_eq!((V1_CHANNELS, V2_CHANNELS, OBS_CHANNELS), (100, 110, 132));
        assert_eq!(plane_name(HISTORY).unwrap(), "last1_from");
        assert_eq!(plane_name(SEEN_BEFORE - 1).unwrap(), "last4_to");
        let mut names = std::collections::HashSet::new();
        for c in 0..OBS_CHANNELS {
            let name = plane_name(c).unwrap_or_else(|| panic!("plane {c} has no name"));
            assert!(names.insert(name), "duplicate name at {c}");
        }
        assert_eq!(plane_name(OBS_CHANNELS), None);
    }

    #[test]
    fn bitboard_rotation_matches_square_rotation() {
        for sq in junqi_core::Square::all() {
            assert_eq!(bb_to_frame(sq.bit(), Seat::Second), sq.rotated().bit());
            assert_eq!(bb_to_frame(sq.bit(), Seat::First), sq.bit());
        }
    }

    #[test]
    fn every_float_is_overwritten() {
        use junqi_core::{Position, Rules};
        for mode in Mode::ALL {
            let pos = Position::new_game(Rules::preset(mode), 5);
            for seat in Seat::BOTH {
                let info = InfoSet::new(&pos, seat);
                let mut a = vec![f32::NAN; OBS_SIZE];
                let mut b = vec![7.0f32; OBS_SIZE];
                encode_observation(&info, &mut a);
                encode_observation(&info, &mut b);
                assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "{mode} {seat}");
            }
        }
    }

    #[test]
    fn bits_pack_and_unpack() {
        let mask: Vec<u8> = (0..3600).map(|i| ((i * 7919) % 13 == 0) as u8).collect();
        let packed = pack_bits(&mask);
        assert_eq!(packed.len(), 450);
        assert_eq!(unpack_bits(&packed, 3600), mask);
        let odd = [1u8, 0, 1];
        assert_eq!(pack_bits(&odd), vec![0b101]);
        assert_eq!(unpack_bits(&pack_bits(&odd), 3), odd);
    }
}
