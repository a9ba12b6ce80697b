"""The policy/value net in PyTorch: the architecture of the Rust net
(``junqi-train``'s ``Net``, evaluated by ``junqi_net::CpuNet``), reading and
writing the same ``.safetensors`` files.

Optional: needs ``torch`` (``import junqi`` does not import this module).

::

    from junqi.torch import Net, load_safetensors
    net = load_safetensors("data/nets/fanqi.safetensors")
    policy, wdl, belief = net(planes)          # planes: float32 [B, C, 12, 5]
    ...                                        # fine-tune
    net.save_safetensors("mine.safetensors")   # junqi arena --bots net:path=mine.safetensors,…

The four-player (四国) net, :class:`SiguoNet` (:func:`load_siguo_safetensors`),
is the same net on the four-player observation ``[B, 74, 17, 17]``: every
head reads the trunk at the 129 cells that are nodes (in node order), so
its policy is over ``from * 129 + to`` (16,641 seat-relative actions), its
value is the seat's team's win/draw/loss and its belief is ``[B, 129, 12]``
(``docs/observation.md``, "Four-player nets"). Each loader refuses the
other game's files by name, as the Rust loaders do.

The architecture (``docs/training.md``)::

    obs [B, C, 12, 5]
     └ conv3×3 → BN → ReLU                                         (stem)
     └ blocks × [conv3×3 → BN → ReLU → conv3×3 → BN, + skip, ReLU]
        ├ policy `conv`:     conv1×1 → 60 planes (to) read at `from`
        ├ policy `bilinear`: logit(from, to) = q[from] · k[to] / √channels
        ├ value:  conv1×1 → BN → ReLU → linear → ReLU → linear → (W, D, L)
        └ belief (optional): conv1×1 → [B, 12 kinds, 60 nodes] → [B, 60, 12]

Action ids are ``from * 60 + to`` in the mover's frame; the policy logits are
not masked (``evaluate`` takes the softmax over the legal ones only, as the
Rust engine does).
"""

from __future__ import annotations

import json
import math
import os
import struct
from typing import Dict, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from . import _core

__all__ = [
    "Net",
    "SiguoNet",
    "load_safetensors",
    "load_siguo_safetensors",
    "DEFAULT_CONFIG",
    "SIGUO_DEFAULT_CONFIG",
    "ACTIONS",
    "NODES",
    "SIGUO_ACTIONS",
    "SIGUO_NODES",
    "BELIEF_KINDS",
]

#: Board nodes (the 12 × 5 grid).
NODES = 60
#: Action ids: from × to over the 60 nodes.
ACTIONS = NODES * NODES
#: Kinds the belief head scores per node.
BELIEF_KINDS = 12
#: Value classes: win, draw, loss (from the mover's side).
WDL = 3
#: Batch norm's epsilon and momentum in ``junqi-train`` (libtorch's defaults).
BN_EPS = 1e-5
BN_MOMENTUM = 0.1

NET_FORMAT = "junqi-net/1"
CHECKPOINT_FORMAT = "junqi-train-checkpoint/1"
SIGUO_NET_FORMAT = "junqi-siguo-net/1"
SIGUO_CHECKPOINT_FORMAT = "junqi-siguo-train-checkpoint/1"
#: The four-player grid (17 × 17), its observation planes, and each
#: seat-relative node's cell (``y * 17 + x``) in node order, as the Rust
#: net gathers them (``NetGame::Siguo.node_cells()``).
SIGUO_GRID = 17
SIGUO_PLANES = 74
SIGUO_NODE_CELLS: Tuple[int, ...] = tuple(_core.SIGUO_NODE_CELLS)
SIGUO_NODES = len(SIGUO_NODE_CELLS)
SIGUO_ACTIONS = SIGUO_NODES * SIGUO_NODES
CHECKSUM_KEY = "checksum_fnv1a64"
DATA_CHECKSUM_KEY = "data_fnv1a64"

