//! The compact observation `obs-code-v3`: a fixed 195-byte record of one
//! seat's information set from which every plane of the observation
//! ([`crate::encode_observation`]) is rebuilt exactly, bit for bit.
//!
//! It is what `samples/` stores per position (`docs/data.md`), what a
//! request to the network carries, and the key of the evaluation cache:
//! small, fixed-size and `Eq + Hash`.
//!
//! Layout (little-endian, offsets in bytes):
//!
//! | bytes | what |
//! |---|---|
//! | 0–119 | 60 × `u16`, one per node in the seat's frame: bits 0–11 the kind set (own piece: its kind; enemy piece: the kinds it may be; else 0), bits 12–13 the class: 0 empty, 1 own, 2 enemy, 3 face-down |
//! | 120–131 | 翻棋 face-down pieces of my colour per kind (`u8`, kind order) |
//! | 132–143 | the same for the enemy colour |
//! | 144–155 | my pieces on the board per kind |
//! | 156–167 | the enemy's pieces on the board per kind (暗棋: the upper bound) |
//! | 168–171 | `quiet_fraction` (`f32`, plane 78) |
//! | 172–175 | `ply_fraction` (`f32`, plane 79) |
//! | 176–179 | `u32`: bit `b` is the value of plane `80 + b` (the 20 flag planes 80–99) |
//! | 180–187 | the last 4 actions, newest first: (from, to) node pairs in the seat's frame, `0xFF 0xFF` for none (planes 100–107) |
//! | 188 | how often the seat saw this board before, capped at 2 (planes 108–109) |
//! | 189–190 | `flag_carry`: the node (seat's frame) of the piece my flag shares, then the enemy flag's; `0xFF` for none (planes 114–117) |
//! | 191 | bit 0: that piece carries my flag (else the flag lies under it); bit 1: the same for the enemy's |
//! | 192–193 | `mountains`, per mountain in the seat's frame (left, right): `0` empty, else `0x80` ∣ `0x10` for an enemy piece ∣ the kind (planes 118–131) |
//! | 194 | bit `b` is the value of plane `110 + b` (the option planes 110–113) |
//!
//! `obs-code-v2` (samples written before the rule-state planes) is the
//! first 189 bytes and `obs-code-v1` (before the history planes) the first
//! 180: [`ObsCode::from_bytes`] reads them as codes without what came later.
//!
//! Counts become planes as `count / army count`, computed as the encoder
//! does, so the floats are identical.

use crate::frame::square_to_frame;
use crate::observation::{
    counts, flag_bits, fractions, history_nodes, seen_count, RuleState, CAMP, COLOURS_ASSIGNED, ENEMY_KIND,
    ENEMY_OCCUPANCY, FACE_DOWN, FLAG_PLANES, FLAG_WITH_PIECE, HISTORY, MATERIAL_ENEMY, MATERIAL_OWN, MOUNTAIN_ENEMY,
    MOUNTAIN_KIND, MOUNTAIN_OWN, OBS_SIZE, OPT_FLAG_CARRY, OWN_KIND, OWN_OCCUPANCY, PLANE, PLY, POOL_ENEMY, POOL_OWN,
    QUIET, SEEN_BEFORE, SEEN_TWICE, STATIC_PLANES, V3_OPTION_PLANES,
};
use junqi_core::board::{squares, MOUNTAIN_SIDES};
use junqi_core::piece::KINDS;
use junqi_core::{Colour, InfoSet, Kind, Mode, HISTORY_PLIES};

/// Bytes of one code.
pub const CODE_BYTES: usize = 195;
/// The layout's name, written to dataset metadata.
pub const CODE_FORMAT: &str = "obs-code-v3";
/// Bytes of an `obs-code-v2` code (no rule-state planes), still read.
pub const V2_CODE_BYTES: usize = 189;
/// The second layout's name (samples written before the rule-state planes).
pub const V2_CODE_FORMAT: &str = "obs-code-v2";
/// Bytes of an `obs-code-v1` code (no history), still read.
pub const V1_CODE_BYTES: usize = 180;
/// The first layout's name (samples written before the history planes).
pub const V1_CODE_FORMAT: &str = "obs-code-v1";

/// A node's class in bits 12–13 of its `u16`.
pub const CLASS_EMPTY: u16 = 0;
pub const CLASS_OWN: u16 = 1 << 12;
pub const CLASS_ENEMY: u16 = 2 << 12;
pub const CLASS_FACE_DOWN: u16 = 3 << 12;
const CLASS_MASK: u16 = 3 << 12;
const KIND_MASK: u16 = (1 << KINDS) - 1;

