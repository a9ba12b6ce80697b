//! The policy/value network.
//!
//! ```text
//! obs [B, C, 12, 5]
//!  └ conv3×3 → BN → ReLU                                   (stem, `channels`; see below)
//!  └ blocks × [conv3×3 → BN → ReLU → conv3×3 → BN, + skip, ReLU]
//!     ├ policy (`conv`): conv1×1 → 60 planes [B, 60 (to), 60 (from)] → transpose
//!     │         → logits [B, 3600] (id = from·60 + to), illegal → MASK_LOGIT
//!     ├ policy (`bilinear`): q = conv1×1(x), k = conv1×1(x), both [B, 60, channels]
//!     │         → logits[from·60 + to] = q[from] · k[to] / √channels
//!     ├ value:  conv1×1 → BN → ReLU → linear → ReLU → linear → [B, 3] (W, D, L)
//!     └ belief (`model.belief`): conv1×1 → [B, 12 kinds, 60 nodes] → [B, 60, 12]
//! ```
//! The belief head scores, for every node, the kind of the piece standing
//! there; it is trained only at the enemy pieces whose kind the mover did
//! not know (暗棋), and 暗棋 search draws its worlds from it.
//! The `conv` head gives each destination node one plane, read at the origin
//! node, so `logits[from * 60 + to]` comes from cell `from` of plane `to`:
//! the action layout of `docs/observation.md` with no large dense layer. Its
//! weights for a destination are the same from every origin, so it learns
//! moves poorly (a 3×32 net fitted `heuristic`'s policy, entropy 1.3, only
//! to a cross-entropy of 3.0). The `bilinear` head scores a move from what
//! stands at both ends, which is what a capture depends on.
//!
//! **The stem, computed exactly but cheaper.** 76 of the observation's 132
//! planes are constant over the board (counts, fractions, flags,
//! repetitions, the rule-state options) and 3 are the same in every
//! position (the board's camps, headquarters, railway). A 3×3 convolution
//! of a constant plane of value v is v times the convolution of an all-ones
//! plane, so the stem convolves only the 56 other planes and adds
//! `values [B, 76] × maps [76, channels × 60]`, the
//! maps being the stem's own weights convolved with ones (recomputed from
//! the weights at every forward pass, so gradients flow to the same
//! parameters). Same weights, same outputs up to float rounding, a third of
//! the forward FLOPs gone.
//!
//! **The policy at the legal actions only** ([`Net::policy_logits_at`]):
//! training needs the logits of a position's legal actions (about 40 of
//! 3,600), so the bilinear head gathers their two embeddings instead of
//! forming all 3,600 products.
//!
//! **The four-player net** ([`Net::for_game`] with [`NetGame::Siguo`]) is
//! the same net on `junqi_siguo::observation`'s planes: the trunk runs on
//! the 17 × 17 grid, and every head reads the trunk's features at the 129
//! cells that are nodes (gathered in node order), so the policy is over
//! the 129 × 129 seat-relative (from, to) pairs (id = from·129 + to), the
//! value is the seat's team's win/draw/loss and the belief head scores the
//! 12 kinds at each of the 129 nodes:
//!
//! ```text
//! obs [B, 74, 17, 17] → stem → blocks → xs [B, channels, 17, 17]
//!   ├ policy (`bilinear`): q, k = conv1×1(xs) at the nodes [B, 129, channels]
//!   │         → logits[from·129 + to] = q[from] · k[to] / √channels
//!   ├ value:  conv1×1 → BN → ReLU → at the nodes [B, planes·129] → linear → ReLU → linear → [B, 3]
//!   └ belief: conv1×1 → at the nodes → [B, 129, 12]
//! ```
//! (The split stem is the two-player observation's; a four-player net's
//! stem convolves all its planes.)

use crate::config::{ModelConfig, PolicyHead};
use junqi_net::NetGame;
use tch::nn;
use tch::{Kind, Tensor};

/// Number of actions: from × to over 60 nodes.
pub const ACTIONS: i64 = 3600;
/// Value classes: win, draw, loss (from the mover's side).
pub const WDL: i64 = 3;
/// The logit illegal actions get before the softmax: their probability
/// underflows to exactly 0 (`exp(-1e9)` is 0 in `f32`), and unlike `-inf` a
/// row without legal actions still gives finite numbers.
pub const MASK_LOGIT: f64 = -1e9;