#: ``ModelConfig::default()`` of ``crates/junqi-net/src/model.rs``, in its
#: field order (the order the Rust side writes the ``architecture`` JSON in).
DEFAULT_CONFIG: Dict[str, object] = {
    "in_channels": 132,
    "blocks": 6,
    "channels": 64,
    "value_planes": 4,
    "value_hidden": 128,
    "policy_head": "conv",
    "belief": False,
}

#: ``ModelConfig::siguo()``: a four-player net's default shape (74 planes,
#: the bilinear policy head, a belief head, the default trunk).
SIGUO_DEFAULT_CONFIG: Dict[str, object] = {
    **DEFAULT_CONFIG,
    "in_channels": SIGUO_PLANES,
    "policy_head": "bilinear",
    "belief": True,
}


def _model_config(config: Optional[dict], defaults: Dict[str, object] = DEFAULT_CONFIG) -> Dict[str, object]:
    """A full ``ModelConfig`` from ``config``: missing keys take ``defaults``
    (by default the Rust reader's: ``ModelConfig::default()``, and a file's
    missing ``policy_head`` is ``conv`` and a missing ``belief`` is false,
    as serde reads them); unknown keys and bad values are refused like the
    Rust reader refuses them."""
    cfg = dict(defaults)
    for key, value in (config or {}).items():
        if key not in cfg:
            raise ValueError(f"unknown architecture key `{key}` (known: {', '.join(DEFAULT_CONFIG)})")
        cfg[key] = value
    for key in ("in_channels", "blocks", "channels", "value_planes", "value_hidden"):
        v = cfg[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"architecture `{key}` must be a non-negative integer, not {v!r}")
    for key in ("in_channels", "channels", "value_planes", "value_hidden"):
        if cfg[key] == 0:
            raise ValueError("in_channels, channels, value_planes and value_hidden must be positive")
    if cfg["policy_head"] not in ("conv", "bilinear"):
        raise ValueError(f"architecture `policy_head` must be \"conv\" or \"bilinear\", not {cfg['policy_head']!r}")
    if not isinstance(cfg["belief"], bool):
        raise ValueError(f"architecture `belief` must be true or false, not {cfg['belief']!r}")
    return cfg


class _ConvBn(nn.Module):
    """A convolution without bias and its batch norm (``{name}.conv``, ``{name}.bn``)."""

    def __init__(self, cin: int, cout: int, k: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=BN_EPS, momentum=BN_MOMENTUM)

    def forward(self, x: Tensor) -> Tensor:
        return self.bn(self.conv(x))


class _Block(nn.Module):
    def __init__(self, ch: int):
        super().__init__()
        self.a = _ConvBn(ch, ch, 3)
        self.b = _ConvBn(ch, ch, 3)

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.b(F.relu(self.a(x))) + x)


