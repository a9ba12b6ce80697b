"""A stand-in for the junqi binary that follows its --part/merge contract, for
testing the Ray and storage plumbing without the real binary
(JUNQI_RAY_FAKE=1). Games are rows (game_id, seed, result) with the result a
function of (seed, game_id); shards hold --shard-games games each.

    fake selfplay --games G [--seed S] [--shard-games K] [--threads T] [--part I/N] --out DIR [...]
    fake arena --bot A --bot B ... [--games-per-pair P] [--seed S] [--part I/N] --out DIR
    fake merge --out DIR PART...
"""

import hashlib
import json
import os
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def flags(argv):
    out, multi = {}, {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("--"):
            multi.setdefault("_pos", []).append(a)
            i += 1
            continue
        if a in ("--swap", "--paired"):
            out[a[2:]] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            fail(f"{a} needs a value")
        multi.setdefault(a[2:], []).append(argv[i + 1])
        out[a[2:]] = argv[i + 1]
        i += 2
    return out, multi


def result(seed, gid):
    h = hashlib.sha256(f"{seed}:{gid}".encode()).digest()
    return ["1-0", "0-1", "1/2-1/2"][h[0] % 3]


def write_shard(d, s, ids, seed, label):
    os.makedirs(d, exist_ok=True)
    t = pa.table({"game_id": pa.array(ids, pa.uint64()),
                  "seed": pa.array([seed] * len(ids), pa.uint64()),
                  "result": [result(f"{seed}{label}", g) for g in ids]})
    pq.write_table(t, os.path.join(d, f".shard-{s:06d}.tmp"))
    os.replace(os.path.join(d, f".shard-{s:06d}.tmp"), os.path.join(d, f"shard-{s:06d}.parquet"))


def part_of(f):
    if "part" not in f:
        return None
    i, n = (int(x) for x in f["part"].split("/"))
    if not 0 <= i < n:
        fail("bad part")
    return {"index": i, "count": n}


def selfplay(argv):
    f, _ = flags(argv)
    games, seed, k = int(f["games"]), int(f.get("seed", 0)), int(f.get("shard-games", 100))
    part, out = part_of(f), f["out"]
    os.makedirs(out, exist_ok=True)
    config = {"games": games, "seed": seed, "shard_games": k, "bots": f.get("bots", "random,random")}
    meta = {"format": "fake-selfplay/1", "config": config, "code_version": "fake"}
    if part:
        meta["part"] = part
    with open(os.path.join(out, "run.json"), "w") as fh:
        json.dump(meta, fh)
    delay = float(os.environ.get("FAKE_JUNQI_SHARD_SECONDS", "0"))
    for s in range((games + k - 1) // k):
        if part and s % part["count"] != part["index"]:
            continue
        if os.path.exists(os.path.join(out, "games", f"shard-{s:06d}.parquet")):
            continue
        time.sleep(delay)
        write_shard(os.path.join(out, "games"), s, list(range(s * k, min(games, (s + 1) * k))), seed, "")
    print(f"played part {part}")


def arena(argv):
    f, m = flags(argv)
    bots = m.get("bot") or f.get("bots", "").split(",")
    ppair, seed = int(f.get("games-per-pair", 100)), int(f.get("seed", 0))
    part, out = part_of(f), f["out"]
    os.makedirs(out, exist_ok=True)
    config = {"bots": bots, "games_per_pair": ppair, "seed": seed}
    meta = {"format": "fake-arena/1", "config": config, "code_version": "fake"}
    if part:
        meta["part"] = part
    with open(os.path.join(out, "arena.json"), "w") as fh:
        json.dump(meta, fh)
    pairs = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1:]]
    for n, (a, b) in enumerate(pairs):
        if part and n % part["count"] != part["index"]:
            continue
        write_shard(os.path.join(out, "matchups", f"{n:02d}-{a}-vs-{b}", "games"), 0, list(range(ppair)), seed, a + b)
    if not part:
        report(out)


def report(out):
    rows = []
    for m in sorted(os.listdir(os.path.join(out, "matchups"))):
        t = pq.read_table(os.path.join(out, "matchups", m, "games"))
        rows.append({"matchup": m, "results": sorted(t.column("result").to_pylist())})
    with open(os.path.join(out, "results.json"), "w") as fh:
        json.dump(rows, fh, indent=1)


def merge(argv):
    f, m = flags(argv)
    out, parts = f["out"], m.get("_pos", [])
    metas = []
    for p in parts:
        name = "run.json" if os.path.exists(os.path.join(p, "run.json")) else "arena.json"
        try:
            with open(os.path.join(p, name)) as fh:
                metas.append((name, json.load(fh)))
        except OSError:
            fail(f"{p} is not a part")
    if not metas or any(md.get("part") is None for _, md in metas):
        fail("not parts")
    if len({json.dumps(md["config"], sort_keys=True) for _, md in metas}) != 1:
        fail("parts of different runs")
    n = metas[0][1]["part"]["count"]
    if sorted(md["part"]["index"] for _, md in metas) != list(range(n)):
        fail("parts missing or repeated")
    os.makedirs(out, exist_ok=True)
    for p in parts:
        for dirpath, _, files in os.walk(p):
            for fn in files:
                if not fn.endswith(".parquet"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, fn), p)
                os.makedirs(os.path.dirname(os.path.join(out, rel)), exist_ok=True)
                with open(os.path.join(dirpath, fn), "rb") as a, open(os.path.join(out, rel), "wb") as b:
                    b.write(a.read())
    name, md = metas[0]
    md = dict(md)
    md.pop("part")
    with open(os.path.join(out, name), "w") as fh:
        json.dump(md, fh)
    if name == "arena.json":
        report(out)
    print(f"merged {n} parts")


def main():
    argv = sys.argv[1:]
    if not argv:
        fail("no command")
    cmd = {"selfplay": selfplay, "arena": arena, "merge": merge}.get(argv[0])
    if cmd is None:
        fail(f"the fake has no `{argv[0]}`")
    cmd(argv[1:])


if __name__ == "__main__":
    main()
