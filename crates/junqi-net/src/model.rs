//! The network's shape, stored in every net file's metadata.

use serde::{Deserialize, Serialize};

/// The network's shape. Stored in checkpoints and in exported nets' metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// Input planes (the observation's `C`).
    pub in_channels: usize,
    /// Residual blocks.
    pub blocks: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Planes of the value head's 1×1 convolution.
    pub value_planes: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
    /// The policy head (see `docs/training.md`). A net whose metadata predates
    /// this key has the `conv` head, so that is what a missing key means.
    #[serde(default = "PolicyHead::legacy")]
    pub policy_head: PolicyHead,
    /// A belief head: for every node, logits over the 12 kinds of the piece
    /// standing there, trained on the true kinds of the enemy pieces the
    /// mover cannot see (暗棋). A 1×1 convolution to 12 planes. Nets
    /// without the key have none.
    #[serde(default)]
    pub belief: bool,
}

/// Kinds the belief head scores per node.
pub const BELIEF_KINDS: usize = junqi_core::piece::KINDS;

/// How the policy head turns the trunk's features into from × to logits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHead {
    /// A 1×1 convolution to one plane per destination, read at the origin.
    Conv,
    /// `logit(from, to) = q(from) · k(to) / √channels`: two 1×1
    /// convolutions, one embedding per origin and per destination.
    Bilinear,
}

impl PolicyHead {
    fn legacy() -> PolicyHead {
        PolicyHead::Conv
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            in_channels: junqi_env::OBS_CHANNELS,
            blocks: 6,
            channels: 64,
            value_planes: 4,
            value_hidden: 128,
            policy_head: PolicyHead::legacy(),
            belief: false,
        }
    }
}

/// Board nodes (the 12 × 5 grid).
const NODES: usize = 60;

/// The game a net plays: its board, its observation and its file format.
/// One [`ModelConfig`] describes the nets of both (the same trunk and
/// heads); a net file names its game in its `format` (and `game`) metadata,
/// and each game's loader refuses the other's nets by that name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetGame {
    /// The two-player game (翻棋, 暗棋, 明棋): `junqi_env`'s planes on the
    /// 12 × 5 board, every cell a node.
    TwoPlayer,
    /// 四国军棋: `junqi_siguo::observation`'s 74 planes on the 17 × 17
    /// grid, of whose cells 129 are nodes.
    Siguo,
}

impl NetGame {
    /// The grid the trunk's convolutions run over.
    pub fn grid(self) -> crate::cpu::kernels::Grid {
        match self {
            NetGame::TwoPlayer => crate::cpu::kernels::BOARD,
            NetGame::Siguo => {
                crate::cpu::kernels::Grid { rows: junqi_siguo::observation::GRID, cols: junqi_siguo::observation::GRID }
            }
        }
    }

    /// The board's nodes, where the policy's actions start and end.
    pub fn nodes(self) -> usize {
        match self {
            NetGame::TwoPlayer => NODES,
            NetGame::Siguo => junqi_siguo::NODES,
        }
    }

    /// The grid cell (`row * cols + col`) of each node, in node order (a
    /// four-player net's seat-relative node `n` is drawn where
    /// `junqi_siguo::observation` puts it for the seat itself).
    pub fn node_cells(self) -> Vec<usize> {
        match self {
            NetGame::TwoPlayer => (0..NODES).collect(),
            NetGame::Siguo => junqi_siguo::Node::all()
                .map(|n| {
                    let (x, y) = n.coords();
                    y as usize * junqi_siguo::observation::GRID + x as usize
                })
                .collect(),
        }
    }

    /// The observation planes of this build.
    pub fn planes(self) -> usize {
        match self {
            NetGame::TwoPlayer => junqi_env::OBS_CHANNELS,
            NetGame::Siguo => junqi_siguo::observation::PLANES,
        }
    }

    /// The `format` of an exported net of this game.
    pub fn format(self) -> &'static str {
        match self {
            NetGame::TwoPlayer => crate::NET_FORMAT,
            NetGame::Siguo => crate::SIGUO_NET_FORMAT,
        }
    }

    /// The `format` of a training checkpoint of this game.
    pub fn checkpoint_format(self) -> &'static str {
        match self {
            NetGame::TwoPlayer => crate::CHECKPOINT_FORMAT,
            NetGame::Siguo => crate::SIGUO_CHECKPOINT_FORMAT,
        }
    }

    /// The value of a net file's `game` metadata key.
    pub fn key(self) -> &'static str {
        match self {
            NetGame::TwoPlayer => "junqi",
            NetGame::Siguo => "siguo",
        }
    }

    /// The game's name in messages.
    pub fn describe(self) -> &'static str {
        match self {
            NetGame::TwoPlayer => "two-player",
            NetGame::Siguo => "four-player (四国)",
        }
    }
}

