#!/usr/bin/env bash
# The main job on an embedded default: build `junqi`, play a seeded random
# 翻棋 game, draw its final position, and measure playout speed briefly.
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
$J bench --seconds 1