/// The board a net's trunk runs on and where its nodes are.
#[derive(Debug)]
struct Board {
    game: NetGame,
    rows: i64,
    cols: i64,
    nodes: i64,
    /// The grid cells of the nodes in node order; `None` when every cell
    /// is a node, in order (the two-player board).
    cells: Option<Tensor>,
}

impl Board {
    fn new(game: NetGame, device: tch::Device) -> Board {
        let grid = game.grid();
        let cells: Vec<i64> = game.node_cells().into_iter().map(|c| c as i64).collect();
        let identity = cells.iter().enumerate().all(|(i, &c)| i as i64 == c) && cells.len() == grid.cells();
        Board {
            game,
            rows: grid.rows as i64,
            cols: grid.cols as i64,
            nodes: cells.len() as i64,
            cells: (!identity).then(|| Tensor::from_slice(&cells).to_device(device)),
        }
    }

    /// `xs [B, C, rows, cols]` at the nodes: `[B, C, nodes]`.
    fn at_nodes(&self, xs: &Tensor) -> Tensor {
        let size = xs.size();
        let flat = xs.reshape([size[0], size[1], -1]);
        match &self.cells {
            None => flat,
            Some(cells) => flat.index_select(2, cells),
        }
    }
}

#[derive(Debug)]
struct ConvBn {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
}

impl ConvBn {
    fn new(p: nn::Path, cin: i64, cout: i64, k: i64) -> ConvBn {
        let cfg = nn::ConvConfig { padding: k / 2, bias: false, ..Default::default() };
        ConvBn {
            conv: nn::conv2d(&p / "conv", cin, cout, k, cfg),
            bn: nn::batch_norm2d(&p / "bn", cout, Default::default()),
        }
    }
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply(&self.conv).apply_t(&self.bn, train)
    }
}

#[derive(Debug)]
struct Block {
    a: ConvBn,
    b: ConvBn,
}

/// The planes the stem convolves, and those it reads as one value each
/// (see the module docs); `None` for inputs that are not this build's
/// observation.
#[derive(Debug)]
struct StemSplit {
    /// Planes that vary over the board: `[38]` indices (`[30]` for a net
    /// made before the history planes).
    spatial: Tensor,
    /// Planes constant over the board: `[72]` indices (`[70]`).
    constant: Tensor,
    /// An all-ones input for the constant planes' maps: `[1, 72, 12, 5]`.
    ones: Tensor,
}

impl StemSplit {
    /// For a net that reads the first `planes` planes of the observation.
    fn new(planes: usize, device: tch::Device) -> StemSplit {
        let (spatial, constant): (Vec<i64>, Vec<i64>) =
            (0..planes as i64).partition(|&c| junqi_env::varies_per_node(c as usize));
        let n = constant.len() as i64;
        StemSplit {
            spatial: Tensor::from_slice(&spatial).to_device(device),
            constant: Tensor::from_slice(&constant).to_device(device),
            ones: Tensor::ones([1, n, 12, 5], (Kind::Float, device)),
        }
    }
}

/// Whether a net of `in_channels` input planes reads observations of
/// `planes`: its own width, or today's 132 for a net made before the
/// history planes (it reads the first 100) or before the rule-state planes
/// (the first 110; [`Net::trunk`]).
pub(crate) fn reads_planes(in_channels: usize, planes: usize) -> bool {
    planes == in_channels || (junqi_env::NET_WIDTHS.contains(&in_channels) && planes == junqi_env::OBS_CHANNELS)
}

/// The residual policy/value net. Its variables live in the
/// [`nn::VarStore`] given to [`Net::new`].
#[derive(Debug)]
pub struct Net {
    config: ModelConfig,
    board: Board,
    stem: ConvBn,
    split: Option<StemSplit>,
    blocks: Vec<Block>,
    /// `conv`: 60 planes; `bilinear`: the origin embedding q.
    policy: nn::Conv2D,
    /// `bilinear`: the destination embedding k.
    policy_to: Option<nn::Conv2D>,
    value_conv: ConvBn,
    value_fc: nn::Linear,
    value_out: nn::Linear,
    belief: Option<nn::Conv2D>,
}

/// Kinds the belief head scores per node.
const BELIEF_KINDS: i64 = junqi_net::BELIEF_KINDS as i64;

impl Net {
    /// The two-player net.
    pub fn new(p: &nn::Path, config: &ModelConfig) -> Net {
        Net::for_game(p, config, NetGame::TwoPlayer)
    }