const COUNTS_AT: usize = 120;
const QUIET_AT: usize = 168;
const PLY_AT: usize = 172;
const FLAGS_AT: usize = 176;
const HISTORY_AT: usize = 180;
const SEEN_AT: usize = HISTORY_AT + 2 * HISTORY_PLIES;
const FLAGS_WITH_PIECE_AT: usize = SEEN_AT + 1;
const CARRIED_AT: usize = FLAGS_WITH_PIECE_AT + 2;
const MOUNTAINS_AT: usize = CARRIED_AT + 1;
const OPTIONS_AT: usize = MOUNTAINS_AT + 2;
/// A mountain byte: occupied, an enemy piece, and the kind in the low bits.
const MOUNTAIN_HELD: u8 = 0x80;
const MOUNTAIN_ENEMY_PIECE: u8 = 0x10;
/// A history byte for "no action".
const NO_NODE: u8 = 0xFF;
/// The count groups in byte order: pool own, pool enemy, material own, material enemy.
const COUNT_PLANES: [usize; 4] = [POOL_OWN, POOL_ENEMY, MATERIAL_OWN, MATERIAL_ENEMY];

/// One seat's observation in 195 bytes (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObsCode(pub [u8; CODE_BYTES]);

/// Why bytes or planes are not a valid code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad observation code: {0}")]
pub struct CodeError(pub String);

