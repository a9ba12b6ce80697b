#!/usr/bin/env python3
"""Count how stored games ended: one Markdown row per `games/` dataset.

    python3 scripts/game_counts.py DIR [DIR ...]

Each DIR is a run directory holding `games/*.parquet` (a `junqi selfplay`
run, a loop generation's `selfplay/`, `eval-best/` or `eval-anchor/`).
Prints, per DIR, the number of games, the results (1-0, 1/2-1/2, 0-1) and
each termination with its mean plies, then the same over all DIRs.
Needs only pyarrow.
"""

import collections
import pathlib
import sys

import pyarrow.parquet as pq


def count(dirs):
    results, ends, plies = collections.Counter(), collections.Counter(), collections.Counter()
    for d in dirs:
        shards = sorted(pathlib.Path(d).glob("games/*.parquet"))
        if not shards:
            sys.exit(f"{d}: no games/*.parquet")
        for shard in shards:
            t = pq.read_table(shard, columns=["result", "termination", "plies"]).to_pydict()
            results.update(t["result"])
            ends.update(t["termination"])
            for end, n in zip(t["termination"], t["plies"]):
                plies[end] += n
    return results, ends, plies


def row(label, counted):
    results, ends, plies = counted
    games = sum(results.values())
    res = ", ".join(f"{k}: {results[k]}" for k in ("1-0", "1/2-1/2", "0-1") if results[k])
    end = ", ".join(f"{k} {n} ({plies[k] / n:.0f} plies)" for k, n in ends.most_common())
    return f"| {label} | {games} | {res} | {end} |"


def main(argv):
    if not argv:
        sys.exit(__doc__)
    print("| games of | games | results | termination (mean plies) |\n|---|---:|---|---|")
    for d in argv:
        print(row(d, count([d])))
    if len(argv) > 1:
        print(row("all of the above", count(argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
