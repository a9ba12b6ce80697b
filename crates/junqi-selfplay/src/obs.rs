//! The compact, lossless encoding of observation tensors in `samples/`
//! (`planes-v1`, see `docs/data.md`).
//!
//! An observation is `C` planes of 60 `f32` (`[C, 12, 5]`, row-major). Each
//! plane is written as one tag byte and a payload, whichever is smallest:
//!
//! | tag | plane | payload |
//! |---|---|---|
//! | 0 | all zero | none |
//! | 1 | every cell equal to one non-zero value | that value, `f32` LE |
//! | 2 | cells 0 or 1.0 | `u64` LE bitmask, bit `i` = cell `i` is 1.0 |
//! | 3 | a few non-zero cells | `u64` LE bitmask of the non-zero cells, then their values (`f32` LE) in cell order |
//! | 4 | anything | 60 × `f32` LE |
//!
//! Values are compared bit for bit, so decoding gives back exactly the floats
//! that were encoded (including `-0.0`).

/// The encoding's name, written to the Parquet metadata and `run.json`.
pub const OBS_ENCODING: &str = "planes-v1";
/// Cells per plane.
pub const PLANE: usize = 60;

const ZERO: u8 = 0;
const CONST: u8 = 1;
const BINARY: u8 = 2;
const SPARSE: u8 = 3;
const DENSE: u8 = 4;

