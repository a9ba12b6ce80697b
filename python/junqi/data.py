"""Readers for the Parquet datasets of `junqi selfplay --out DIR` (docs/data.md).

A run directory holds ``run.json``, ``games/`` (one row per game) and
``samples/`` (one row per sampled position)::

    from junqi import data
    games = data.read_games("runs/x")                     # pyarrow.Table
    samples = data.read_samples("runs/x", filter=data.field("game_id") < 10)
    batch = data.sample_arrays(samples)                   # dict of numpy arrays
    batch["obs"].shape                                    # (B, C, 12, 5) float32
    batch["policy"].shape                                 # (B, 3600) float32, rows sum to 1

    for batch in data.iter_sample_batches("runs/x", batch_size=4096):
        ...                                               # the same dicts, streamed

Only the finished shard files (``shard-NNNNNN.parquet``) are read: hidden
names (``.shard-000003.parquet.tmp`` of a shard being written, the
``.crc32c`` checksum records) are skipped, and a shard with a checksum record
is checked against it first (its length always; its CRC-32C too with
``check="crc32c"``), so damaged bytes never reach the decoder.

Seats in the arrays are 0 and 1, as in :class:`junqi.Game` (the files store 1
and 2). Everything positional (observation planes, action ids, masks,
``hidden_kinds``) is in the frame of the seat to move, as in the files.

Four-player runs (``junqi selfplay --siguo``: samples ``junqi-siguo-samples/1``
and ``/2``, observations in the ``siguo-code/1`` code) are read by the same
functions into the same kind of arrays, over the four-player board and
action space: ``obs`` ``[B, 74, 17, 17]`` (:func:`decode_siguo_codes`, exactly
``SiguoGame.observation`` of the mover), ``mask``/``policy`` ``[B, 16641]``,
``seat`` 0 to 3 (as stored), ``outcome`` the mover's team's, and with ``/2``
``hidden_kinds`` ``[B, 129]``. A table is four-player when it has the ``code``
column (two-player samples have ``position``); a run mixing the two is refused.

Needs ``pyarrow`` (``pip install junqi[data]``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

try:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("junqi.data needs pyarrow: pip install pyarrow (or junqi[data])") from e

import junqi

__all__ = [
    "ACTIONS",
    "CODE_BYTES",
    "DamagedShardError",
    "decode_codes_numpy",
    "decode_siguo_codes",
    "field",
    "game_rules",
    "hidden_kind_targets",
    "iter_replay",
    "iter_sample_batches",
    "legal_masks",
    "policy_targets",
    "positions",
    "read_games",
    "read_run",
    "read_samples",
    "replay",
    "sample_arrays",
    "shard_files",
    "shard_metadata",
    "siguo_codes",
    "SIGUO_ACTIONS",
    "SIGUO_CODE_BYTES",
    "SIGUO_SAMPLES_FORMATS",
]

ACTIONS = 3600
CODE_BYTES = 195
#: An ``obs-code-v2`` record (samples written before the rule-state planes):
#: read as today's code with those rules off.
V2_CODE_BYTES = 189
#: An ``obs-code-v1`` record (samples written before the history planes):
#: read as today's code with no history either.
V1_CODE_BYTES = 180
#: What a v2 record lacks: no flag shares a node with a piece (0xFF pairs),
#: nothing carried, empty mountains, the options off.
_V2_TAIL = np.array([0xFF, 0xFF, 0, 0, 0, 0], np.uint8)
#: What a v1 record lacks besides: no last actions (0xFF pairs), seen 0 times before.
_V1_TAIL = np.concatenate([np.array([0xFF] * 8 + [0], np.uint8), _V2_TAIL])
#: Planes of a two-player observation (docs/observation.md).
OBS_CHANNELS = 132
#: The side nodes of the two mountains (a6 b6 a7 b7, d6 e6 d7 e7), as the seat sees them.
_MOUNTAIN_SIDES = ([25, 26, 30, 31], [28, 29, 33, 34])
NODES = 60
#: Samples schema versions this reader understands (docs/data.md).
SCHEMA_VERSIONS = ("2", "3")

#: Four-player samples (``junqi selfplay --siguo``): the footer's ``junqi.format``
#: values this reader reads (``/2`` adds ``hidden_kinds``), and their code.
SIGUO_SAMPLES_FORMATS = ("junqi-siguo-samples/1", "junqi-siguo-samples/2")
SIGUO_CODE_FORMAT = "siguo-code/1"
#: A ``siguo-code/1`` code: a 20-byte header, then a u16 per board node.
SIGUO_CODE_BYTES = 278
SIGUO_NODES = 129
#: Every (from, to) pair of the mover's relative nodes: ``from * 129 + to``.
SIGUO_ACTIONS = SIGUO_NODES * SIGUO_NODES

#: ``pyarrow.dataset.field``, for filters: ``field("game_id") < 10``.
field = ds.field

_SHARD = re.compile(r"^shard-\d+\.parquet$")


class DamagedShardError(ValueError):
    """A shard file disagrees with its checksum record, or cannot be read."""


# --------------------------------------------------------------------------
# Files


def read_run(run_dir: str | os.PathLike) -> dict:
    """The run's ``run.json`` as a dict (config, seed, code version)."""
    with open(Path(run_dir) / "run.json", encoding="utf-8") as f:
        return json.load(f)