class Net(nn.Module):
    """The residual policy/value net of ``junqi-train``, same parameter names
    (``stem.conv.weight``, ``blocks.0.a.bn.running_mean``, …) and shapes as
    the Rust net files.

    ``config``: the architecture (``ModelConfig``) as a dict; missing keys
    take ``ModelConfig::default()`` (:data:`DEFAULT_CONFIG`). Weights are
    PyTorch's default initialisation.

    Attributes kept for :meth:`save_safetensors`: ``step`` (the training
    step written to the metadata), ``metadata`` (the other metadata entries
    of the file it was loaded from, written back) and ``extra_tensors``
    (tensors stored with the net that are not its parameters: the learned
    deployment model ``deploy.weight``, ``deploy.bias``,
    ``deploy.temperature``, written back unchanged).
    """

    # The game, as class attributes (SiguoNet has the four-player ones): the
    # grid the trunk runs on; the nodes' cells in node order (None: every
    # cell, in order); the file formats (net, checkpoint); the `game`
    # metadata value and the game's name in messages; `Net()`'s shape.
    ROWS, COLS = 12, 5
    NODE_CELLS: Optional[Tuple[int, ...]] = None
    FORMAT, CHECKPOINT = NET_FORMAT, CHECKPOINT_FORMAT
    GAME, DESCRIBE = "junqi", "two-player"
    DEFAULTS: Dict[str, object] = DEFAULT_CONFIG

    def __init__(self, config: Optional[dict] = None):
        super().__init__()
        cfg = _model_config(config, self.DEFAULTS)
        self._check_config(cfg)
        self.config: Dict[str, object] = cfg
        #: Board nodes, and the policy's actions (nodes × nodes).
        self.nodes = len(self.NODE_CELLS) if self.NODE_CELLS else self.ROWS * self.COLS
        self.actions = self.nodes * self.nodes
        # Not in the state dict: the file has no such tensor.
        cells = torch.tensor(self.NODE_CELLS, dtype=torch.long) if self.NODE_CELLS else None
        self.register_buffer("node_cells", cells, persistent=False)
        ch, cin = int(cfg["channels"]), int(cfg["in_channels"])
        vp, vh = int(cfg["value_planes"]), int(cfg["value_hidden"])
        self.stem = _ConvBn(cin, ch, 3)
        self.blocks = nn.ModuleList([_Block(ch) for _ in range(int(cfg["blocks"]))])
        if cfg["policy_head"] == "conv":
            self.policy = nn.Conv2d(ch, self.nodes, 1)
            self.policy_to = None
        else:
            self.policy = nn.Conv2d(ch, ch, 1)
            self.policy_to = nn.Conv2d(ch, ch, 1)
        self.value = _ConvBn(ch, vp, 1)
        self.value_fc = nn.Linear(vp * self.nodes, vh)
        self.value_out = nn.Linear(vh, WDL)
        self.belief = nn.Conv2d(ch, BELIEF_KINDS, 1) if cfg["belief"] else None
        self.step: int = 0
        self.metadata: Dict[str, str] = {}
        self.extra_tensors: Dict[str, Tensor] = {}

    @staticmethod
    def _check_config(cfg: Dict[str, object]) -> None:
        """Refuse a shape this game's net cannot have (none for two players:
        a net made before the history planes reads a prefix of today's)."""

    # ----------------------------------------------------------- forward

    def _at_nodes(self, x: Tensor) -> Tensor:
        """``x [B, C, rows, cols]`` at the nodes, in node order: ``[B, C, nodes]``."""
        flat = x.reshape(x.shape[0], x.shape[1], -1)
        return flat if self.node_cells is None else flat.index_select(2, self.node_cells)

    def trunk(self, planes: Tensor) -> Tensor:
        """The trunk's features ``[B, channels, 12, 5]`` of ``planes``
        (``[B, C, 12, 5]`` or ``[B, C·60]``; the four-player net's
        ``[B, channels, 17, 17]`` of ``[B, 74, 17, 17]``)."""
        b = planes.shape[0]
        cin = int(self.config["in_channels"])
        rows, cols = self.ROWS, self.COLS
        # An older net reads the first 100 or 110 of today's 132 planes.
        x = planes.reshape(b, -1, rows, cols)[:, :cin].reshape(b, cin, rows, cols)
        x = F.relu(self.stem(x))
        for block in self.blocks:
            x = block(x)
        return x

    def policy_logits(self, x: Tensor) -> Tensor:
        """All policy logits ``[B, nodes²]`` (3,600, or 16,641 for four
        players; id = from·nodes + to, not masked) of the trunk's features."""
        b = x.shape[0]
        if self.policy_to is None:
            # Plane `to`, read at node `from`: [B, to, from] → [B, from, to].
            return self._at_nodes(self.policy(x)).transpose(1, 2).reshape(b, self.actions)
        ch = int(self.config["channels"])
        q = self._at_nodes(self.policy(x)).transpose(1, 2)  # [B, from, ch]
        k = self._at_nodes(self.policy_to(x))  # [B, ch, to]
        return (q @ k / math.sqrt(ch)).reshape(b, self.actions)

    def policy_logits_at(self, x: Tensor, ids: Tensor) -> Tensor:
        """The policy logits of the action ids ``ids [B, L]`` only: equal to
        ``policy_logits(x).gather(1, ids)``, cheaper for the bilinear head."""
        ids = ids.long()
        if self.policy_to is None:
            return self.policy_logits(x).gather(1, ids)
        b, l = ids.shape
        ch, n = int(self.config["channels"]), self.nodes
        q = self._at_nodes(self.policy(x)).transpose(1, 2)  # [B, nodes, ch]
        k = self._at_nodes(self.policy_to(x)).transpose(1, 2)
        qf = q.gather(1, (ids // n).unsqueeze(-1).expand(b, l, ch))
        kt = k.gather(1, (ids % n).unsqueeze(-1).expand(b, l, ch))
        return (qf * kt).sum(-1) / math.sqrt(ch)

    def value_logits(self, x: Tensor) -> Tensor:
        """Value logits ``[B, 3]`` (win, draw, loss) of the trunk's features."""
        v = self._at_nodes(F.relu(self.value(x))).reshape(x.shape[0], -1)  # [plane][node] order
        return self.value_out(F.relu(self.value_fc(v)))

    def belief_logits(self, x: Tensor) -> Optional[Tensor]:
        """Belief logits ``[B, nodes, 12]`` (node, kind) of the trunk's
        features; ``None`` without a belief head."""
        if self.belief is None:
            return None
        return self._at_nodes(self.belief(x)).transpose(1, 2)

    def forward(self, planes: Tensor) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
        """``planes [B, C, 12, 5]`` → ``(policy_logits [B, 3600],
        wdl_logits [B, 3], belief_logits [B, 60, 12] or None)``, raw (not
        masked, no softmax); for four players ``[B, 74, 17, 17]`` →
        ``[B, 16641]``, ``[B, 3]``, ``[B, 129, 12]``. Batch norm uses batch
        statistics in ``train()`` mode and the running ones in ``eval()`` mode."""
        x = self.trunk(planes)
        return self.policy_logits(x), self.value_logits(x), self.belief_logits(x)

    @torch.no_grad()
    def evaluate(
        self, planes: Union[Tensor, np.ndarray], legal_ids: Union[Sequence[int], Sequence[Sequence[int]], np.ndarray]
    ):
        """What the Rust engine answers (``junqi_net::Evaluation``): for one
        position ``planes [C, 12, 5]`` and its legal action ids, the tuple
        ``(priors [L], wdl [3], belief [60, 12] or None)``: the softmax over
        the legal actions' logits in the order given, the win/draw/loss
        probabilities and per node the probabilities of the 12 kinds (four
        players: ``planes [74, 17, 17]``, belief ``[129, 12]``).

        For a batch ``planes [B, C, 12, 5]`` with one list of ids per
        position, a list of such tuples. Always with the running batch-norm
        statistics (as in ``eval()`` mode), without gradients; the module's
        mode is left as it was.
        """
        p = torch.as_tensor(planes, dtype=torch.float32)
        single = p.dim() == 3
        if single:
            p = p.unsqueeze(0)
            legal_ids = [legal_ids]
        if len(legal_ids) != p.shape[0]:
            raise ValueError(f"{p.shape[0]} positions but {len(legal_ids)} lists of legal ids")
        device = next(self.parameters()).device
        was_training = self.training
        self.eval()
        try:
            x = self.trunk(p.to(device))
            wdl = F.softmax(self.value_logits(x), dim=-1)
            belief = self.belief_logits(x)
            belief = F.softmax(belief, dim=-1) if belief is not None else None
            out = []
            for i, ids in enumerate(legal_ids):
                ids = torch.as_tensor(np.asarray(ids, dtype=np.int64), device=device).reshape(1, -1)
                if ids.numel() == 0:
                    raise ValueError("legal_ids: at least one action per position")
                if int(ids.min()) < 0 or int(ids.max()) >= self.actions:
                    raise ValueError(f"legal_ids: action ids must be in 0..{self.actions}")
                logits = self.policy_logits_at(x[i : i + 1], ids)[0]
                out.append((F.softmax(logits, dim=-1), wdl[i], belief[i] if belief is not None else None))
        finally:
            self.train(was_training)
        return out[0] if single else out

    # ----------------------------------------------------------- files

    def net_tensors(self) -> Dict[str, Tensor]:
        """The tensors of a net file: every parameter and batch-norm
        statistic by its Rust name (no ``num_batches_tracked``), plus
        :attr:`extra_tensors`."""
        out = {k: v for k, v in self.state_dict().items() if not k.endswith("num_batches_tracked")}
        for name, t in self.extra_tensors.items():
            out.setdefault(name, t)
        return out

    def save_safetensors(self, path: Union[str, os.PathLike], step: Optional[int] = None) -> None:
        """Write the net as an exported net file (``junqi-net/1``; a
        :class:`SiguoNet` ``junqi-siguo-net/1`` with ``game = siguo``) that
        ``junqi`` (``net:path=…``) and :func:`load_safetensors`
        (:func:`load_siguo_safetensors`) read:
        f32 tensors by name, the ``architecture`` JSON, ``step``, the other
        metadata of the file it came from, and the two FNV-1a checksums the
        Rust reader checks. Atomic (a temporary file renamed over ``path``)."""
        meta = dict(self.metadata)
        for k in (CHECKSUM_KEY, DATA_CHECKSUM_KEY, "config", "optimizer_updates", "data_window"):
            meta.pop(k, None)  # checksums are recomputed; the others are a checkpoint's
        meta["format"] = self.FORMAT
        if self.GAME != Net.GAME:
            meta["game"] = self.GAME  # as `NetFile::write` marks a four-player net
        meta["architecture"] = json.dumps(self.config, separators=(",", ":"))
        meta["step"] = str(int(self.step if step is None else step))
        tensors = {
            name: t.detach().to("cpu", torch.float32).contiguous().numpy() for name, t in self.net_tensors().items()
        }
        write_safetensors(path, tensors, meta)

    @classmethod
    def from_safetensors(cls, path: Union[str, os.PathLike]) -> "Net":
        """:func:`load_safetensors` (:func:`load_siguo_safetensors` for a :class:`SiguoNet`)."""
        return _load(cls, path, "cpu")


class SiguoNet(Net):
    """The four-player (四国) net: :class:`Net` on the observation of
    ``junqi_siguo::observation`` (``[B, 74, 17, 17]``, seat-relative), as
    ``junqi-train`` builds it for ``NetGame::Siguo`` and
    ``junqi_net::SiguoCpuNet`` evaluates it. The trunk runs on the 17 × 17
    grid; every head reads its features at the 129 node cells
    (:data:`SIGUO_NODE_CELLS`), so the policy is over ``from * 129 + to``
    (:data:`SIGUO_ACTIONS`, seat-relative nodes), the value is the seat's
    team's win/draw/loss and the belief ``[B, 129, 12]``.

    ``config``: missing keys take ``ModelConfig::siguo()``
    (:data:`SIGUO_DEFAULT_CONFIG`); ``in_channels`` must be 74.
    Files: ``junqi-siguo-net/1`` (``game = siguo``), read by
    :func:`load_siguo_safetensors` and ``junqi arena --siguo --bots net:FILE,…``.
    """

    ROWS = COLS = SIGUO_GRID
    NODE_CELLS = SIGUO_NODE_CELLS
    FORMAT, CHECKPOINT = SIGUO_NET_FORMAT, SIGUO_CHECKPOINT_FORMAT
    GAME, DESCRIBE = "siguo", "four-player (四国)"
    DEFAULTS = SIGUO_DEFAULT_CONFIG

    @staticmethod
    def _check_config(cfg: Dict[str, object]) -> None:
        # `ModelConfig::check_planes`: more planes would not fit the input, fewer would drop some.
        if cfg["in_channels"] != SIGUO_PLANES:
            raise ValueError(
                f"the net takes {cfg['in_channels']} observation planes, this build encodes {SIGUO_PLANES} "
                f"for the four-player board (set in_channels = {SIGUO_PLANES})"
            )


# The net class of each file format, and each class's loader (for messages).
_FORMATS = {fmt: cls for cls in (Net, SiguoNet) for fmt in (cls.FORMAT, cls.CHECKPOINT)}
_LOADERS = {Net: "junqi.torch.load_safetensors", SiguoNet: "junqi.torch.load_siguo_safetensors"}


def load_safetensors(path: Union[str, os.PathLike], map_location: Union[str, torch.device] = "cpu") -> Net:
    """Read a two-player net file (an exported net, ``junqi-net/1``, or a
    training checkpoint, ``junqi-train-checkpoint/1``) into a :class:`Net`
    of the architecture in its metadata, checking the checksums as the Rust
    reader does. A four-player net is refused by name. The net is in
    ``eval()`` mode."""
    return _load(Net, path, map_location)


def load_siguo_safetensors(
    path: Union[str, os.PathLike], map_location: Union[str, torch.device] = "cpu"
) -> SiguoNet:
    """Read a four-player (四国) net file (``junqi-siguo-net/1``, or a
    training checkpoint, ``junqi-siguo-train-checkpoint/1``) into a
    :class:`SiguoNet`, with the checks of :func:`load_safetensors`. A
    two-player net is refused by name, and so is a net that does not take
    the 74 planes. The net is in ``eval()`` mode."""
    return _load(SiguoNet, path, map_location)


def _load(cls, path, map_location):
    """A net file read into ``cls`` (:func:`load_safetensors`), with
    ``NetFile::read_game``'s checks in its order: the format, the `game`
    key against it, the game wanted, the checksums, the architecture, the
    tensor set."""
    meta, arrays = read_safetensors(path)
    fmt = meta.get("format")
    game = _FORMATS.get(fmt)
    if game is None:
        known = ", ".join(f"`{f}`" for f in _FORMATS)
        raise ValueError(f"{path}: format `{fmt}`, expected one of {known}")
    if meta.get("game", game.GAME) != game.GAME:
        raise ValueError(f"{path}: metadata `game` is `{meta['game']}`, but format `{fmt}` is a {game.DESCRIBE} net")
    if game is not cls:
        raise ValueError(
            f"{path}: a {game.DESCRIBE} net (format `{fmt}`, game `{game.GAME}`), where a {cls.DESCRIBE} net "
            f"is needed (read it with {_LOADERS[game]})"
        )
    if "architecture" not in meta:
        raise ValueError(f"{path}: no `architecture` in the metadata")
    _check_sums(path, meta, arrays)
    try:
        # A file's missing keys take serde's defaults, whatever the game.
        net = cls(_model_config(json.loads(meta["architecture"])))
    except ValueError as e:
        raise ValueError(f"{path}: metadata `architecture`: {e}") from None
    prefix = "net." if fmt == cls.CHECKPOINT else ""
    tensors = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
    state = net.state_dict()
    want = {k for k in state if not k.endswith("num_batches_tracked")}
    missing = sorted(want - tensors.keys())
    if missing:
        raise ValueError(f"{path}: no tensor `{prefix}{missing[0]}`, which a net of its architecture has")
    extra = {k: v for k, v in tensors.items() if k not in want}
    unknown = [k for k in extra if not k.startswith("deploy.")]
    if unknown:
        raise ValueError(f"{path}: tensor `{prefix}{unknown[0]}` is not part of a net of its architecture")
    with torch.no_grad():
        for name in want:
            t = torch.from_numpy(tensors[name].copy())
            if tuple(t.shape) != tuple(state[name].shape):
                raise ValueError(f"{path}: `{name}` has shape {list(t.shape)}, the architecture needs {list(state[name].shape)}")
            state[name].copy_(t)
    net.extra_tensors = {k: torch.from_numpy(v.copy()) for k, v in sorted(extra.items())}
    net.step = int(meta.get("step", "0"))
    own = ("format", "architecture", "step", CHECKSUM_KEY, DATA_CHECKSUM_KEY)  # written anew by save_safetensors
    net.metadata = {k: v for k, v in meta.items() if k not in own}
    net.to(map_location)
    net.eval()
    return net


# ---------------------------------------------------------------- safetensors


def read_safetensors(path: Union[str, os.PathLike]) -> Tuple[Dict[str, str], Dict[str, np.ndarray]]:
    """A safetensors file's metadata and its (F32 only) tensors as numpy arrays."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: not a safetensors file (too short)")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError(f"{path}: not a safetensors file (header of {n} bytes)")
    header = json.loads(data[8 : 8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", None) or {}
    body = memoryview(data)[8 + n :]
    arrays = {}
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: tensor `{name}` is of type {info['dtype']}, expected F32")
        start, end = info["data_offsets"]
        shape = [int(d) for d in info["shape"]]
        if end - start != 4 * int(np.prod(shape, dtype=np.int64)) or end > len(body):
            raise ValueError(f"{path}: tensor `{name}`: bad offsets")
        arrays[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(shape)
    return meta, arrays


def _fnv1a(h: int, b: bytes) -> int:
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def checksums(meta: Dict[str, str], tensors: Dict[str, np.ndarray]) -> Tuple[str, str]:
    """``(data_fnv1a64, checksum_fnv1a64)`` as ``crates/junqi-net/src/file.rs``
    computes them: FNV-1a 64 over the tensor data in name order, and over
    everything: the number of metadata entries, each (but
    ``checksum_fnv1a64``) in key order as key and value, the number of
    tensors, each in name order as name, rank, dimensions and data (numbers
    u64 little-endian, strings and data their length first)."""
    u64 = lambda n: struct.pack("<Q", n)  # noqa: E731
    start = 0xCBF29CE484222325
    entries = sorted((k.encode(), v.encode()) for k, v in meta.items() if k != CHECKSUM_KEY)
    head = bytearray(u64(len(entries)))
    for k, v in entries:
        head += u64(len(k)) + k + u64(len(v)) + v
    head += u64(len(tensors))
    data_h, all_h = start, _fnv1a(start, bytes(head))
    for name in sorted(tensors, key=lambda s: s.encode()):
        a = tensors[name]
        raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
        nb = name.encode()
        part = u64(len(nb)) + nb + u64(a.ndim) + b"".join(u64(d) for d in a.shape) + u64(len(raw))
        all_h = _fnv1a(_fnv1a(all_h, part), raw)
        data_h = _fnv1a(data_h, raw)
    return f"{data_h:016x}", f"{all_h:016x}"


def _check_sums(path, meta: Dict[str, str], arrays: Dict[str, np.ndarray]) -> None:
    if CHECKSUM_KEY not in meta and DATA_CHECKSUM_KEY not in meta:
        raise ValueError(f"{path}: no `{CHECKSUM_KEY}` in the metadata")
    data_sum, sum_all = checksums(meta, arrays)
    if CHECKSUM_KEY in meta and meta[CHECKSUM_KEY] != sum_all:
        raise ValueError(f"{path}: the metadata or tensors do not match the checksum `{CHECKSUM_KEY}`")
    if DATA_CHECKSUM_KEY in meta and meta[DATA_CHECKSUM_KEY] != data_sum:
        raise ValueError(f"{path}: the tensor data does not match its checksum (the file is corrupted)")


def write_safetensors(path: Union[str, os.PathLike], tensors: Dict[str, np.ndarray], meta: Dict[str, str]) -> None:
    """Write f32 ``tensors`` and ``meta`` as a safetensors file (tensors in
    name order, header padded to 8 bytes), adding both checksums, atomically."""
    meta = {k: str(v) for k, v in meta.items() if k != CHECKSUM_KEY}
    tensors = {k: np.ascontiguousarray(v, dtype="<f4") for k, v in tensors.items()}
    meta[DATA_CHECKSUM_KEY] = checksums({}, tensors)[0]
    meta[CHECKSUM_KEY] = checksums(meta, tensors)[1]
    header: Dict[str, object] = {"__metadata__": meta}
    offset = 0
    names = sorted(tensors, key=lambda s: s.encode())
    for name in names:
        n = tensors[name].nbytes
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + n]}
        offset += n
    head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    head += b" " * (-len(head) % 8)
    path = os.fspath(path)
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(head)))
            f.write(head)
            for name in names:
                f.write(tensors[name].tobytes())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
