//! The compact observation `obs-code-v1`: a fixed 180-byte record of one
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
//!
//! Counts become planes as `count / army count`, computed as the encoder
//! does, so the floats are identical.

use crate::frame::square_to_frame;
use crate::observation::{
    counts, flag_bits, fractions, CAMP, COLOURS_ASSIGNED, ENEMY_KIND, ENEMY_OCCUPANCY, FACE_DOWN, MATERIAL_ENEMY,
    MATERIAL_OWN, OBS_CHANNELS, OBS_SIZE, OWN_KIND, OWN_OCCUPANCY, PLANE, PLY, POOL_ENEMY, POOL_OWN, QUIET,
    STATIC_PLANES,
};
use junqi_core::board::squares;
use junqi_core::piece::KINDS;
use junqi_core::{Colour, InfoSet, Kind, Mode};

/// Bytes of one code.
pub const CODE_BYTES: usize = 180;
/// The layout's name, written to dataset metadata.
pub const CODE_FORMAT: &str = "obs-code-v1";

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
/// The count groups in byte order: pool own, pool enemy, material own, material enemy.
const COUNT_PLANES: [usize; 4] = [POOL_OWN, POOL_ENEMY, MATERIAL_OWN, MATERIAL_ENEMY];
/// Planes `COLOURS_ASSIGNED ..` are the flag bits.
const FLAG_PLANES: usize = OBS_CHANNELS - COLOURS_ASSIGNED;

/// One seat's observation in 180 bytes (see the module docs).
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
        ObsCode(b)
    }

    /// The code stored as `bytes` (checked: [`ObsCode::check`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<ObsCode, CodeError> {
        let array: [u8; CODE_BYTES] =
            bytes.try_into().map_err(|_| CodeError(format!("{} bytes, a code has {CODE_BYTES}", bytes.len())))?;
        let code = ObsCode(array);
        code.check()?;
        Ok(code)
    }

    pub fn as_bytes(&self) -> &[u8; CODE_BYTES] {
        &self.0
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
        Ok(())
    }

    /// Every plane of the observation (`OBS_SIZE` floats, `[C, 12, 5]`),
    /// exactly what [`crate::encode_observation`] writes for the same seat.
    pub fn write_planes(&self, out: &mut [f32]) {
        assert_eq!(out.len(), OBS_SIZE, "observation buffer must hold OBS_SIZE floats");
        out[..POOL_OWN * PLANE].fill(0.0);
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
    /// occupancy, face-down); they are 0 elsewhere.
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
        counts.chain(fractions).chain(flag_planes)
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
        for w in self.0.chunks_exact(4) {
            let x = u32::from_le_bytes(w.try_into().expect("4 bytes")) as u64;
            h = (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        h
    }
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

const _: () = assert!(MATERIAL_ENEMY + KINDS == CAMP && FLAGS_AT + 4 == CODE_BYTES && FLAG_PLANES == 20);

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

    #[test]
    fn bad_bytes_and_planes_are_refused() {
        let pos = Position::new_game(Rules::preset(Mode::Anqi), 1);
        let code = ObsCode::from_infoset(&InfoSet::new(&pos, Seat::First));
        assert!(ObsCode::from_bytes(&code.0[..179]).is_err());
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
