//! Observation planes and legal-action masks. See `docs/observation.md`.
//! (Skeleton: the encoder is being written; the signatures are fixed.)

use junqi_core::{InfoSet, MoveList};

/// Number of planes of an observation.
pub const OBS_CHANNELS: usize = 1;
/// Floats per observation: `OBS_CHANNELS × 12 × 5`.
pub const OBS_SIZE: usize = OBS_CHANNELS * 60;

/// Write the observation of the seat to move in `info` into `out`
/// (`OBS_SIZE` floats, `[C, 12, 5]` row-major, row 0 = the mover's back rank).
pub fn encode_observation(info: &InfoSet, out: &mut [f32]) {
    assert_eq!(out.len(), OBS_SIZE);
    out.fill(0.0);
    let _ = info;
}

/// Write the legal-action mask of the seat to move into `out` (3600 entries,
/// 1 = legal, in the mover's frame: from × to, flips on the diagonal).
/// `scratch` is reused move storage.
pub fn encode_mask(info: &InfoSet, scratch: &mut MoveList, out: &mut [u8]) {
    assert_eq!(out.len(), junqi_core::ACTIONS);
    out.fill(0);
    info.legal_moves(scratch);
    let seat = info.view().turn();
    for &m in scratch.iter() {
        out[crate::frame::action_to_frame(m, seat)] = 1;
    }
}

/// Pack a 0/1 mask into bits, least significant bit first (3600 → 450 bytes).
pub fn pack_bits(mask: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; mask.len().div_ceil(8)];
    for (i, &b) in mask.iter().enumerate() {
        if b != 0 {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

/// Inverse of [`pack_bits`] for `len` entries.
pub fn unpack_bits(packed: &[u8], len: usize) -> Vec<u8> {
    (0..len).map(|i| (packed.get(i / 8).copied().unwrap_or(0) >> (i % 8)) & 1).collect()
}