    /// The net of `game`: the two-player net, or the four-player one (see
    /// the module docs).
    pub fn for_game(p: &nn::Path, config: &ModelConfig, game: NetGame) -> Net {
        let board = Board::new(game, p.device());
        let nodes = board.nodes;
        let ch = config.channels as i64;
        let blocks = (0..config.blocks)
            .map(|i| {
                let q = p / "blocks" / i;
                Block { a: ConvBn::new(&q / "a", ch, ch, 3), b: ConvBn::new(&q / "b", ch, ch, 3) }
            })
            .collect();
        let vp = config.value_planes as i64;
        // Created in this order (blocks, stem, policy, value) so that a seed
        // gives the same initial weights as before the bilinear head existed.
        let stem = ConvBn::new(p / "stem", config.in_channels as i64, ch, 3);
        let (policy, policy_to) = match config.policy_head {
            PolicyHead::Conv => (nn::conv2d(p / "policy", ch, nodes, 1, Default::default()), None),
            PolicyHead::Bilinear => (
                nn::conv2d(p / "policy", ch, ch, 1, Default::default()),
                Some(nn::conv2d(p / "policy_to", ch, ch, 1, Default::default())),
            ),
        };
        let observation = game == NetGame::TwoPlayer && junqi_env::NET_WIDTHS.contains(&config.in_channels);
        let split = observation.then(|| StemSplit::new(config.in_channels, p.device()));
        let value_conv = ConvBn::new(p / "value", ch, vp, 1);
        let value_fc = nn::linear(p / "value_fc", vp * nodes, config.value_hidden as i64, Default::default());
        let value_out = nn::linear(p / "value_out", config.value_hidden as i64, WDL, Default::default());
        // Last, so the other heads' initial weights are the same with or without it.
        let belief = config.belief.then(|| nn::conv2d(p / "belief", ch, BELIEF_KINDS, 1, Default::default()));
        Net {
            config: config.clone(),
            board,
            stem,
            split,
            blocks,
            policy,
            policy_to,
            value_conv,
            value_fc,
            value_out,
            belief,
        }
    }

    /// The game the net plays.
    pub fn game(&self) -> NetGame {
        self.board.game
    }

    /// The policy's actions: nodes × nodes (3,600 for the two-player net,
    /// 16,641 for the four-player one).
    pub fn actions(&self) -> i64 {
        self.board.nodes * self.board.nodes
    }