/// Append the encoding of `obs` (a whole number of 60-cell planes) to `out`.
pub fn encode_planes(obs: &[f32], out: &mut Vec<u8>) {
    assert_eq!(obs.len() % PLANE, 0, "an observation is whole 60-cell planes");
    out.reserve(obs.len() / PLANE * 9);
    let one = 1.0f32.to_bits();
    for plane in obs.chunks_exact(PLANE) {
        // Passes of 32-bit operations the compiler vectorises: any non-zero
        // cell (most planes are empty), then all cells 0 or 1.0, all equal.
        let any = plane.iter().fold(0u32, |a, v| a | v.to_bits());
        if any == 0 {
            out.push(ZERO);
            continue;
        }
        let first = plane[0].to_bits();
        let (mut binary, mut constant) = (true, true);
        for v in plane {
            let b = v.to_bits();
            binary &= (b == 0) | (b == one);
            constant &= b == first;
        }
        // The bitmask of non-zero cells, only where a payload needs it.
        let nonzero = if constant { u64::MAX } else { nonzero_mask(plane) };
        if constant {
            out.push(CONST);
            out.extend_from_slice(&first.to_le_bytes());
        } else if binary {
            out.push(BINARY);
            out.extend_from_slice(&nonzero.to_le_bytes());
        } else if 8 + 4 * (nonzero.count_ones() as usize) < 4 * PLANE {
            out.push(SPARSE);
            out.extend_from_slice(&nonzero.to_le_bytes());
            for v in plane.iter().filter(|v| v.to_bits() != 0) {
                out.extend_from_slice(&v.to_le_bytes());
            }
        } else {
            out.push(DENSE);
            for v in plane {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// Bit `i` set when cell `i` is not zero: one 0/1 byte per cell (a loop the
/// compiler vectorises), then eight bytes to eight bits with one multiply.
#[inline]
fn nonzero_mask(plane: &[f32]) -> u64 {
    let mut flags = [0u8; 64];
    for (f, v) in flags.iter_mut().zip(plane) {
        *f = (v.to_bits() != 0) as u8;
    }
    let mut m = 0u64;
    for (j, chunk) in flags.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        // Bytes b0..b7 of 0/1 → the byte b7…b0 in the top eight bits.
        m |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * j);
    }
    m
}

/// Why encoded observation bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad observation encoding: {0}")]
pub struct DecodeError(pub String);

/// Decode [`encode_planes`] output into floats (60 per plane).
pub fn decode_planes(bytes: &[u8]) -> Result<Vec<f32>, DecodeError> {
    let mut out = Vec::new();
    let mut at = 0;
    let take = |at: &mut usize, n: usize| -> Result<&[u8], DecodeError> {
        let s = bytes.get(*at..*at + n).ok_or_else(|| DecodeError(format!("truncated at byte {}", *at)))?;
        *at += n;
        Ok(s)
    };
    let f32_at = |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap());
    while at < bytes.len() {
        let tag = bytes[at];
        at += 1;
        match tag {
            ZERO => out.extend(std::iter::repeat_n(0.0, PLANE)),
            CONST => {
                let v = f32_at(take(&mut at, 4)?);
                out.extend(std::iter::repeat_n(v, PLANE));
            }
            BINARY | SPARSE => {
                let mask = u64::from_le_bytes(take(&mut at, 8)?.try_into().unwrap());
                if mask >> PLANE != 0 {
                    return Err(DecodeError(format!("plane mask {mask:#x} has bits beyond 60")));
                }
                for i in 0..PLANE {
                    out.push(if mask & (1 << i) == 0 {
                        0.0
                    } else if tag == BINARY {
                        1.0
                    } else {
                        f32_at(take(&mut at, 4)?)
                    });
                }
            }
            DENSE => {
                for c in take(&mut at, 4 * PLANE)?.chunks_exact(4) {
                    out.push(f32_at(c));
                }
            }
            other => return Err(DecodeError(format!("unknown plane tag {other} at byte {}", at - 1))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_masks_match_a_cell_by_cell_loop() {
        let mut plane = [0.0f32; PLANE];
        for seed in 0..200u64 {
            for (i, v) in plane.iter_mut().enumerate() {
                let r =
                    (seed.wrapping_mul(6364136223846793005).wrapping_add((i as u64).wrapping_mul(1442695040888963407)))
                        >> 61;
                *v = if r < 4 { 0.0 } else { r as f32 };
            }
            let slow = plane.iter().enumerate().fold(0u64, |m, (i, v)| m | (((*v != 0.0) as u64) << i));
            assert_eq!(nonzero_mask(&plane), slow);
        }
        assert_eq!(nonzero_mask(&[1.0; PLANE]), (1 << 60) - 1);
    }

    #[test]
    fn every_plane_kind_round_trips_bit_for_bit() {
        let mut obs = vec![0.0f32; PLANE * 6];
        // plane 0 zero; plane 1 constant; plane 2 binary; plane 3 sparse; plane 4 dense; plane 5 -0.0 and NaN
        obs[PLANE..2 * PLANE].fill(0.25);
        obs[2 * PLANE + 3] = 1.0;
        obs[2 * PLANE + 59] = 1.0;
        obs[3 * PLANE + 7] = 0.5;
        obs[3 * PLANE + 8] = 1.0;
        for (i, v) in obs[4 * PLANE..5 * PLANE].iter_mut().enumerate() {
            *v = i as f32 / 7.0 + 0.1;
        }
        obs[5 * PLANE] = -0.0;
        obs[5 * PLANE + 1] = f32::NAN;
        let mut bytes = Vec::new();
        encode_planes(&obs, &mut bytes);
        let tags: Vec<u8> = {
            let mut t = Vec::new();
            let mut at = 0;
            while at < bytes.len() {
                t.push(bytes[at]);
                at += 1 + match bytes[at] {
                    0 => 0,
                    1 => 4,
                    2 => 8,
                    3 => 8 + 4 * u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap()).count_ones() as usize,
                    _ => 240,
                };
            }
            t
        };
        assert_eq!(tags, vec![0, 1, 2, 3, 4, 3]);
        assert_eq!(bytes.len(), 1 + 5 + 9 + 17 + 241 + 17);
        let back = decode_planes(&bytes).unwrap();
        assert_eq!(back.len(), obs.len());
        assert!(back.iter().zip(&obs).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(decode_planes(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_planes(&[9]).is_err());
    }
}