def shard_files(run_dir: str | os.PathLike, dataset: str = "samples", check: str = "length") -> list[Path]:
    """The finished shard files of ``run_dir/dataset`` (``"games"`` or ``"samples"``), in shard order.

    Hidden files (temporary shards, checksum records) are skipped, and so is a
    samples file whose shard is not done (no games file yet). ``check``:
    ``"length"`` (default) compares each file's length with its checksum
    record, ``"crc32c"`` also its CRC-32C (reads every byte; uses the
    ``crc32c`` package when installed, else a slow pure-Python CRC), ``"none"``
    checks nothing. A file without a record (a run older than the records) is
    not checked. A mismatch raises :class:`DamagedShardError` naming the file.
    """
    if dataset not in ("games", "samples"):
        raise ValueError(f"dataset must be 'games' or 'samples', not {dataset!r}")
    if check not in ("none", "length", "crc32c"):
        raise ValueError(f"check must be 'none', 'length' or 'crc32c', not {check!r}")
    root = Path(run_dir) / dataset
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such dataset directory (is {run_dir} a `junqi selfplay --out` directory?)")
    files = sorted(p for p in root.iterdir() if _SHARD.match(p.name) and p.is_file())
    if dataset == "samples":
        # A shard's samples file is renamed into place before its games file, and the
        # shard is done only once the games file exists (docs/data.md): a samples file
        # without it is from a run stopped in between, whose games will be played again.
        games = Path(run_dir) / "games"
        files = [p for p in files if (games / p.name).is_file()]
    if check != "none":
        for path in files:
            _check_shard(path, check)
    return files


def _check_shard(path: Path, check: str) -> None:
    record = path.with_name(f".{path.name}.crc32c")
    try:
        text = record.read_text(encoding="ascii")
    except FileNotFoundError:
        return  # an older run, or a file copied from elsewhere: decoded as it is
    except (OSError, UnicodeDecodeError) as e:
        raise DamagedShardError(f"{path}: damaged: its checksum record is unreadable ({e})") from e
    parts = text.split()
    if len(parts) != 2 or not re.fullmatch(r"[0-9a-f]{8}", parts[0]) or not parts[1].isdigit():
        raise DamagedShardError(f"{path}: damaged: its checksum record is unreadable ({text.strip()!r})")
    want_crc, want_len = int(parts[0], 16), int(parts[1])
    size = path.stat().st_size
    if size != want_len:
        raise DamagedShardError(f"{path}: damaged: {size} bytes, its checksum record says {want_len}")
    if check == "crc32c":
        got = _crc32c_file(path)
        if got != want_crc:
            raise DamagedShardError(
                f"{path}: damaged: checksum mismatch (CRC-32C {got:08x}, its record says {want_crc:08x})"
            )


_CRC_TABLE: list[int] | None = None


