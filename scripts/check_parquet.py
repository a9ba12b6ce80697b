#!/usr/bin/env python3
"""Read a `junqi selfplay` run's two Parquet datasets with pyarrow and check them.

    python3 scripts/check_parquet.py RUN_DIR

Checks, against RUN_DIR/run.json: the schemas of games/ and samples/
(samples schema version 3), the row counts (every game id exactly once),
the key-value metadata of every shard, the rules JSON, plies = number of
moves, and per sample: the position (obs-code-v3, docs/data.md) decodes to
132 planes of 60 floats, the legal actions are ascending ids that hold the
action taken, the policy has one probability per legal action and sums to
1, the value is absent or in [-1, 1], and the outcome agrees with the
game's result.

A four-player run (`junqi selfplay --siguo`, run.json format
junqi-siguo-selfplay/*) is checked the same way against its own schemas
(docs/data.md, "Four-player games" and "Four-player samples", samples
junqi-siguo-samples/1 or /2): per sample, the 278-byte siguo-code/1 code is
the mover's (its seat, the army to move, the ply) with every node entry in
range, the legal actions are ascending ids below 129 x 129 holding the
action, the policy sums to 1, the outcome is the mover's team's result, the
termination the game's, and the belief targets (/2) are 129 bytes.
Prints one line and exits 0 when all is well; raises otherwise.
Needs only pyarrow (no numpy).
"""

import json
import pathlib
import struct
import sys

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

GAMES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.uint64(), False),
        pa.field("rules", pa.string(), False),
        pa.field("seed", pa.uint64(), False),
        pa.field("start_jfen", pa.string(), False),
        pa.field("moves", pa.list_(pa.field("item", pa.string(), False)), False),
        pa.field("result", pa.string(), False),
        pa.field("termination", pa.string(), False),
        pa.field("plies", pa.uint32(), False),
        pa.field("bot_seat1", pa.string(), False),
        pa.field("bot_seat2", pa.string(), False),
        pa.field("code_version", pa.string(), False),
    ]
)
SAMPLES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.uint64(), False),
        pa.field("ply", pa.uint32(), False),
        pa.field("seat", pa.uint8(), False),
        pa.field("position", pa.binary(), False),
        pa.field("legal_actions", pa.list_(pa.field("item", pa.uint16(), False)), False),
        pa.field("policy", pa.list_(pa.field("item", pa.float32(), False)), False),
        pa.field("action", pa.uint16(), False),
        pa.field("value", pa.float32(), True),
        pa.field("outcome", pa.int8(), False),
        pa.field("hidden_kinds", pa.binary(), True),
    ]
)
ARMY = [1, 1, 2, 2, 2, 2, 3, 3, 3, 2, 3, 1]  # pieces per kind, Kind order
OPTIONS = [
    "rail_turns", "bomb_flies", "mine_rule", "hq_locked", "first_player", "no_progress_plies", "max_plies",
    "reveal_flag_on_commander_loss", "engineer_scout", "bomb_captures_flag", "color_rule", "attack_hidden",
    "flag_capturer", "flag_carry", "mountains", "hunqi",
]
TERMINATIONS = {"flag_captured", "no_movable_pieces", "no_legal_move", "quiet_plies", "max_plies", "resignation", "forfeit", "timeouts"}


