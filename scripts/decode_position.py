#!/usr/bin/env python3
"""Decode the `position` column of a samples/ dataset (obs-code-v3, or the
older obs-code-v2 without the rule-state planes and obs-code-v1 also
without the history; docs/data.md)
into the observation planes a net reads, with numpy.

    import pyarrow.dataset as ds
    from decode_position import decode_positions
    table = ds.dataset("DIR/samples", format="parquet").to_table(columns=["position", "legal_actions"])
    x = decode_positions(table.column("position").to_pylist())   # float32 [N, 132, 12, 5]

Run as a script, it checks itself against planes the Rust encoder wrote
(the project's tests do this):

    python3 scripts/decode_position.py CODES.bin PLANES.bin
"""

import sys

import numpy as np

# Pieces per kind in an army, in kind order: commander, general, division,
# brigade, regiment, battalion, company, platoon, engineer, bomb, mine, flag.
ARMY = np.array([1, 1, 2, 2, 2, 2, 3, 3, 3, 2, 3, 1], dtype=np.float32)
# The static board planes as node bitmasks (a1 = bit 0 ... e12 = bit 59).
STATIC_MASKS = (0x1445000A22800, 0x50000000000000A, 0x7E318FFF18C7E0)  # camps, headquarters, railway
STATIC = np.array([[(m >> n) & 1 for n in range(60)] for m in STATIC_MASKS], dtype=np.float32)
# The side nodes of the two mountains (a6 b6 a7 b7, d6 e6 d7 e7), as the seat sees them.
MOUNTAIN_SIDES = ([25, 26, 30, 31], [28, 29, 33, 34])


CHANNELS = 132
CODE_BYTES = 195
V2_CODE_BYTES = 189
V1_CODE_BYTES = 180


def decode_position(data: bytes) -> np.ndarray:
    """One 195-byte position (or a 189-byte obs-code-v2 or 180-byte obs-code-v1 one) -> float32 [132, 12, 5]."""
    if len(data) not in (CODE_BYTES, V2_CODE_BYTES, V1_CODE_BYTES):
        raise ValueError(
            f"a position has {CODE_BYTES} bytes ({V2_CODE_BYTES} in obs-code-v2, {V1_CODE_BYTES} in obs-code-v1), "
            f"not {len(data)}"
        )
    planes = np.zeros((CHANNELS, 60), dtype=np.float32)
    nodes = np.frombuffer(data, "<u2", 60, 0)
    cls, kinds = nodes >> 12, nodes & 0xFFF
    bits = (kinds[:, None] >> np.arange(12)) & 1  # [node, kind]
    planes[0:12] = (bits * (cls == 1)[:, None]).T  # own kinds
    planes[12:24] = (bits * (cls == 2)[:, None]).T  # enemy: the kinds it may be
    planes[24], planes[25], planes[26] = cls == 1, cls == 2, cls == 3
    counts = np.frombuffer(data, np.uint8, 48, 120).astype(np.float32).reshape(4, 12)
    planes[27:75] = (counts / ARMY).reshape(48, 1)  # pool own/enemy, material own/enemy
    planes[75:78] = STATIC
    planes[78:80] = np.frombuffer(data, "<f4", 2, 168).reshape(2, 1)  # quiet, ply fractions
    (flags,) = np.frombuffer(data, "<u4", 1, 176)
    planes[80:100] = ((int(flags) >> np.arange(20)) & 1).reshape(20, 1)
    if len(data) >= V2_CODE_BYTES:
        # The last 4 actions (from, to) newest first, 0xFF for none; then the repetitions.
        for i, node in enumerate(data[180:188]):
            if node != 0xFF:
                planes[100 + i, node] = 1
        planes[108] = data[188] >= 1
        planes[109] = data[188] >= 2
    if len(data) == CODE_BYTES:
        # The rule options that add state; flags sharing a node with a piece; the mountains.
        planes[110:114] = ((data[194] >> np.arange(4)) & 1).reshape(4, 1)
        for i in range(2):
            if data[189 + i] != 0xFF:
                carried = (data[191] >> i) & 1
                planes[114 + 2 * i + (1 - carried), data[189 + i]] = 1
            held = data[192 + i]
            if held & 0x80:
                planes[119 if held & 0x10 else 118, MOUNTAIN_SIDES[i]] = 1
                planes[120 + (held & 0x0F), MOUNTAIN_SIDES[i]] = 1
    return planes.reshape(CHANNELS, 12, 5)


def decode_positions(column) -> np.ndarray:
    """A list of positions (bytes) -> float32 [N, 132, 12, 5]."""
    if not len(column):
        return np.zeros((0, CHANNELS, 12, 5), np.float32)
    return np.stack([decode_position(p) for p in column])


def legal_mask(legal_actions) -> np.ndarray:
    """One row's legal action ids -> bool [3600]."""
    m = np.zeros(3600, dtype=bool)
    m[np.asarray(legal_actions, dtype=np.int64)] = True
    return m


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: decode_position.py CODES.bin PLANES.bin")
    codes = open(sys.argv[1], "rb").read()
    want = np.fromfile(sys.argv[2], dtype="<f4").reshape(-1, CHANNELS, 12, 5)
    got = decode_positions([codes[i : i + CODE_BYTES] for i in range(0, len(codes), CODE_BYTES)])
    if got.shape != want.shape or not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        bad = np.argwhere(got != want)[:5] if got.shape == want.shape else got.shape
        sys.exit(f"decode_position.py disagrees with the Rust planes at {bad}")
    print(f"decode_position.py: {len(got)} positions decode to the Rust planes bit for bit")