def _crc32c_file(path: Path) -> int:
    try:
        import crc32c  # type: ignore

        value = 0
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                value = crc32c.crc32c(chunk, value)
        return value
    except ImportError:
        pass
    global _CRC_TABLE
    if _CRC_TABLE is None:
        table = []
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
        _CRC_TABLE = table
    table = _CRC_TABLE
    crc = 0xFFFFFFFF
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            for b in chunk:
                crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def shard_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The key-value metadata of one shard file (``junqi.config``, ``junqi.samples_schema``, …) as str → str."""
    meta = pq.read_metadata(path).metadata or {}
    return {k.decode(): v.decode() for k, v in meta.items()}


def _samples_players(path: Path) -> int:
    """2 or 4: whose samples a shard holds, by its footer; any schema this reader
    does not read is refused by name."""
    meta = shard_metadata(path)
    fmt = meta.get("junqi.format")
    if fmt is not None:
        if fmt not in SIGUO_SAMPLES_FORMATS:
            raise ValueError(
                f"{path}: samples of format {fmt}; this reader reads two-player samples (schema versions "
                f"{', '.join(SCHEMA_VERSIONS)}) and four-player ones ({', '.join(SIGUO_SAMPLES_FORMATS)})"
            )
        encoding = meta.get("junqi.obs_encoding")
        if encoding != SIGUO_CODE_FORMAT:
            raise ValueError(
                f"{path}: four-player observations in {encoding!r}, this reader decodes {SIGUO_CODE_FORMAT}"
            )
        return 4
    version = meta.get("junqi.samples_schema")
    if version not in SCHEMA_VERSIONS:
        what = "no junqi.samples_schema (schema version 1)" if version is None else f"schema version {version}"
        raise ValueError(
            f"{path}: samples {what}; this reader reads versions {', '.join(SCHEMA_VERSIONS)} "
            "(`junqi train` still reads version 1)"
        )
    return 2


def _dataset(run_dir, name: str, check: str) -> ds.Dataset:
    files = shard_files(run_dir, name, check)
    if name == "samples":
        players = {_samples_players(path) for path in files}
        if len(players) > 1:
            raise ValueError(f"{Path(run_dir) / name}: two-player and four-player samples mixed in one run")
    if not files:
        raise FileNotFoundError(f"{Path(run_dir) / name}: no finished shard files")
    # A run resumed by a newer version mixes schema versions: read every file
    # with the union of their columns, a column a file lacks as nulls (a
    # version-2 samples file has no `hidden_kinds`: no belief targets, nor
    # has a junqi-siguo-samples/1 one).
    schema = pa.unify_schemas([pq.read_schema(str(p)) for p in files])
    if name == "samples" and "hidden_kinds" not in schema.names:
        schema = schema.append(pa.field("hidden_kinds", pa.binary()))
    return ds.dataset([str(p) for p in files], format="parquet", schema=schema)


def read_games(
    run_dir: str | os.PathLike,
    columns: Sequence[str] | None = None,
    filter: Any = None,
    check: str = "length",
) -> pa.Table:
    """The ``games/`` dataset of a run as a ``pyarrow.Table``, rows in game order.

    ``columns`` picks columns, ``filter`` is a ``pyarrow.dataset`` expression
    (``field("termination") == "flag_captured"``). ``.to_pandas()`` gives a
    DataFrame, ``.to_pylist()`` a list of dicts.
    """
    return _dataset(run_dir, "games", check).to_table(columns=columns, filter=filter)


def read_samples(
    run_dir: str | os.PathLike,
    columns: Sequence[str] | None = None,
    filter: Any = None,
    check: str = "length",
) -> pa.Table:
    """The ``samples/`` dataset of a run as a ``pyarrow.Table``, rows in game then ply order.

    ``columns`` and ``filter`` as in :func:`read_games`; ``sample_arrays``
    turns the table into numpy arrays.
    """
    return _dataset(run_dir, "samples", check).to_table(columns=columns, filter=filter)


def iter_sample_batches(
    run_dir: str | os.PathLike,
    batch_size: int = 4096,
    columns: Sequence[str] | None = None,
    filter: Any = None,
    check: str = "length",
    decode: bool = True,
) -> Iterator[dict[str, np.ndarray]]:
    """Stream the samples in file order as :func:`sample_arrays` dicts of at most ``batch_size`` rows.

    With ``decode=False`` it yields ``pyarrow.RecordBatch`` es instead.
    """
    dataset = _dataset(run_dir, "samples", check)
    for batch in dataset.to_batches(columns=columns, filter=filter, batch_size=batch_size):
        if batch.num_rows == 0:
            continue
        yield sample_arrays(batch) if decode else batch


# --------------------------------------------------------------------------
# Decoding


def _column(table, name: str) -> pa.Array:
    if name not in table.schema.names:
        raise KeyError(f"the table has no column {name!r} (columns: {', '.join(table.schema.names)})")
    col = table.column(name)
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col


def upgrade_codes(codes: np.ndarray) -> np.ndarray:
    """Older records → ``[B, 195]`` obs-code-v3 ones: ``uint8 [B, 189]``
    obs-code-v2 records with the rule-state planes off, ``[B, 180]``
    obs-code-v1 ones with no history either; v3 records come back as they are."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    if codes.ndim == 2 and codes.shape[1] in (V1_CODE_BYTES, V2_CODE_BYTES):
        tail = _V1_TAIL if codes.shape[1] == V1_CODE_BYTES else _V2_TAIL
        return np.concatenate([codes, np.broadcast_to(tail, (codes.shape[0], len(tail)))], axis=1)
    return codes


