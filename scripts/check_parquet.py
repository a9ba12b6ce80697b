#!/usr/bin/env python3
"""Read a `junqi selfplay` run's two Parquet datasets with pyarrow and check them.

    python3 scripts/check_parquet.py RUN_DIR

Checks, against RUN_DIR/run.json: the schemas of games/ and samples/, the
row counts (every game id exactly once), the key-value metadata of every
shard, the rules JSON, plies = number of moves, and per sample: the
observation decodes to channels x 60 floats (planes-v1, docs/data.md), the
legal mask is 450 bytes and holds the action taken and every policy action,
the policy sums to 1, and the outcome agrees with the game's result.
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
        pa.field("observation", pa.binary(), False),
        pa.field("legal_mask", pa.binary(), False),
        pa.field("action", pa.uint16(), False),
        pa.field("policy_actions", pa.list_(pa.field("item", pa.uint16(), False)), False),
        pa.field("policy_probs", pa.list_(pa.field("item", pa.float32(), False)), False),
        pa.field("outcome", pa.int8(), False),
    ]
)
OPTIONS = [
    "rail_turns", "bomb_flies", "mine_rule", "hq_locked", "first_player", "no_progress_plies", "max_plies",
    "reveal_flag_on_commander_loss", "engineer_scout", "bomb_captures_flag", "color_rule", "attack_hidden",
    "flag_capturer",
]
TERMINATIONS = {"flag_captured", "no_movable_pieces", "no_legal_move", "quiet_plies", "max_plies", "resignation"}


def decode_planes(data: bytes) -> list:
    """planes-v1 (docs/data.md): per 12x5 plane a tag byte and a payload."""
    out, at = [], 0
    while at < len(data):
        tag = data[at]
        at += 1
        if tag == 0:
            out.extend([0.0] * 60)
        elif tag == 1:
            (v,) = struct.unpack_from("<f", data, at)
            at += 4
            out.extend([v] * 60)
        elif tag in (2, 3):
            (mask,) = struct.unpack_from("<Q", data, at)
            at += 8
            for i in range(60):
                if not mask >> i & 1:
                    out.append(0.0)
                elif tag == 2:
                    out.append(1.0)
                else:
                    out.append(struct.unpack_from("<f", data, at)[0])
                    at += 4
        elif tag == 4:
            out.extend(struct.unpack_from("<60f", data, at))
            at += 240
        else:
            raise ValueError(f"unknown plane tag {tag}")
    return out


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def main(run_dir: pathlib.Path) -> None:
    run = json.loads((run_dir / "run.json").read_text())
    config = run["config"]
    channels = config["observation"]["channels"]
    check(config["observation"]["encoding"] == "planes-v1", "unknown observation encoding")

    for sub in ("games", "samples"):
        for f in sorted((run_dir / sub).glob("shard-*.parquet")):
            meta = pq.read_metadata(f).metadata
            check(json.loads(meta[b"junqi.config"]) == config, f"{f}: config differs from run.json")
            check(int(meta[b"junqi.seed"]) == run["seed"], f"{f}: seed differs")

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
        mask = s["legal_mask"]
        check(len(mask) == 450, f"sample {i}: mask of {len(mask)} bytes")
        for a in [s["action"]] + s["policy_actions"]:
            check(mask[a // 8] >> (a % 8) & 1, f"sample {i}: action {a} not in the legal mask")
        check(abs(sum(s["policy_probs"]) - 1) < 1e-3, f"sample {i}: policy sums to {sum(s['policy_probs'])}")
        check(len(s["policy_probs"]) == len(s["policy_actions"]), f"sample {i}: policy lists differ in length")
        result = result_of[gid][0]
        want = 0 if result == "1/2-1/2" else (1 if (result == "1-0") == (s["seat"] == 1) else -1)
        check(s["outcome"] == want, f"sample {i}: outcome {s['outcome']}, result {result}")
        if i < 500:
            check(len(decode_planes(s["observation"])) == channels * 60, f"sample {i}: observation size")
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