def decode_position(data: bytes) -> list:
    """obs-code-v3 (docs/data.md) -> the 132 observation planes, 60 floats each."""
    assert len(data) == 195, f"a position of {len(data)} bytes"
    planes = [[0.0] * 60 for _ in range(132)]
    for node in range(60):
        (code,) = struct.unpack_from("<H", data, 2 * node)
        cls, kinds = code >> 12, code & 0xFFF
        assert code >> 14 == 0, f"node {node}: unused bits"
        base, occupancy = {1: (0, 24), 2: (12, 25), 3: (None, 26)}.get(cls, (None, None))
        for k in range(12):
            if kinds >> k & 1:
                assert base is not None, f"node {node}: kinds on an empty or face-down node"
                planes[base + k][node] = 1.0
        if occupancy is not None:
            planes[occupancy][node] = 1.0
    for g, first in enumerate((27, 39, 51, 63)):
        for k in range(12):
            n = data[120 + 12 * g + k]
            assert n <= ARMY[k], f"count {n} of kind {k}"
            planes[first + k] = [struct.unpack("<f", struct.pack("<f", n / ARMY[k]))[0]] * 60
    planes[75], planes[76], planes[77] = STATIC
    quiet, ply = struct.unpack_from("<ff", data, 168)
    assert 0 <= quiet <= 1 and 0 <= ply <= 1, "fractions out of [0, 1]"
    planes[78], planes[79] = [quiet] * 60, [ply] * 60
    (flags,) = struct.unpack_from("<I", data, 176)
    assert flags >> 20 == 0, "unused flag bits"
    for b in range(20):
        planes[80 + b] = [float(flags >> b & 1)] * 60
    # The seat's last 4 actions (from, to), newest first, 0xFF for none; then the repetitions.
    for i in range(8):
        node = data[180 + i]
        assert node == 0xFF or node < 60, f"history byte {i}: {node}"
        if node != 0xFF:
            planes[100 + i][node] = 1.0
    seen = data[188]
    assert seen <= 2, f"seen {seen} times"
    planes[108], planes[109] = [float(seen >= 1)] * 60, [float(seen >= 2)] * 60
    # The rule options with state, flags sharing a node with a piece, the mountains' pieces.
    options = data[194]
    assert options >> 4 == 0, "unused option bits"
    for b in range(4):
        planes[110 + b] = [float(options >> b & 1)] * 60
    assert data[191] >> 2 == 0, "unused carried bits"
    for i in range(2):
        node, carried = data[189 + i], data[191] >> i & 1
        assert node == 0xFF and not carried or node < 60, f"flag {i} shares node {node}"
        if node != 0xFF:
            planes[114 + 2 * i + (1 - carried)][node] = 1.0
        held = data[192 + i]
        if held:
            assert held & 0x80 and held & 0x60 == 0 and held & 0x0F < 12, f"mountain byte {held:#x}"
            for side in ((25, 26, 30, 31), (28, 29, 33, 34))[i]:
                planes[119 if held & 0x10 else 118][side] = 1.0
                planes[120 + (held & 0x0F)][side] = 1.0
    return planes


def static_planes():
    """Camps, headquarters, railway: 0/1 per node a1 = 0 ... e12 = 59."""
    camps = {"b3", "d3", "c4", "b5", "d5", "b8", "d8", "c9", "b10", "d10"}
    hq = {"b1", "d1", "b12", "d12"}
    node = lambda n: "abcde"[n % 5] + str(n // 5 + 1)
    rail_ranks = {2, 6, 7, 11}
    rail = [(n // 5 + 1) in rail_ranks or (n % 5 in (0, 4) and 2 <= n // 5 + 1 <= 11) or (n % 5 == 2 and n // 5 + 1 in (6, 7))
            for n in range(60)]
    return [[float(node(n) in camps) for n in range(60)], [float(node(n) in hq) for n in range(60)],
            [float(r) for r in rail]]


STATIC = static_planes()


def check(cond, message):
    if not cond:
        raise AssertionError(message)


SIGUO_GAMES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.uint64(), False),
        pa.field("rules", pa.string(), False),
        pa.field("seed", pa.uint64(), False),
        pa.field("start", pa.string(), False),
        pa.field("moves", pa.list_(pa.field("item", pa.string(), False)), False),
        pa.field("result", pa.string(), False),
        pa.field("termination", pa.string(), False),
        pa.field("plies", pa.uint32(), False),
    ]
    + [pa.field(f"bot_seat{s}", pa.string(), False) for s in range(4)]
    + [pa.field("code_version", pa.string(), False)]
)
_SIGUO_SAMPLES_V1 = [
    pa.field("game_id", pa.uint64(), False),
    pa.field("ply", pa.uint32(), False),
    pa.field("seat", pa.uint8(), False),
    pa.field("code", pa.binary(), False),
    pa.field("legal_actions", pa.list_(pa.field("item", pa.uint16(), False)), False),
    pa.field("policy", pa.list_(pa.field("item", pa.float32(), False)), False),
    pa.field("action", pa.uint16(), False),
    pa.field("outcome", pa.int8(), False),
    pa.field("termination", pa.string(), False),
]
#: The four-player samples schemas by their footer's junqi.format (/2 adds the belief targets).
SIGUO_SAMPLES_SCHEMAS = {
    "junqi-siguo-samples/1": pa.schema(_SIGUO_SAMPLES_V1),
    "junqi-siguo-samples/2": pa.schema(_SIGUO_SAMPLES_V1 + [pa.field("hidden_kinds", pa.binary(), True)]),
}
SIGUO_NODES = 129
SIGUO_TERMINATIONS = {"team_eliminated", "no_legal_move_anywhere", "quiet_plies", "max_plies", "forfeit"}


