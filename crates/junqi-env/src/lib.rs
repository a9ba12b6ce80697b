//! # junqi-env
//!
//! What a learner sees: observation tensors `[C, 12, 5]` and legal-action
//! masks `[3600]` built from one seat's [`junqi_core::InfoSet`] (never the
//! hidden truth), always from the mover's point of view, and a vectorised
//! environment that steps many games at once into caller-owned buffers.
//! The planes are documented in `docs/observation.md`.

pub mod code;
pub mod frame;
pub mod observation;
pub mod vecenv;

pub use code::{
    CodeError, ObsCode, CODE_BYTES, CODE_FORMAT, V1_CODE_BYTES, V1_CODE_FORMAT, V2_CODE_BYTES, V2_CODE_FORMAT,
};
pub use frame::{action_from_frame, action_to_frame, square_to_frame};
pub use observation::{
    encode_mask, encode_observation, mask_from_moves, pack_bits, pack_bits_into, packed_mask_from_moves, plane_name,
    unpack_bits, varies_per_node, NET_WIDTHS, OBS_CHANNELS, OBS_SIZE, V1_CHANNELS, V2_CHANNELS,
};
pub use vecenv::{episode_seed, EnvError, StepBuffers, StepOut, VecEnv};