/// The most weights a net may have: 150 million (600 MB as f32, and a
/// training checkpoint with AdamW's two moments, about 12 bytes a weight,
/// stays under the 2 GiB a net file may have; the shipped nets have about
/// 100 thousand). Larger shapes are refused before anything is allocated.
pub const MAX_WEIGHTS: u64 = 150_000_000;

impl ModelConfig {
    /// A four-player net's shape ([`NetGame::Siguo`]): the observation's
    /// 74 planes, the bilinear policy head and a belief head, the trunk of
    /// [`ModelConfig::default`] (set `blocks` and `channels` as for a
    /// two-player net).
    pub fn siguo() -> ModelConfig {
        ModelConfig {
            in_channels: junqi_siguo::observation::PLANES,
            policy_head: PolicyHead::Bilinear,
            belief: true,
            ..ModelConfig::default()
        }
    }

    /// Whether the net reads the history planes (a net made before them
    /// takes the first 100 planes only).
    pub fn reads_history(&self) -> bool {
        self.in_channels > junqi_env::V1_CHANNELS
    }

    /// Floating-point operations (a multiply-add counts 2) of one forward
    /// pass of a two-player net ([`ModelConfig::forward_flops_for`]).
    pub fn forward_flops(&self) -> u64 {
        self.forward_flops_for(NetGame::TwoPlayer)
    }

    /// Floating-point operations (a multiply-add counts 2) of one forward
    /// pass of a net of `game` as written in `junqi-train`'s `Net` with all
    /// its logits: every input plane through the 3×3 stem and the trunk at
    /// every cell of the game's grid (60 cells of the 12 × 5 board, 289 of
    /// the four-player 17 × 17 grid), the heads at its nodes (60, or 129).
    /// The usual "model FLOPs".
    pub fn forward_flops_for(&self, game: NetGame) -> u64 {
        let (c, ci) = (self.channels as u64, self.in_channels as u64);
        let n = game.nodes() as u64;
        let conv3 = |cin: u64, cout: u64| 2 * cin * cout * 9 * game.grid().cells() as u64;
        let stem = conv3(ci, c);
        let policy = match self.policy_head {
            PolicyHead::Conv => 2 * c * n * n,
            PolicyHead::Bilinear => 2 * (2 * c * c * n) + 2 * n * n * c,
        };
        let (vp, vh) = (self.value_planes as u64, self.value_hidden as u64);
        let value = 2 * c * vp * n + 2 * vp * n * vh + 2 * vh * 3;
        let belief = if self.belief { 2 * c * BELIEF_KINDS as u64 * n } else { 0 };
        stem + self.trunk_flops_for(game) + policy + value + belief
    }

    /// Weights of the convolutions and linear layers (biases and
    /// normalisation left out: the size that matters for memory).
    pub fn weights(&self) -> u64 {
        self.weights_for(NetGame::TwoPlayer)
    }

    /// [`ModelConfig::weights`] of a net of `game`.
    pub fn weights_for(&self, game: NetGame) -> u64 {
        let (c, ci, n) = (self.channels as u64, self.in_channels as u64, game.nodes() as u64);
        let trunk = 2 * self.blocks as u64 * c * c * 9;
        let policy = match self.policy_head {
            PolicyHead::Conv => c * n,
            PolicyHead::Bilinear => 2 * c * c,
        };
        let (vp, vh) = (self.value_planes as u64, self.value_hidden as u64);
        let value = c * vp + vp * n * vh + vh * 3;
        let belief = if self.belief { c * BELIEF_KINDS as u64 } else { 0 };
        ci * c * 9 + trunk + policy + value + belief
    }

    /// The FLOPs of the trunk's 3×3 convolutions alone (the dense part every
    /// forward pass computes in full, whatever the input).
    pub fn trunk_flops(&self) -> u64 {
        self.trunk_flops_for(NetGame::TwoPlayer)
    }

    /// [`ModelConfig::trunk_flops`] of a net of `game` (its grid's cells).
    pub fn trunk_flops_for(&self, game: NetGame) -> u64 {
        let c = self.channels as u64;
        2 * self.blocks as u64 * 2 * c * c * 9 * game.grid().cells() as u64
    }

    /// An error naming the planes unless a net of `game` with this shape
    /// reads the observation this build encodes: a four-player net must
    /// take exactly [`junqi_siguo::observation::PLANES`] planes (more would
    /// not fit the input, fewer would drop some). Two-player nets are
    /// checked where their data is (nets made before the history planes
    /// read a prefix of today's).
    pub fn check_planes(&self, game: NetGame) -> Result<(), String> {
        let planes = junqi_siguo::observation::PLANES;
        if game == NetGame::Siguo && self.in_channels != planes {
            return Err(format!(
                "the net takes {} observation planes, this build encodes {planes} for the four-player board \
                 (set in_channels = {planes})",
                self.in_channels
            ));
        }
        Ok(())
    }

    /// Plausible sizes (a file's metadata is checked with it before any
    /// buffer is sized from it).
    pub fn check(&self) -> Result<(), String> {
        self.check_for(NetGame::TwoPlayer)
    }

