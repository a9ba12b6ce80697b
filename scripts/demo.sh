#!/usr/bin/env bash
# The main job on an embedded default: install what is missing
# (scripts/setup.sh, its main part only: libtorch, Python packages; no
# root, no Ray or Chromium, which only the tests need), build `junqi`, show a seeded
# 翻棋 game, then run a short training loop (configs/loop/quickstart.toml:
# rollout-search games → a small net → three generations of self-play with the
# net, training and evaluation), printing each generation's Elo against the
# greedy bot; finally rate the shipped nets in short arenas: the 翻棋 net
# (net:fanqi) alone and guiding the search, and the 暗棋 net (net:anqi, the
# 暗棋 loop's last net, with learned deployments) guiding the search against heuristic. A few
# minutes on 2 CPU cores. Output goes to runs/demo-*seed<SEED>
# (git-ignored); running it again resumes/reuses (the version in a
# directory's name changes when the quickstart config or a shipped net does).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
cargo build --release --locked -q -p junqi
J=target/release/junqi
seed=${SEED:-1}
game=$($J random-game --mode fanqi --seed "$seed")
echo "$game" | sed -e 's/^\(moves: .\{100\}\).*/\1 …/'
start=$(echo "$game" | sed -n 's/^start: //p')
$J show --position "$start"
$J loop --config configs/loop/quickstart.toml --set seed="$seed" --out "runs/demo-loop-v2-seed$seed"
$J arena --bots random,greedy,net:fanqi,mcts:sims=64,c=4,mix=0.5,search=gumbel,gscale=0,eval=net:fanqi --games-per-pair 10 --seed "$seed" \
    --out "runs/demo-net-arena-v5-seed$seed"
$J arena --rules anqi --bots heuristic,mcts:sims=64,c=4,mix=0.5,search=gumbel,gscale=0,eval=net:anqi --games-per-pair 10 \
    --seed "$seed" --out "runs/demo-anqi-arena-v4-seed$seed"