def check_siguo_code(code: bytes, seat: int, ply: int, i: int) -> None:
    """A siguo-code/1 code (crates/junqi-siguo/src/code.rs) of `seat` to move at `ply`."""
    check(len(code) == 20 + 2 * SIGUO_NODES, f"sample {i}: a code of {len(code)} bytes")
    check(code[0] == seat and code[1] == 0, f"sample {i}: the code is not the view of seat {seat} to move")
    check(code[2] <= 15, f"sample {i}: ended armies {code[2]}")
    quiet, code_ply, no_progress, max_plies = struct.unpack_from("<4I", code, 4)
    check(code_ply == ply and no_progress > 0 and max_plies > 0, f"sample {i}: the code's counters")
    own = 0
    for j in range(SIGUO_NODES):
        (entry,) = struct.unpack_from("<H", code, 20 + 2 * j)
        if entry:
            army, kinds = entry >> 12, entry & 0xFFF
            check(1 <= army <= 4 and kinds != 0, f"sample {i}: node {j} entry {entry:#06x}")
            own += army == 1
    check(own > 0, f"sample {i}: the mover has no piece")


def main_siguo(run_dir: pathlib.Path, run: dict) -> None:
    config = run["config"]
    formats = {}
    for sub in ("games", "samples"):
        for f in sorted((run_dir / sub).glob("shard-*.parquet")):
            meta = pq.read_metadata(f).metadata
            check(json.loads(meta[b"junqi.config"]) == config, f"{f}: config differs from run.json")
            check(int(meta[b"junqi.seed"]) == run["seed"], f"{f}: seed differs")
            fmt = meta.get(b"junqi.format", b"").decode()
            if sub == "games":
                check(fmt == "junqi-siguo-games/1", f"{f}: games format {fmt!r}")
            else:
                check(fmt in SIGUO_SAMPLES_SCHEMAS, f"{f}: samples format {fmt!r}")
                check(meta[b"junqi.obs_encoding"] == b"siguo-code/1", f"{f}: observation code")
                formats[f] = fmt

    games = ds.dataset(run_dir / "games", format="parquet").to_table()
    check(games.schema.remove_metadata() == SIGUO_GAMES_SCHEMA, f"games schema:\n{games.schema}")
    ids = games.column("game_id").to_pylist()
    check(sorted(ids) == list(range(config["games"])), "game ids are not exactly 0..games-1")
    game_of = {}
    for g in games.to_pylist():
        check(g["rules"] == config["rules"], f"game {g['game_id']}: rules differ from run.json")
        check(g["plies"] == len(g["moves"]), f"game {g['game_id']}: plies != number of moves")
        check(g["result"] in ("1-0", "0-1", "1/2-1/2"), f"game {g['game_id']}: result {g['result']}")
        check(g["termination"] in SIGUO_TERMINATIONS, f"game {g['game_id']}: termination {g['termination']}")
        game_of[g["game_id"]] = g

    per_game, rows = {}, 0
    for f, fmt in formats.items():
        table = pq.read_table(f)
        check(table.schema.remove_metadata() == SIGUO_SAMPLES_SCHEMAS[fmt], f"{f}: samples schema:\n{table.schema}")
        for s in table.to_pylist():
            i, gid, seat = rows, s["game_id"], s["seat"]
            rows += 1
            per_game[gid] = per_game.get(gid, 0) + 1
            g = game_of.get(gid)
            check(g is not None and s["ply"] < g["plies"], f"sample {i}: no such game/ply")
            check(seat in range(4), f"sample {i}: seat {seat}")
            legal = s["legal_actions"]
            check(legal and all(a < b for a, b in zip(legal, legal[1:])), f"sample {i}: legal ids")
            check(legal[-1] < SIGUO_NODES * SIGUO_NODES and s["action"] in legal, f"sample {i}: action or legal ids")
            check(len(s["policy"]) == len(legal), f"sample {i}: {len(s['policy'])} policy values, {len(legal)} actions")
            check(abs(sum(s["policy"]) - 1) < 1e-3, f"sample {i}: policy sums to {sum(s['policy'])}")
            want = 0 if g["result"] == "1/2-1/2" else (1 if (g["result"] == "1-0") == (seat % 2 == 0) else -1)
            check(s["outcome"] == want, f"sample {i}: outcome {s['outcome']}, result {g['result']}, seat {seat}")
            check(s["termination"] == g["termination"], f"sample {i}: termination differs from the game's")
            hidden = s.get("hidden_kinds")
            check(hidden is None or (len(hidden) == SIGUO_NODES and max(hidden) <= 12), f"sample {i}: hidden_kinds")
            check_siguo_code(s["code"], seat, s["ply"], i)
    k = config["samples_per_game"]
    for gid, g in game_of.items():
        n = per_game.get(gid, 0)
        expected = g["plies"] if k == "all" else min(k, g["plies"])
        check(n == expected, f"game {gid}: {n} samples, expected {expected}")
    print(
        f"python check (pyarrow {pa.__version__}): four-player games/ {games.num_rows} rows, samples/ {rows} rows "
        f"({', '.join(sorted(set(formats.values())))}): schemas, counts, metadata and contents OK"
    )