def positions(table) -> np.ndarray:
    """The ``position`` column as ``uint8 [B, 195]`` obs-code-v3 records
    (older ones upgraded: :func:`upgrade_codes`)."""
    return upgrade_codes(_positions(table))


def _positions(table) -> np.ndarray:
    return _fixed_rows(table, "position", (CODE_BYTES, V2_CODE_BYTES, V1_CODE_BYTES))


def siguo_codes(table) -> np.ndarray:
    """The ``code`` column of four-player samples as ``uint8 [B, 278]`` ``siguo-code/1`` codes."""
    return _fixed_rows(table, "code", (SIGUO_CODE_BYTES,))


def _fixed_rows(table, name: str, widths: tuple[int, ...]) -> np.ndarray:
    """A binary column whose rows all have one of ``widths`` bytes (the first is
    the current one, named in errors) as ``uint8 [B, width]``."""
    col = _column(table, name)
    n = len(col)
    if n == 0:
        return np.zeros((0, widths[0]), np.uint8)
    if col.null_count:
        raise ValueError(f"{name}: null entries (the column is required)")
    if pa.types.is_fixed_size_binary(col.type):
        width = col.type.byte_width
        if width not in widths:
            raise ValueError(f"{name}: {width} bytes per row, expected {widths[0]}")
        data = np.frombuffer(col.buffers()[1], np.uint8)
        start = col.offset * width
        return data[start : start + n * width].reshape(n, width).copy()
    if pa.types.is_large_binary(col.type):
        offsets = np.frombuffer(col.buffers()[1], np.int64)[col.offset : col.offset + n + 1]
    elif pa.types.is_binary(col.type):
        offsets = np.frombuffer(col.buffers()[1], np.int32)[col.offset : col.offset + n + 1]
    else:
        raise TypeError(f"{name}: expected a binary column, got {col.type}")
    lengths = np.diff(offsets)
    width = int(lengths[0])
    if width not in widths or (lengths != width).any():
        bad = int(np.argmax(lengths != (width if width in widths else widths[0])))
        raise ValueError(f"{name}: row {bad} has {int(lengths[bad])} bytes, expected {widths[0]}")
    data = np.frombuffer(col.buffers()[2], np.uint8)
    return data[int(offsets[0]) : int(offsets[-1])].reshape(n, width).copy()


def _lists(table, name: str, dtype) -> tuple[np.ndarray, np.ndarray]:
    """A list column as (row index per value, values)."""
    col = _column(table, name)
    lengths = pc.list_value_length(col).to_numpy(zero_copy_only=False)
    if col.null_count:
        raise ValueError(f"{name}: null entries (the column is required)")
    values = pc.list_flatten(col).to_numpy(zero_copy_only=False).astype(dtype, copy=False)
    rows = np.repeat(np.arange(len(col)), lengths.astype(np.int64))
    return rows, values


def _is_siguo(table) -> bool:
    """Four-player samples: a ``code`` column where two-player ones have ``position``."""
    return "code" in table.schema.names


def _legal_actions(table) -> tuple[np.ndarray, np.ndarray, int]:
    """``legal_actions`` as (row per value, action ids, the size of the action space), ids checked."""
    rows, actions = _lists(table, "legal_actions", np.int64)
    space = SIGUO_ACTIONS if _is_siguo(table) else ACTIONS
    if len(actions) and actions.max() >= space:
        raise ValueError(f"legal_actions: action {int(actions.max())} outside the {space} actions")
    return rows, actions, space