impl std::fmt::Debug for ObsCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ObsCode(")?;
        for b in &self.0 {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl ObsCode {
    /// The code of `info`'s seat (what [`crate::encode_observation`] encodes).
    pub fn from_infoset(info: &InfoSet) -> ObsCode {
        let mut b = [0u8; CODE_BYTES];
        let view = info.view();
        let seat = info.seat();
        let mine = view.colour_of(seat).unwrap_or(Colour::Red);
        let anqi = view.mode() == Mode::Anqi;
        let mut put = |sq: junqi_core::Square, code: u16| {
            let f = square_to_frame(sq, seat).index();
            b[2 * f..2 * f + 2].copy_from_slice(&code.to_le_bytes());
        };
        for sq in squares(view.colour_bb(mine)) {
            put(sq, CLASS_OWN | view.piece_at(sq).map_or(0, |p| p.kind.bit()));
        }
        for sq in squares(view.colour_bb(mine.other())) {
            let set = if anqi { info.possible_kinds(sq) } else { view.piece_at(sq).map_or(0, |p| p.kind.bit()) };
            put(sq, CLASS_ENEMY | set);
        }
        for sq in squares(view.face_down()) {
            put(sq, CLASS_FACE_DOWN);
        }
        for (g, group) in counts(info).iter().enumerate() {
            b[COUNTS_AT + g * KINDS..COUNTS_AT + (g + 1) * KINDS].copy_from_slice(group);
        }
        let (quiet, ply) = fractions(view);
        b[QUIET_AT..QUIET_AT + 4].copy_from_slice(&quiet.to_le_bytes());
        b[PLY_AT..PLY_AT + 4].copy_from_slice(&ply.to_le_bytes());
        b[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&flag_bits(info).to_le_bytes());
        for (i, (from, to)) in history_nodes(info).into_iter().enumerate() {
            b[HISTORY_AT + 2 * i] = from.map_or(NO_NODE, |f| f as u8);
            b[HISTORY_AT + 2 * i + 1] = to.map_or(NO_NODE, |f| f as u8);
        }
        b[SEEN_AT] = seen_count(info);
        put_rule_state(&mut b, &RuleState::of(info));
        ObsCode(b)
    }

    /// The code stored as `bytes` (checked: [`ObsCode::check`]); an
    /// `obs-code-v2` code ([`V2_CODE_BYTES`]) reads as one without the rule
    /// options and state that came later (none of them on), an `obs-code-v1`
    /// one ([`V1_CODE_BYTES`]) also with no history.
    pub fn from_bytes(bytes: &[u8]) -> Result<ObsCode, CodeError> {
        let mut array = [0u8; CODE_BYTES];
        match bytes.len() {
            CODE_BYTES => array.copy_from_slice(bytes),
            n @ (V2_CODE_BYTES | V1_CODE_BYTES) => {
                array[..n].copy_from_slice(bytes);
                if n == V1_CODE_BYTES {
                    array[HISTORY_AT..SEEN_AT].fill(NO_NODE);
                }
                put_rule_state(&mut array, &RuleState::default());
            }
            n => {
                return Err(CodeError(format!(
                    "{n} bytes, a code has {CODE_BYTES} ({V2_CODE_BYTES} in {V2_CODE_FORMAT}, \
                     {V1_CODE_BYTES} in {V1_CODE_FORMAT})"
                )))
            }
        }
        let code = ObsCode(array);
        code.check()?;
        Ok(code)
    }

    /// The same code with no history (no last actions, seen 0 times): what
    /// a net made before the history planes tells apart.
    pub fn without_history(mut self) -> ObsCode {
        self.0[HISTORY_AT..SEEN_AT].fill(NO_NODE);
        self.0[SEEN_AT] = 0;
        self
    }

    pub fn as_bytes(&self) -> &[u8; CODE_BYTES] {
        &self.0
    }

    /// Plane `quiet_fraction`: how far the quiet-move counter has run
    /// towards its draw, in [0, 1].
    pub fn quiet_fraction(&self) -> f32 {
        self.f32_at(QUIET_AT)
    }

    /// Node `f` (the seat's frame): its class ([`CLASS_OWN`], …) and kind set.
    #[inline]
    pub fn node(&self, f: usize) -> (u16, u16) {
        let v = u16::from_le_bytes([self.0[2 * f], self.0[2 * f + 1]]);
        (v & CLASS_MASK, v & KIND_MASK)
    }

    /// Count `kind` of group `g` (0 pool own, 1 pool enemy, 2 material own, 3 material enemy).
    fn count(&self, g: usize, kind: usize) -> u8 {
        self.0[COUNTS_AT + g * KINDS + kind]
    }

    fn f32_at(&self, at: usize) -> f32 {
        f32::from_le_bytes(self.0[at..at + 4].try_into().expect("4 bytes"))
    }

    fn flags(&self) -> u32 {
        u32::from_le_bytes(self.0[FLAGS_AT..FLAGS_AT + 4].try_into().expect("4 bytes"))
    }

    /// The action `i + 1` plies ago as (from, to) nodes in the seat's frame
    /// (`i` < 4; from = to for a flip): at the seat's turn `history(1)` is
    /// its own last action.
    pub fn history(&self, i: usize) -> Option<(usize, usize)> {
        let (from, to) = (self.0[HISTORY_AT + 2 * i], self.0[HISTORY_AT + 2 * i + 1]);
        (from != NO_NODE).then_some((from as usize, to as usize))
    }

    /// A code that every plane could have come from: known classes, kind
    /// bits only on pieces (one kind on own pieces), counts within the
    /// army, fractions in [0, 1], no unused flag bits.
    pub fn check(&self) -> Result<(), CodeError> {
        let bad = |m: String| Err(CodeError(m));
        for f in 0..PLANE {
            let v = u16::from_le_bytes([self.0[2 * f], self.0[2 * f + 1]]);
            let (class, kinds) = self.node(f);
            if v & !(CLASS_MASK | KIND_MASK) != 0 {
                return bad(format!("node {f}: unused bits set ({v:#06x})"));
            }
            if matches!(class, CLASS_EMPTY | CLASS_FACE_DOWN) && kinds != 0 {
                return bad(format!("node {f}: kinds on an empty or face-down node"));
            }
            if class == CLASS_OWN && kinds.count_ones() > 1 {
                return bad(format!("node {f}: an own piece with several kinds"));
            }
        }
        for g in 0..4 {
            for k in Kind::ALL {
                if self.count(g, k.index()) > k.count() {
                    return bad(format!("count group {g}: {} of kind {k:?}", self.count(g, k.index())));
                }
            }
        }
        for at in [QUIET_AT, PLY_AT] {
            let x = self.f32_at(at);
            if !(0.0..=1.0).contains(&x) {
                return bad(format!("fraction {x} at byte {at}"));
            }
        }
        if self.flags() >> FLAG_PLANES != 0 {
            return bad(format!("flag bits {:#x} beyond the {FLAG_PLANES} flag planes", self.flags()));
        }
        for i in 0..HISTORY_PLIES {
            let (from, to) = (self.0[HISTORY_AT + 2 * i], self.0[HISTORY_AT + 2 * i + 1]);
            let node = |x: u8| (x as usize) < PLANE;
            if !(from == NO_NODE && to == NO_NODE || node(from) && node(to)) {
                return bad(format!("history action {i}: nodes {from} {to}"));
            }
        }
        if self.0[SEEN_AT] > 2 {
            return bad(format!("seen {} times before; the code counts to 2", self.0[SEEN_AT]));
        }
        for i in 0..2 {
            let node = self.0[FLAGS_WITH_PIECE_AT + i];
            if node != NO_NODE && node as usize >= PLANE {
                return bad(format!("flag {i} shares node {node}"));
            }
            if node == NO_NODE && self.0[CARRIED_AT] >> i & 1 == 1 {
                return bad(format!("flag {i} carried by no piece"));
            }
            let m = self.0[MOUNTAINS_AT + i];
            if m != 0
                && (m & !(MOUNTAIN_HELD | MOUNTAIN_ENEMY_PIECE | 0x0F) != 0
                    || m & 0x0F >= KINDS as u8
                    || m & MOUNTAIN_HELD == 0)
            {
                return bad(format!("mountain {i}: byte {m:#04x}"));
            }
        }
        if self.0[CARRIED_AT] >> 2 != 0 || self.0[OPTIONS_AT] >> V3_OPTION_PLANES != 0 {
            return bad(format!("unused bits in bytes {CARRIED_AT} or {OPTIONS_AT}"));
        }
        Ok(())
    }

    /// Every plane of the observation (`OBS_SIZE` floats, `[C, 12, 5]`),
    /// exactly what [`crate::encode_observation`] writes for the same seat.
    pub fn write_planes(&self, out: &mut [f32]) {
        assert_eq!(out.len(), OBS_SIZE, "observation buffer must hold OBS_SIZE floats");
        out[..POOL_OWN * PLANE].fill(0.0);
        out[HISTORY * PLANE..SEEN_BEFORE * PLANE].fill(0.0);
        out[FLAG_WITH_PIECE * PLANE..].fill(0.0);
        self.for_each_spatial(|c, f| out[c * PLANE + f] = 1.0);
        for (c, value) in self.constant_planes() {
            out[c * PLANE..(c + 1) * PLANE].fill(value);
        }
        out[CAMP * PLANE..(CAMP + 3) * PLANE].copy_from_slice(&STATIC_PLANES);
    }

    /// The planes as a new vector.
    pub fn planes(&self) -> Vec<f32> {
        let mut v = vec![0.0; OBS_SIZE];
        self.write_planes(&mut v);
        v
    }

    /// Call `f(plane, node)` for every 1 of the per-node planes 0–26 (kinds,
    /// occupancy, face-down), 100–107 (the last actions) and 114–131 (loose
    /// flags, mountains); they are 0 elsewhere.
    #[inline]
    pub fn for_each_spatial(&self, mut f: impl FnMut(usize, usize)) {
        for node in 0..PLANE {
            let (class, kinds) = self.node(node);
            let (kind_base, occupancy) = match class {
                CLASS_EMPTY => continue,
                CLASS_OWN => (OWN_KIND, OWN_OCCUPANCY),
                CLASS_ENEMY => (ENEMY_KIND, ENEMY_OCCUPANCY),
                _ => (0, FACE_DOWN),
            };
            let mut s = kinds;
            while s != 0 {
                f(kind_base + s.trailing_zeros() as usize, node);
                s &= s - 1;
            }
            f(occupancy, node);
        }
        for i in 0..HISTORY_PLIES {
            if let Some((from, to)) = self.history(i) {
                f(HISTORY + 2 * i, from);
                f(HISTORY + 2 * i + 1, to);
            }
        }
        self.rule_state().for_each_node(f);
    }

    /// The state behind planes 110–131.
    pub(crate) fn rule_state(&self) -> RuleState {
        let b = &self.0;
        let flag = |i: usize| {
            let node = b[FLAGS_WITH_PIECE_AT + i];
            (node != NO_NODE).then(|| (node as usize, b[CARRIED_AT] >> i & 1 == 1))
        };
        let mountain = |i: usize| {
            let m = b[MOUNTAINS_AT + i];
            (m & MOUNTAIN_HELD != 0).then(|| (m & MOUNTAIN_ENEMY_PIECE != 0, Kind::ALL[(m & 0x0F) as usize]))
        };
        RuleState { options: b[OPTIONS_AT], flags: [flag(0), flag(1)], mountains: [mountain(0), mountain(1)] }
    }

    /// The value of every plane that is constant over the board (counts,
    /// fractions, flags; not the static board planes), as (plane, value).
    pub fn constant_planes(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        let counts = COUNT_PLANES.into_iter().enumerate().flat_map(move |(g, base)| {
            Kind::ALL.into_iter().map(move |k| (base + k.index(), self.count(g, k.index()) as f32 / k.count() as f32))
        });
        let fractions = [(QUIET, self.f32_at(QUIET_AT)), (PLY, self.f32_at(PLY_AT))];
        let flags = self.flags();
        let flag_planes = (0..FLAG_PLANES).map(move |b| (COLOURS_ASSIGNED + b, (flags >> b & 1) as f32));
        let seen = self.0[SEEN_AT];
        let seen_planes = [(SEEN_BEFORE, (seen >= 1) as u8 as f32), (SEEN_TWICE, (seen >= 2) as u8 as f32)];
        let options = self.0[OPTIONS_AT];
        let option_planes = (0..V3_OPTION_PLANES).map(move |b| (OPT_FLAG_CARRY + b, (options >> b & 1) as f32));
        counts.chain(fractions).chain(flag_planes).chain(seen_planes).chain(option_planes)
    }

    /// The code of an observation's planes: the inverse of
    /// [`ObsCode::write_planes`]. Planes no code gives (a count that is not
    /// a whole number of pieces, a kind plane without occupancy, …) are an
    /// error, checked by rebuilding the planes and comparing bit for bit.
    pub fn from_planes(planes: &[f32]) -> Result<ObsCode, CodeError> {
        if planes.len() != OBS_SIZE {
            return Err(CodeError(format!("{} floats, an observation has {OBS_SIZE}", planes.len())));
        }
        let at = |c: usize, f: usize| planes[c * PLANE + f];
        let mut b = [0u8; CODE_BYTES];
        for f in 0..PLANE {
            let set = |base: usize| (0..KINDS).filter(|&k| at(base + k, f) != 0.0).fold(0u16, |s, k| s | 1 << k);
            let code = if at(OWN_OCCUPANCY, f) != 0.0 {
                CLASS_OWN | set(OWN_KIND)
            } else if at(ENEMY_OCCUPANCY, f) != 0.0 {
                CLASS_ENEMY | set(ENEMY_KIND)
            } else if at(FACE_DOWN, f) != 0.0 {
                CLASS_FACE_DOWN
            } else {
                CLASS_EMPTY
            };
            b[2 * f..2 * f + 2].copy_from_slice(&code.to_le_bytes());
        }
        for (g, base) in COUNT_PLANES.into_iter().enumerate() {
            for k in Kind::ALL {
                let n = (at(base + k.index(), 0) * k.count() as f32).round();
                b[COUNTS_AT + g * KINDS + k.index()] = n.clamp(0.0, 255.0) as u8;
            }
        }
        b[QUIET_AT..QUIET_AT + 4].copy_from_slice(&at(QUIET, 0).to_le_bytes());
        b[PLY_AT..PLY_AT + 4].copy_from_slice(&at(PLY, 0).to_le_bytes());
        let flags = (0..FLAG_PLANES).filter(|&i| at(COLOURS_ASSIGNED + i, 0) == 1.0).fold(0u32, |s, i| s | 1 << i);
        b[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&flags.to_le_bytes());
        let first_one = |c: usize| (0..PLANE).find(|&f| at(c, f) != 0.0);
        for i in 0..HISTORY_PLIES {
            let (from, to) = (first_one(HISTORY + 2 * i), first_one(HISTORY + 2 * i + 1));
            b[HISTORY_AT + 2 * i] = from.map_or(NO_NODE, |f| f as u8);
            b[HISTORY_AT + 2 * i + 1] = to.map_or(NO_NODE, |f| f as u8);
        }
        b[SEEN_AT] = (at(SEEN_BEFORE, 0) == 1.0) as u8 + (at(SEEN_TWICE, 0) == 1.0) as u8;
        let flag = |i: usize| {
            let carried = first_one(FLAG_WITH_PIECE + 2 * i);
            carried.or(first_one(FLAG_WITH_PIECE + 2 * i + 1)).map(|node| (node, carried.is_some()))
        };
        let mountain = |side: u64| {
            // Any side node of the mountain tells its piece.
            let f = side.trailing_zeros() as usize;
            let enemy = at(MOUNTAIN_ENEMY, f) != 0.0;
            let kind = (0..KINDS).find(|&k| at(MOUNTAIN_KIND + k, f) != 0.0);
            kind.filter(|_| enemy || at(MOUNTAIN_OWN, f) != 0.0).map(|k| (enemy, Kind::ALL[k]))
        };
        let options = (0..V3_OPTION_PLANES).filter(|&i| at(OPT_FLAG_CARRY + i, 0) == 1.0).fold(0u8, |s, i| s | 1 << i);
        let state = RuleState {
            options,
            flags: [flag(0), flag(1)],
            mountains: [mountain(MOUNTAIN_SIDES[0]), mountain(MOUNTAIN_SIDES[1])],
        };
        put_rule_state(&mut b, &state);
        let code = ObsCode(b);
        code.check()?;
        let back = code.planes();
        if let Some(i) = back.iter().zip(planes).position(|(x, y)| x.to_bits() != y.to_bits()) {
            return Err(CodeError(format!(
                "plane {} node {}: {} is not a value an observation holds there",
                i / PLANE,
                i % PLANE,
                planes[i]
            )));
        }
        Ok(code)
    }

    /// A 64-bit hash of the code (FxHash-style over its 8-byte words):
    /// fast, and good enough to spread keys; equal codes hash equal.
    pub fn hash64(&self) -> u64 {
        let mut h = 0u64;
        let words = self.0.chunks_exact(4);
        let tail = words.remainder().iter().fold(0u64, |t, &b| t << 8 | b as u64);
        for w in words {
            let x = u32::from_le_bytes(w.try_into().expect("4 bytes")) as u64;
            h = (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        (h.rotate_left(5) ^ tail).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
    }
}

/// Write `state` into bytes 189–194 of a code (the inverse of
/// [`ObsCode::rule_state`]).
fn put_rule_state(b: &mut [u8; CODE_BYTES], state: &RuleState) {
    b[CARRIED_AT] = 0;
    for (i, flag) in state.flags.iter().enumerate() {
        b[FLAGS_WITH_PIECE_AT + i] = flag.map_or(NO_NODE, |(node, _)| node as u8);
        b[CARRIED_AT] |= (flag.is_some_and(|(_, carried)| carried) as u8) << i;
    }
    for (i, piece) in state.mountains.iter().enumerate() {
        b[MOUNTAINS_AT + i] = piece.map_or(0, |(enemy, kind)| {
            MOUNTAIN_HELD | if enemy { MOUNTAIN_ENEMY_PIECE } else { 0 } | kind.index() as u8
        });
    }
    b[OPTIONS_AT] = state.options;
}

/// The mode a code was made in (from its one-hot mode flags).
pub fn code_mode(code: &ObsCode) -> Option<Mode> {
    let flags = code.flags();
    let bit = |plane: usize| flags >> (plane - COLOURS_ASSIGNED) & 1 == 1;
    [Mode::Fanqi, Mode::Anqi, Mode::Mingqi]
        .into_iter()
        .enumerate()
        .find(|&(i, _)| bit(crate::observation::MODE + i))
        .map(|(_, m)| m)
}

const _: () = assert!(
    MATERIAL_ENEMY + KINDS == CAMP
        && FLAGS_AT + 4 == V1_CODE_BYTES
        && SEEN_AT + 1 == V2_CODE_BYTES
        && OPTIONS_AT + 1 == CODE_BYTES
        && FLAG_PLANES == 20
        && SEEN_TWICE + 1 == crate::V2_CHANNELS
        && MOUNTAIN_KIND + KINDS == crate::OBS_CHANNELS
);

#[cfg(test)]
mod tests {
    use super::*;
    use junqi_core::{Position, Rules, Seat};

    #[test]
    fn a_fresh_game_round_trips_in_every_mode() {
        for mode in Mode::ALL {
            let pos = Position::new_game(Rules::preset(mode), 3);
            for seat in Seat::BOTH {
                let info = InfoSet::new(&pos, seat);
                let code = ObsCode::from_infoset(&info);
                let mut want = vec![0.0; OBS_SIZE];
                crate::encode_observation(&info, &mut want);
                assert!(code.planes().iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "{mode} {seat}");
                assert_eq!(ObsCode::from_planes(&want).unwrap(), code);
                assert_eq!(ObsCode::from_bytes(code.as_bytes()).unwrap(), code);
                assert_eq!(code_mode(&code), Some(mode));
            }
        }
    }

    /// Mid-game codes carry the seat's history, and round trip through
    /// bytes and planes; a first-version code reads as one without it.
    #[test]
    fn history_round_trips_and_v1_codes_read_without_it() {
        use junqi_core::{rng_from_seed, Game, MoveList};
        use rand::Rng;
        let mut moves = MoveList::new();
        let mut with_history = 0;
        let mut repeated = 0;
        for mode in Mode::ALL {
            let mut rng = rng_from_seed(11);
            let mut game = Game::new(Position::new_game(Rules::preset(mode), 5));
            for _ in 0..120 {
                game.truth().legal_moves(&mut moves);
                if moves.is_empty() || game.outcome().is_some() {
                    break;
                }
                game.play(moves[rng.random_range(0..moves.len())]).unwrap();
                for seat in Seat::BOTH {
                    let info = game.infoset(seat);
                    let code = ObsCode::from_infoset(info);
                    let mut want = vec![0.0; OBS_SIZE];
                    crate::encode_observation(info, &mut want);
                    assert!(code.planes().iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "{mode} {seat}");
                    assert_eq!(ObsCode::from_planes(&want).unwrap(), code);
                    assert_eq!(ObsCode::from_bytes(code.as_bytes()).unwrap(), code);
                    let last = info.history().recent()[0].unwrap();
                    let (from, to) = (square_to_frame(last.from, seat).index(), square_to_frame(last.to, seat).index());
                    assert_eq!(want[HISTORY * PLANE + from], 1.0);
                    assert_eq!(want[(HISTORY + 1) * PLANE + to], 1.0);
                    with_history += 1;
                    repeated += (want[SEEN_BEFORE * PLANE] == 1.0) as u32;
                    // The first 180 bytes alone: the same planes with the history cleared.
                    let old = ObsCode::from_bytes(&code.as_bytes()[..V1_CODE_BYTES]).unwrap();
                    let planes = old.planes();
                    assert!(planes[HISTORY * PLANE..].iter().all(|&x| x == 0.0));
                    assert_eq!(planes[..HISTORY * PLANE], want[..HISTORY * PLANE]);
                }
            }
        }
        assert!(with_history > 300, "{with_history}");
        // Two 司令 shuttling: the start comes back twice, and the planes say so.
        let rules = Rules::preset(Mode::Mingqi);
        let mut game =
            Game::new(Position::from_jfen("kf3/2d2/2R2/5/5/5/5/5/5/5/5/1F2K mingqi 1 r 0 0", rules).unwrap());
        for round in 1..=3u32 {
            for mv in ["e1e2", "a12a11", "e2e1", "a11a12"] {
                game.play(mv.parse().unwrap()).unwrap();
            }
            let code = ObsCode::from_infoset(game.infoset(Seat::First));
            let planes = code.planes();
            let seen = (planes[SEEN_BEFORE * PLANE], planes[SEEN_TWICE * PLANE]);
            assert_eq!(seen, if round == 1 { (1.0, 0.0) } else { (1.0, 1.0) }, "round {round}");
            assert_eq!(ObsCode::from_planes(&planes).unwrap(), code);
            repeated += 1;
        }
        assert_eq!(repeated, 3);
    }

    #[test]
    fn bad_bytes_and_planes_are_refused() {
        let pos = Position::new_game(Rules::preset(Mode::Anqi), 1);
        let code = ObsCode::from_infoset(&InfoSet::new(&pos, Seat::First));
        assert!(ObsCode::from_bytes(&code.0[..179]).is_err());
        assert!(ObsCode::from_bytes(&code.0[..188]).is_err());
        let mut b = code.0;
        b[FLAGS_AT + 3] = 0x80;
        assert!(ObsCode::from_bytes(&b).unwrap_err().to_string().contains("flag bits"));
        let mut b = code.0;
        b[COUNTS_AT] = 2; // two commanders
        assert!(ObsCode::from_bytes(&b).is_err());
        let mut planes = code.planes();
        planes[POOL_OWN * PLANE] = 0.3; // not a whole number of pieces, and not constant
        assert!(ObsCode::from_planes(&planes).is_err());
        let mut planes = code.planes();
        planes[OWN_KIND * PLANE + 59] = 1.0; // a kind without a piece on the node
        assert!(ObsCode::from_planes(&planes).is_err());
    }
}