    /// [`ModelConfig::check`] for a net of `game`.
    pub fn check_for(&self, game: NetGame) -> Result<(), String> {
        let positive = [self.in_channels, self.channels, self.value_planes, self.value_hidden];
        if positive.contains(&0) {
            return Err("in_channels, channels, value_planes and value_hidden must be positive".into());
        }
        if self.in_channels > 4096
            || self.channels > 4096
            || self.blocks > 512
            || self.value_planes > 4096
            || self.value_hidden > 1 << 16
        {
            return Err(format!("implausible model size {self:?}"));
        }
        let weights = self.weights_for(game);
        if weights > MAX_WEIGHTS {
            return Err(format!(
                "a net of {} blocks × {} channels has about {weights} weights, at most {MAX_WEIGHTS}",
                self.blocks, self.channels
            ));
        }
        Ok(())
    }
}

/// Why a two-player net of `planes` input planes cannot read this build's
/// observation (it reads one of [`junqi_env::NET_WIDTHS`]).
pub fn width_refusal(planes: usize) -> String {
    format!(
        "the net takes {planes} observation planes, this build encodes {} ({} for nets made before the \
         rule-state planes, {} before the history planes)",
        junqi_env::OBS_CHANNELS,
        junqi_env::V2_CHANNELS,
        junqi_env::V1_CHANNELS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_shape_costs_about_ten_megaflops() {
        // The shipped nets' shape: made before the history planes, they read 100.
        let m = ModelConfig {
            in_channels: junqi_env::V1_CHANNELS,
            blocks: 3,
            channels: 32,
            value_hidden: 64,
            policy_head: PolicyHead::Bilinear,
            ..Default::default()
        };
        // stem 3.456 M, trunk 6.636 M, policy 0.476 M, value 0.046 M
        assert_eq!(m.forward_flops(), 3_456_000 + 6_635_520 + 476_160 + 46_464);
        assert_eq!(m.trunk_flops(), 6_635_520);
        assert!(m.check().is_ok());
        assert!(ModelConfig { channels: 0, ..m.clone() }.check().is_err());
        // stem 28,800, trunk 55,296, policy 2,048, value 128 + 15,360 + 192.
        assert_eq!(m.weights(), 28_800 + 55_296 + 2_048 + 128 + 15_360 + 192);
        // Absurd shapes name the limit instead of allocating.
        for big in
            [ModelConfig { channels: 4096, ..m.clone() }, ModelConfig { blocks: 512, channels: 256, ..m.clone() }]
        {
            let err = big.check().unwrap_err();
            assert!(err.contains("at most 150000000"), "{err}");
        }
        assert!(ModelConfig { blocks: 20, channels: 256, ..m.clone() }.check().is_ok());
    }

    /// The four-player count: the stem and trunk over the 289 cells of the
    /// 17 × 17 grid, the heads at the 129 nodes.
    #[test]
    fn four_player_flops_count_the_grid_and_the_nodes() {
        let m = ModelConfig { blocks: 2, channels: 16, value_planes: 2, value_hidden: 8, ..ModelConfig::siguo() };
        let (cells, n) = (289u64, 129u64);
        let stem = 2 * 74 * 16 * 9 * cells;
        let trunk = 2 * 2 * (2 * 16 * 16 * 9 * cells);
        let policy = 2 * (2 * 16 * 16 * n) + 2 * n * n * 16;
        let value = 2 * 16 * 2 * n + 2 * 2 * n * 8 + 2 * 8 * 3;
        let belief = 2 * 16 * 12 * n;
        assert_eq!(m.forward_flops_for(NetGame::Siguo), stem + trunk + policy + value + belief);
        assert_eq!(m.trunk_flops_for(NetGame::Siguo), trunk);
        assert!(m.forward_flops_for(NetGame::Siguo) > m.forward_flops_for(NetGame::TwoPlayer));
        assert!(m.check_planes(NetGame::Siguo).is_ok());
        let err = ModelConfig { in_channels: 110, ..m }.check_planes(NetGame::Siguo).unwrap_err();
        assert!(err.contains("110") && err.contains("74"), "{err}");
    }

    /// The four-player net reads node `n` at the grid cell where
    /// `junqi_siguo::observation` draws the seat's relative node `n`, for
    /// every seat: `cell(seat, absolute_node(seat, n))`.
    #[test]
    fn four_player_nodes_are_gathered_where_the_observation_draws_them() {
        use junqi_siguo::observation::{absolute_node, cell, relative_node};
        let cells = NetGame::Siguo.node_cells();
        assert_eq!(cells.len(), 129);
        for seat in junqi_siguo::Army::ALL {
            for node in junqi_siguo::Node::all() {
                let n = node.index();
                assert_eq!(relative_node(seat, absolute_node(seat, node)), node);
                assert_eq!(cells[n], cell(seat, absolute_node(seat, node)), "seat {seat:?} node {n}");
            }
        }
        let mut distinct = cells.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 129, "two nodes share a cell");
    }
}