def legal_masks(table) -> np.ndarray:
    """``legal_actions`` as dense ``uint8 [B, 3600]`` masks (1 = legal), the layout of ``Game.action_mask``
    (four-player samples: ``[B, 16641]``, ``SiguoGame.action_mask``'s)."""
    rows, actions, space = _legal_actions(table)
    mask = np.zeros((table.num_rows, space), np.uint8)
    mask[rows, actions] = 1
    return mask


def policy_targets(table) -> np.ndarray:
    """``legal_actions`` + ``policy`` as dense ``float32 [B, 3600]`` distributions (0 off the legal actions;
    four-player samples: ``[B, 16641]``)."""
    rows, actions, space = _legal_actions(table)
    prow, probs = _lists(table, "policy", np.float32)
    if len(prow) != len(rows) or not np.array_equal(prow, rows):
        raise ValueError("policy: not one probability per legal action in every row")
    target = np.zeros((table.num_rows, space), np.float32)
    target[rows, actions] = probs
    return target


def hidden_kind_targets(table) -> np.ndarray:
    """``hidden_kinds`` as ``int8 [B, 60]``: per node of the mover's frame the true kind
    (0 = 司令 … 11 = 军旗, the observation's kind order) of an enemy piece whose kind the
    mover did not know, else -1 (also for every node of a row whose ``hidden_kinds`` is null,
    and for a table without the column: 翻棋, 明棋, schema version 2). The belief head's
    targets; node ``n`` is row ``n // 5``, column ``n % 5`` of the planes.

    Four-player samples: ``int8 [B, 129]`` per relative node of the mover (the
    code's node order), the true kind of a piece of an army the mover does not
    see whose kind its knowledge leaves open; -1 elsewhere, and everywhere in a
    ``junqi-siguo-samples/1`` file (no ``hidden_kinds``)."""
    n = table.num_rows
    nodes = SIGUO_NODES if _is_siguo(table) else NODES
    out = np.full((n, nodes), -1, np.int8)
    if "hidden_kinds" not in table.schema.names or n == 0:
        return out
    col = _column(table, "hidden_kinds")
    valid = np.asarray(col.is_valid().to_numpy(zero_copy_only=False), bool)
    if not valid.any():
        return out
    present = col.filter(pa.array(valid))
    lengths = pc.binary_length(present).to_numpy(zero_copy_only=False)
    if (lengths != nodes).any():
        raise ValueError(f"hidden_kinds: entries of {sorted(set(lengths.tolist()))} bytes, expected {nodes}")
    raw = np.frombuffer(b"".join(present.to_pylist()), np.uint8).reshape(-1, nodes)
    if (raw > 12).any():
        raise ValueError("hidden_kinds: a byte above 12 (1 + kind, kinds 0 to 11)")
    out[valid] = raw.astype(np.int8) - 1
    return out


def sample_arrays(table, decode_planes: bool = True) -> dict[str, np.ndarray]:
    """A samples table (or ``RecordBatch``) as numpy arrays, one row per sample.

    Keys (``B`` rows; the arrays of columns missing from ``table`` are left out):

    * ``obs``: ``float32 [B, C, 12, 5]`` the observation planes (``position``
      decoded by :func:`junqi.decode_codes`, identical to ``Game.observation``
      of the mover at that ply); ``codes`` ``uint8 [B, 195]`` the raw records.
      ``decode_planes=False`` leaves ``obs`` out (decode batches later).
    * ``mask``: ``uint8 [B, 3600]`` legal actions; ``policy``: ``float32 [B, 3600]``
      the bot's distribution (sums to 1 per row).
    * ``action``: ``int64 [B]`` the action played (mover's frame).
    * ``value``: ``float32 [B]`` the bot's own estimate, NaN where it gave none.
    * ``outcome``: ``float32 [B]`` the game's result for the mover (+1, 0, -1).
    * ``hidden_kinds``: ``int8 [B, 60]`` belief targets, see :func:`hidden_kind_targets`.
    * ``game_id`` ``int64``, ``ply`` ``int64``, ``seat`` ``int8`` (0 or 1, the
      file's seat less one).

    Four-player samples (a ``code`` column): ``obs`` ``float32 [B, 74, 17, 17]``
    (:func:`decode_siguo_codes`, identical to ``SiguoGame.observation`` of the
    mover), ``codes`` ``uint8 [B, 278]``, ``mask``/``policy`` ``[B, 16641]``,
    ``outcome`` the mover's team's result, ``hidden_kinds`` ``int8 [B, 129]``,
    ``seat`` 0 to 3 as stored; the rest as above.
    """
    names = set(table.schema.names)
    out: dict[str, np.ndarray] = {}
    siguo = _is_siguo(table)

    def plain(name):
        return _column(table, name).to_numpy(zero_copy_only=False)

    if siguo:
        codes = siguo_codes(table)
        out["codes"] = codes
        if decode_planes:
            out["obs"] = decode_siguo_codes(codes)
    if "position" in names:
        codes = positions(table)
        out["codes"] = codes
        if decode_planes:
            out["obs"] = decode_codes(codes)
    if "legal_actions" in names:
        out["mask"] = legal_masks(table)
        if "policy" in names:
            out["policy"] = policy_targets(table)
    if "action" in names:
        out["action"] = plain("action").astype(np.int64)
    if "value" in names:
        col = _column(table, "value")
        out["value"] = col.fill_null(float("nan")).to_numpy(zero_copy_only=False).astype(np.float32)
    if "outcome" in names:
        out["outcome"] = plain("outcome").astype(np.float32)
    if "hidden_kinds" in names or "position" in names or siguo:
        out["hidden_kinds"] = hidden_kind_targets(table)
    if "game_id" in names:
        out["game_id"] = plain("game_id").astype(np.int64)
    if "ply" in names:
        out["ply"] = plain("ply").astype(np.int64)
    if "seat" in names:
        out["seat"] = (plain("seat").astype(np.int16) - (0 if siguo else 1)).astype(np.int8)
    return out


