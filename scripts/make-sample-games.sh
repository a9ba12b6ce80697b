#!/usr/bin/env bash
# Remake the sample games that `junqi serve` shows when no --runs directory
# has a dataset (data/sample-games/, also compiled into the binary): four games
# of each mode between a small search and the heuristic bot, with the
# search's policy and value at every ply. Seeded, so a rerun writes the
# same games; only run.json's build stamp differs. (Not data/samples: a
# folder named `samples` holds a dataset's samples shards, and the
# server's dataset search skips it.)
#
#   bash scripts/make-sample-games.sh [path/to/junqi]
set -euo pipefail
cd "$(dirname "$0")/.."
junqi=${1:-target/debug/junqi}
[ -x "$junqi" ] || { echo "error: $junqi is not built (cargo build -p junqi)" >&2; exit 1; }
rm -rf data/sample-games
for mode in fanqi anqi mingqi; do
    "$junqi" selfplay --rules "$mode" --games 4 --bots mcts:64,heuristic --samples-per-game all \
        --seed 1 --out "data/sample-games/$mode"
    # The run's lock file is for writers only.
    rm -f "data/sample-games/$mode/.lock"
done
du -sh data/sample-games