    /// The belief head's logits `[B, nodes, 12]` (node, kind) of the trunk's
    /// features; `None` for a net without the head.
    pub fn belief_logits(&self, xs: &Tensor) -> Option<Tensor> {
        let head = self.belief.as_ref()?;
        Some(self.board.at_nodes(&xs.apply(head)).transpose(1, 2))
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Raw outputs for `obs [B, C, 12, 5]` (or `[B, C·60]`; the four-player
    /// net's `[B, C, 17, 17]`): policy logits `[B, 3600]` (`[B, 16641]`),
    /// not masked, and value logits `[B, 3]` (win, draw, loss).
    /// `train` selects batch statistics (training) or running ones (evaluation).
    pub fn forward_t(&self, obs: &Tensor, train: bool) -> (Tensor, Tensor) {
        let xs = self.trunk(obs, train);
        (self.policy_logits(&xs), self.value_logits(&xs, train))
    }

    /// The trunk's features `[B, channels, 12, 5]` (`[B, channels, 17,
    /// 17]`) of `obs`. A net made before the history planes reads the first
    /// 100 of today's 132, one made before the rule-state planes the first 110.
    pub fn trunk(&self, obs: &Tensor, train: bool) -> Tensor {
        let b = obs.size()[0];
        let cin = self.config.in_channels as i64;
        let (rows, cols) = (self.board.rows, self.board.cols);
        let mut xs = obs.reshape([b, -1, rows, cols]);
        if xs.size()[1] > cin {
            xs = xs.narrow(1, 0, cin);
        }
        let xs = xs.reshape([b, cin, rows, cols]);
        let mut xs = self.stem_pre(&xs).apply_t(&self.stem.bn, train).relu();
        for block in &self.blocks {
            let ys = block.a.forward_t(&xs, train).relu();
            xs = (block.b.forward_t(&ys, train) + &xs).relu();
        }
        xs
    }

    /// The stem's convolution of `xs [B, C, 12, 5]` (before batch norm).
    fn stem_pre(&self, xs: &Tensor) -> Tensor {
        let b = xs.size()[0];
        match &self.split {
            None => xs.apply(&self.stem.conv),
            Some(split) => {
                let w = &self.stem.conv.ws; // [ch, in, 3, 3]
                let ch = self.config.channels as i64;
                let spatial = xs.index_select(1, &split.spatial);
                let values = xs.index_select(1, &split.constant).select(3, 0).select(2, 0); // [B, constant planes]
                let w_constant = w.index_select(1, &split.constant); // [ch, constant planes, 3, 3]
                let k = w_constant.size()[1];
                // Each constant plane's map: its weights convolved with ones (groups = one per plane).
                let maps = split
                    .ones
                    .conv2d(
                        &w_constant.transpose(0, 1).reshape([k * ch, 1, 3, 3]),
                        None::<Tensor>,
                        [1, 1],
                        [1, 1],
                        [1, 1],
                        k,
                    )
                    .reshape([k, ch * 60]);
                spatial.conv2d(&w.index_select(1, &split.spatial), None::<Tensor>, [1, 1], [1, 1], [1, 1], 1)
                    + values.matmul(&maps).reshape([b, ch, 12, 5])
            }
        }
    }

    /// All policy logits `[B, nodes²]` (id = from·nodes + to) of the trunk's features.
    pub fn policy_logits(&self, xs: &Tensor) -> Tensor {
        let b = xs.size()[0];
        let at_nodes = |layer: &nn::Conv2D| self.board.at_nodes(&xs.apply(layer));
        match &self.policy_to {
            // [B, to, from] → [B, from, to]
            None => at_nodes(&self.policy).transpose(1, 2).reshape([b, self.actions()]),
            Some(to) => {
                let ch = self.config.channels as i64;
                let q = at_nodes(&self.policy).transpose(1, 2); // [B, from, ch]
                let k = at_nodes(to); // [B, ch, to]
                (q.matmul(&k) / (ch as f64).sqrt()).reshape([b, self.actions()])
            }
        }
    }

    /// The policy logits of the actions `ids [B, L]` (int64 action ids) only:
    /// `[B, L]`, equal to `policy_logits(xs).gather(1, ids)`.
    pub fn policy_logits_at(&self, xs: &Tensor, ids: &Tensor) -> Tensor {
        match &self.policy_to {
            None => self.policy_logits(xs).gather(1, ids, false),
            Some(to) => {
                let (b, l) = (ids.size()[0], ids.size()[1]);
                let (ch, nodes) = (self.config.channels as i64, self.board.nodes);
                let q = self.board.at_nodes(&xs.apply(&self.policy)).transpose(1, 2); // [B, nodes, ch]
                let k = self.board.at_nodes(&xs.apply(to)).transpose(1, 2);
                let at = |nodes: Tensor| nodes.unsqueeze(-1).expand([b, l, ch], false);
                let qf = q.gather(1, &at(ids.divide_scalar_mode(nodes, "floor")), false); // [B, L, ch]
                let kt = k.gather(1, &at(ids.remainder(nodes)), false);
                (qf * kt).sum_dim_intlist(-1, false, Kind::Float) / (ch as f64).sqrt()
            }
        }
    }

    /// The value logits `[B, 3]` (win, draw, loss) of the trunk's features.
    pub fn value_logits(&self, xs: &Tensor, train: bool) -> Tensor {
        let b = xs.size()[0];
        let planes = self.board.at_nodes(&self.value_conv.forward_t(xs, train).relu());
        planes.reshape([b, -1]).apply(&self.value_fc).relu().apply(&self.value_out)
    }

    /// Policy logits with illegal actions set to [`MASK_LOGIT`]; `legal` is a
    /// `[B, actions]` bool (or 0/1) tensor.
    pub fn masked_logits(logits: &Tensor, legal: &Tensor) -> Tensor {
        logits.masked_fill(&legal.to_kind(Kind::Bool).logical_not(), MASK_LOGIT)
    }

    /// Evaluation: the policy `[B, actions]` (exactly 0 on illegal actions) and
    /// the value as win/draw/loss probabilities `[B, 3]`, without gradients.
    pub fn predict(&self, obs: &Tensor, legal: &Tensor) -> (Tensor, Tensor) {
        let (policy, wdl, _) = self.predict_with_belief(obs, legal, false);
        (policy, wdl)
    }

    /// [`Net::predict`], and with `belief` (and a belief head) the belief
    /// head's kind probabilities `[B, nodes, 12]`, from the same trunk pass.
    pub fn predict_with_belief(&self, obs: &Tensor, legal: &Tensor, belief: bool) -> (Tensor, Tensor, Option<Tensor>) {
        tch::no_grad(|| {
            let xs = self.trunk(obs, false);
            let policy = Net::masked_logits(&self.policy_logits(&xs), legal).softmax(-1, Kind::Float);
            let wdl = self.value_logits(&xs, false).softmax(-1, Kind::Float);
            let kinds = if belief { self.belief_logits(&xs).map(|l| l.softmax(-1, Kind::Float)) } else { None };
            (policy, wdl, kinds)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_masking() {
        tch::manual_seed(1);
        for policy_head in [PolicyHead::Conv, PolicyHead::Bilinear] {
            shapes_and_masking_with(ModelConfig { blocks: 1, channels: 8, policy_head, ..Default::default() });
        }
    }

    /// An observation-like input: random 0/1 per-node planes, one random
    /// value per constant plane.
    fn observation_like(b: i64, c: i64) -> Tensor {
        let x = Tensor::rand([b, c, 12, 5], (Kind::Float, tch::Device::Cpu)).round();
        let split = StemSplit::new(c as usize, tch::Device::Cpu);
        let values = Tensor::rand([b, split.constant.size()[0], 1, 1], (Kind::Float, tch::Device::Cpu))
            .expand([-1, -1, 12, 5], false)
            .contiguous();
        x.index_copy(1, &split.constant, &values)
    }

    #[test]
    fn the_split_stem_and_the_gathered_logits_equal_the_plain_ones() {
        tch::manual_seed(3);
        // Today's planes, and nets made before the history or the rule-state planes.
        let heads = [PolicyHead::Conv, PolicyHead::Bilinear, PolicyHead::Conv];
        for (policy_head, in_channels) in heads.into_iter().zip(junqi_env::NET_WIDTHS) {
            let cfg = ModelConfig { blocks: 1, channels: 16, policy_head, in_channels, ..Default::default() };
            let vs = nn::VarStore::new(tch::Device::Cpu);
            let net = Net::new(&vs.root(), &cfg);
            let obs = observation_like(5, cfg.in_channels as i64);
            let split = net.stem_pre(&obs);
            let plain = obs.apply(&net.stem.conv);
            let diff = (&split - &plain).abs().max().double_value(&[]);
            assert!(diff < 1e-4, "stem differs by {diff}");
            let xs = net.trunk(&obs, false);
            let ids = Tensor::from_slice(&[0i64, 61, 3599, 1234, 7, 7, 60, 2000, 59, 3540]).reshape([5, 2]);
            let full = net.policy_logits(&xs).gather(1, &ids, false);
            let at = net.policy_logits_at(&xs, &ids);
            let diff = (&full - &at).abs().max().double_value(&[]);
            assert!(diff < 1e-5, "{policy_head:?}: gathered logits differ by {diff}");
        }
    }

    fn shapes_and_masking_with(cfg: ModelConfig) {
        let vs = nn::VarStore::new(tch::Device::Cpu);
        let net = Net::new(&vs.root(), &cfg);
        let obs = Tensor::randn([3, cfg.in_channels as i64, 12, 5], (Kind::Float, tch::Device::Cpu));
        let (p, v) = net.forward_t(&obs, true);
        assert_eq!(p.size(), [3, ACTIONS]);
        assert_eq!(v.size(), [3, WDL]);
        let legal = Tensor::zeros([3, ACTIONS], (Kind::Bool, tch::Device::Cpu));
        let _ = legal.get(0).get(5).fill_(1);
        let _ = legal.get(1).narrow(0, 100, 50).fill_(1);
        let (probs, wdl) = net.predict(&obs, &legal);
        assert_eq!(probs.get(0).get(5).double_value(&[]), 1.0);
        let sums: Vec<f32> = Vec::try_from(&probs.sum_dim_intlist(-1, false, Kind::Float)).unwrap();
        assert!((sums[0] - 1.0).abs() < 1e-5 && (sums[1] - 1.0).abs() < 1e-5, "{sums:?}");
        let wsum: Vec<f32> = Vec::try_from(&wdl.sum_dim_intlist(-1, false, Kind::Float)).unwrap();
        assert!(wsum.iter().all(|s| (s - 1.0).abs() < 1e-5));
        // Row 2 has no legal action at all: finite (uniform), never NaN.
        assert!(probs.isnan().any().int64_value(&[]) == 0);
    }
}