def decode_codes(codes: np.ndarray) -> np.ndarray:
    """obs-code-v3 records ``uint8 [B, 195]`` (or older ones, ``[B, 189]`` and ``[B, 180]``)
    → planes ``float32 [B, 132, 12, 5]`` (the Rust decoder)."""
    codes = upgrade_codes(codes)
    if codes.ndim != 2 or codes.shape[1] != CODE_BYTES:
        raise ValueError(f"codes: expected [B, {CODE_BYTES}] bytes, got shape {codes.shape}")
    return junqi.decode_codes(codes)


# The numpy version of the decoder (scripts/decode_position.py, vectorised):
# the reference the Rust `decode_codes` is checked against.
_ARMY = np.array([1, 1, 2, 2, 2, 2, 3, 3, 3, 2, 3, 1], dtype=np.float32)
_STATIC_MASKS = (0x1445000A22800, 0x50000000000000A, 0x7E318FFF18C7E0)  # camps, headquarters, railway
_STATIC = np.array([[(m >> n) & 1 for n in range(60)] for m in _STATIC_MASKS], dtype=np.float32)


def decode_codes_numpy(codes: np.ndarray) -> np.ndarray:
    """The same as :func:`decode_codes` in numpy alone (docs/data.md, obs-code-v3; 132 planes)."""
    codes = upgrade_codes(codes)
    if codes.ndim != 2 or codes.shape[1] != CODE_BYTES:
        raise ValueError(f"codes: expected [B, {CODE_BYTES}] bytes, got shape {codes.shape}")
    b = codes.shape[0]
    planes = np.zeros((b, OBS_CHANNELS, 60), np.float32)
    nodes = codes[:, :120].copy().view("<u2")  # [B, 60]
    cls, kinds = nodes >> 12, nodes & 0xFFF
    bits = ((kinds[:, :, None] >> np.arange(12)) & 1).astype(np.float32)  # [B, node, kind]
    planes[:, 0:12] = (bits * (cls == 1)[:, :, None]).transpose(0, 2, 1)
    planes[:, 12:24] = (bits * (cls == 2)[:, :, None]).transpose(0, 2, 1)
    planes[:, 24], planes[:, 25], planes[:, 26] = cls == 1, cls == 2, cls == 3
    counts = codes[:, 120:168].astype(np.float32).reshape(b, 4, 12)
    planes[:, 27:75] = (counts / _ARMY).reshape(b, 48, 1)
    planes[:, 75:78] = _STATIC
    planes[:, 78:80] = codes[:, 168:176].copy().view("<f4").reshape(b, 2, 1)
    flags = codes[:, 176:180].copy().view("<u4").reshape(b).astype(np.int64)
    planes[:, 80:100] = ((flags[:, None] >> np.arange(20)) & 1).reshape(b, 20, 1)
    # The last 4 actions' (from, to) nodes, 0xFF for none, then the repetitions.
    rows = np.arange(b)
    for i in range(8):
        node = codes[:, 180 + i].astype(np.int64)
        some = node != 0xFF
        planes[rows[some], 100 + i, node[some]] = 1
    planes[:, 108] = (codes[:, 188] >= 1)[:, None]
    planes[:, 109] = (codes[:, 188] >= 2)[:, None]
    # The rule options that add state, flags sharing a node with a piece, the mountains.
    planes[:, 110:114] = ((codes[:, 194:195].astype(np.int64) >> np.arange(4)) & 1).reshape(b, 4, 1)
    for i in range(2):
        node = codes[:, 189 + i].astype(np.int64)
        some = node != 0xFF
        under = 1 - ((codes[:, 191].astype(np.int64) >> i) & 1)
        planes[rows[some], 114 + 2 * i + under[some], node[some]] = 1
        held = codes[:, 192 + i].astype(np.int64)
        for r in np.flatnonzero(held & 0x80):
            planes[r, 119 if held[r] & 0x10 else 118, _MOUNTAIN_SIDES[i]] = 1
            planes[r, 120 + (held[r] & 0x0F), _MOUNTAIN_SIDES[i]] = 1
    return planes.reshape(b, OBS_CHANNELS, 12, 5)