def main(run_dir: pathlib.Path) -> None:
    run = json.loads((run_dir / "run.json").read_text())
    if str(run.get("format", "")).startswith("junqi-siguo-selfplay/"):
        return main_siguo(run_dir, run)
    config = run["config"]
    channels = config["observation"]["channels"]
    check(config["observation"]["encoding"] == "obs-code-v3", "unknown position encoding")
    check(channels == 132, f"{channels} planes")

    for sub in ("games", "samples"):
        for f in sorted((run_dir / sub).glob("shard-*.parquet")):
            meta = pq.read_metadata(f).metadata
            check(json.loads(meta[b"junqi.config"]) == config, f"{f}: config differs from run.json")
            check(int(meta[b"junqi.seed"]) == run["seed"], f"{f}: seed differs")
            check(meta[b"junqi.samples_schema"] == b"3", f"{f}: samples schema version")
            check(meta[b"junqi.obs_encoding"] == b"obs-code-v3", f"{f}: position encoding")

    games = ds.dataset(run_dir / "games", format="parquet").to_table()
    samples = ds.dataset(run_dir / "samples", format="parquet").to_table()
    check(games.schema.remove_metadata() == GAMES_SCHEMA, f"games schema:\n{games.schema}")
    check(samples.schema.remove_metadata() == SAMPLES_SCHEMA, f"samples schema:\n{samples.schema}")

    ids = games.column("game_id").to_pylist()
    check(sorted(ids) == list(range(config["games"])), "game ids are not exactly 0..games-1")
    result_of = {}
    for g in games.to_pylist():
        rules = json.loads(g["rules"])
        check(rules == config["rules"], f"game {g['game_id']}: rules differ from run.json")
        check(all(o in rules for o in OPTIONS) and "mode" in rules, "rules JSON lacks an option")
        check(g["plies"] == len(g["moves"]), f"game {g['game_id']}: plies != number of moves")
        check(g["result"] in ("1-0", "0-1", "1/2-1/2"), f"game {g['game_id']}: result {g['result']}")
        check(g["termination"] in TERMINATIONS, f"game {g['game_id']}: termination {g['termination']}")
        check(g["start_jfen"].split(" ")[1] == rules["mode"], "start JFEN of another mode")
        result_of[g["game_id"]] = (g["result"], g["plies"])

    per_game = {}
    k = config["samples_per_game"]
    for i, s in enumerate(samples.to_pylist()):
        gid = s["game_id"]
        per_game[gid] = per_game.get(gid, 0) + 1
        check(gid in result_of and s["ply"] < result_of[gid][1], f"sample {i}: no such game/ply")
        check(s["seat"] in (1, 2), f"sample {i}: seat {s['seat']}")
        legal = s["legal_actions"]
        check(all(a < b for a, b in zip(legal, legal[1:])) and legal[-1] < 3600, f"sample {i}: legal ids")
        check(s["action"] in legal, f"sample {i}: action {s['action']} is not legal")
        check(len(s["policy"]) == len(legal), f"sample {i}: {len(s['policy'])} policy values, {len(legal)} actions")
        check(abs(sum(s["policy"]) - 1) < 1e-3, f"sample {i}: policy sums to {sum(s['policy'])}")
        check(s["value"] is None or -1 <= s["value"] <= 1, f"sample {i}: value {s['value']}")
        hidden = s["hidden_kinds"]
        check(
            hidden is None or (config["rules"]["mode"] == "anqi" and len(hidden) == 60 and max(hidden) <= 12),
            f"sample {i}: hidden_kinds",
        )
        result = result_of[gid][0]
        want = 0 if result == "1/2-1/2" else (1 if (result == "1-0") == (s["seat"] == 1) else -1)
        check(s["outcome"] == want, f"sample {i}: outcome {s['outcome']}, result {result}")
        if i < 500:
            planes = decode_position(s["position"])
            check(len(planes) == channels and all(len(p) == 60 for p in planes), f"sample {i}: planes")
            check(planes[82][0] == float(s["seat"] == 2), f"sample {i}: seat_two plane disagrees with the seat")
    for gid, (_, plies) in result_of.items():
        n = per_game.get(gid, 0)
        expected = plies if k == "all" else min(k, plies)
        check(n == expected, f"game {gid}: {n} samples, expected {expected}")

    print(
        f"python check (pyarrow {pa.__version__}): games/ {games.num_rows} rows, samples/ {samples.num_rows} rows: "
        "schemas, counts, metadata and contents OK"
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_parquet.py RUN_DIR")
    main(pathlib.Path(sys.argv[1]))
