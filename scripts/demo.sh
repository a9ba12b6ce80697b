#!/usr/bin/env bash
# The main job on an embedded default: build `junqi`, play and draw a seeded
# random 翻棋 game, run a short greedy-vs-random self-play to Parquet (2,000
# games, 8 samples each) and check it with `junqi replay`, rate four bots in
# a short 翻棋 arena (Elo with 95% intervals), then measure playout speed
# briefly. Output goes to runs/demo-*seed<SEED> (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked -q -p junqi
J=target/release/junqi
game=$($J random-game --mode fanqi --seed "${SEED:-1}")
echo "$game" | sed -e 's/^\(moves: .\{100\}\).*/\1 …/'
start=$(echo "$game" | sed -n 's/^start: //p')
moves=$(echo "$game" | sed -n 's/^moves: //p')
final=$($J apply --position "$start" --moves "$moves" | head -n 1)
$J show --position "$final"
$J selfplay --games 2000 --bots greedy,random --swap --samples-per-game 8 --seed "${SEED:-1}" --out "runs/demo-seed${SEED:-1}"
$J replay --games "runs/demo-seed${SEED:-1}"
$J arena --bots random,greedy,heuristic,mcts:400 --games-per-pair 20 --seed "${SEED:-1}" --out "runs/demo-arena-seed${SEED:-1}"
$J bench --seconds 1