# The four-player decoder (crates/junqi-siguo/src/code.rs, `SiguoCode::planes`),
# in numpy: planes on the 17 x 17 grid the board is drawn on, seat-relative.
_SIGUO_GRID = 17
_SIGUO_PLANES = 74
# Squares of a zone (rank r, file f: 5 (r - 1) + f) on the railway (ranks 2 and
# 6, files a and e from rank 2), camps and headquarters; every centre node is
# on the railway. Neither the seat nor the palace arcs change these sets.
_ZONE_RAILWAY = {5 * (r - 1) + f for r in (2, 6) for f in range(5)}
_ZONE_RAILWAY |= {5 * (r - 1) + f for r in range(2, 7) for f in (0, 4)}
_ZONE_CAMPS = {11, 13, 17, 21, 23}
_ZONE_HQ = {1, 3}


def _siguo_cell(j: int) -> int:
    """The grid cell (y * 17 + x) of node ``j`` (``Node::coords``): a zone square,
    then the middle, the four edge palaces, the four corner palaces."""
    if j < 120:
        army, sq = divmod(j, 30)
        (dx, dy), turns = (sq % 5 - 2, 9 - (sq // 5 + 1)), army
    elif j == 120:
        (dx, dy), turns = (0, 0), 0
    elif j < 125:
        (dx, dy), turns = (0, 2), j - 121
    else:
        (dx, dy), turns = (2, 2), j - 125
    for _ in range(turns):
        dx, dy = dy, -dx
    return (8 + dy) * _SIGUO_GRID + 8 + dx


_SIGUO_CELLS = np.array([_siguo_cell(j) for j in range(SIGUO_NODES)], np.int64)
_SIGUO_STATIC = np.zeros((4, _SIGUO_GRID * _SIGUO_GRID), np.float32)  # node, railway, camp, headquarters
for _j, _cell in enumerate(_SIGUO_CELLS):
    _sq = _j % 30 if _j < 120 else None
    _SIGUO_STATIC[0, _cell] = 1
    _SIGUO_STATIC[1, _cell] = _sq is None or _sq in _ZONE_RAILWAY
    _SIGUO_STATIC[2, _cell] = _sq in _ZONE_CAMPS
    _SIGUO_STATIC[3, _cell] = _sq in _ZONE_HQ


def _check_siguo_codes(codes: np.ndarray, nodes: np.ndarray, counters: np.ndarray) -> None:
    """What ``SiguoCode::from_bytes`` refuses, named by row."""
    bad = (codes[:, 0] > 3) | (codes[:, 1] > 3) | (codes[:, 2] > 15) | (counters[:, 2] == 0) | (counters[:, 3] == 0)
    army = nodes >> 12
    bad_node = (nodes != 0) & ((army == 0) | (army > 4) | ((nodes & 0xFFF) == 0))
    bad |= bad_node.any(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"codes: row {row} is not a {SIGUO_CODE_FORMAT} code (seat, army to move, ended armies, "
            "a rules counter of 0, or a node entry out of range)"
        )


def decode_siguo_codes(codes: np.ndarray) -> np.ndarray:
    """``siguo-code/1`` codes ``uint8 [B, 278]`` → planes ``float32 [B, 74, 17, 17]``: exactly
    ``SiguoCode::planes`` (and so ``SiguoGame.observation`` of the coded seat), in numpy alone.
    A code ``SiguoCode::from_bytes`` would refuse raises ``ValueError`` naming its row."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    if codes.ndim != 2 or codes.shape[1] != SIGUO_CODE_BYTES:
        raise ValueError(f"codes: expected [B, {SIGUO_CODE_BYTES}] bytes, got shape {codes.shape}")
    b = codes.shape[0]
    counters = codes[:, 4:20].copy().view("<u4").reshape(b, 4)  # quiet, ply, no_progress_plies, max_plies
    nodes = codes[:, 20:].copy().view("<u2").reshape(b, SIGUO_NODES)
    _check_siguo_codes(codes, nodes, counters)
    planes = np.zeros((b, _SIGUO_PLANES, _SIGUO_GRID * _SIGUO_GRID), np.float32)
    planes[:, 0:4] = _SIGUO_STATIC
    rows, js = np.nonzero(nodes)
    army = (nodes[rows, js] >> 12).astype(np.int64) - 1  # relative army 0-3
    cells = _SIGUO_CELLS[js]
    planes[rows, 4 + army, cells] = 1
    kinds = (nodes[rows, js][:, None] >> np.arange(12)) & 1  # [pieces, kind]
    p, k = np.nonzero(kinds)
    planes[rows[p], 8 + 12 * army[p] + k, cells[p]] = 1
    planes[np.arange(b), 56 + codes[:, 1].astype(np.int64)] = 1
    for r in range(4):
        planes[:, 60 + r] = ((codes[:, 2] >> r) & 1)[:, None]
    fractions = counters[:, 0:2].astype(np.float32) / counters[:, 2:4].astype(np.float32)
    planes[:, 64:66] = np.minimum(fractions, np.float32(1))[:, :, None]
    for i in range(8):
        planes[:, 66 + i] = ((codes[:, 3] >> i) & 1)[:, None]
    return planes.reshape(b, _SIGUO_PLANES, _SIGUO_GRID, _SIGUO_GRID)


# --------------------------------------------------------------------------
# Games


def game_rules(rules_json: str | dict) -> tuple[str, dict]:
    """A games row's ``rules`` (JSON) as ``(mode, overrides)`` for ``junqi.Game(mode, rules=overrides)``.

    Only the options that differ from the mode's preset are kept (an option
    with no meaning in a mode cannot be set there, even to its default).
    """
    rules = json.loads(rules_json) if isinstance(rules_json, str) else dict(rules_json)
    mode = rules.pop("mode")
    preset = junqi.rules_dict(mode) if hasattr(junqi, "rules_dict") else {}
    return mode, {k: v for k, v in rules.items() if k != "mode" and preset.get(k) != v}


def replay(row: dict, plies: int | None = None) -> "junqi.Game":
    """A games row (``read_games(...).to_pylist()[i]``) played again from ``start_jfen``:
    the whole game, or its first ``plies`` moves."""
    mode, overrides = game_rules(row["rules"])
    game = junqi.Game(mode, rules=overrides, jfen=row["start_jfen"])
    moves = row["moves"] if plies is None else row["moves"][:plies]
    for mv in moves:
        game.apply(mv)
    return game


def iter_replay(row: dict, plies: Iterable[int] | None = None) -> Iterator[tuple[int, "junqi.Game"]]:
    """Walk a games row from its start: yields ``(ply, game)`` before each move (and after the last)
    at the requested plies (all when ``None``). The same ``Game`` object is yielded each time;
    ``clone()`` it to keep a position."""
    mode, overrides = game_rules(row["rules"])
    game = junqi.Game(mode, rules=overrides, jfen=row["start_jfen"])
    wanted = None if plies is None else set(int(p) for p in plies)
    moves = row["moves"]
    last = len(moves) if wanted is None else min(max(wanted, default=-1), len(moves))
    for ply in range(last + 1):
        if wanted is None or ply in wanted:
            yield ply, game
        if ply < len(moves) and ply < last:
            game.apply(moves[ply])
