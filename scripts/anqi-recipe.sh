#!/usr/bin/env bash
# 暗棋 from nothing to a net like `net:anqi-q` (a 4×64 net with a belief head
# and learned deployments whose search beats `heuristic` and `mcts:3200`),
# the twin of scripts/fanqi-recipe.sh, in about three hours on 2 CPU cores
# (BENCHMARKS.md, "暗棋: the loop from the distilled net"; the shipped
# `net:anqi` adds one round of its own games on top: ROUNDS=1 below,
# with 600 games). Five steps, each
# resumable, so running the script again after an interruption (Ctrl-C, a
# killed machine) goes on where it stopped:
#   1. 3,000 games of the rollout search mcts:3200 (about 81 minutes);
#   2. a 4×64 net with a belief head trained from scratch on them, the value
#      half on the result and half on the teacher's root value
#      (configs/train/distill-anqi3200-q.toml, about 11 minutes) → OUT/distill;
#   3. the loop configs/loop/anqi-q.toml (85 minutes) from that net instead of
#      the shipped `net:anqi-distilled`: Gumbel self-play at 32 simulations,
#      learned deployments, an SPRT gate → its best net;
#   4. ROUNDS rounds (default 0) that teach it to play to win, much as the
#      shipped net:anqi was taught (one round past the loop's net):
#      ROUND_GAMES (500) games of its own 128-simulation search with
#      draw=auto, then configs/train/anqi-decisive-r1.toml's training from
#      its weights (ROUND_STEPS, default 2,000) → OUT/round-N/;
#   5. the last net's 128-simulation Gumbel search in a gauntlet against
#      `heuristic`, `mcts:3200` and the shipped `net:anqi`'s search at the same
#      budget, ARENA_GAMES paired games each (OUT/arena/results.md).
# Usage: bash scripts/anqi-recipe.sh [OUT_DIR] [LOOP ARGS...]   (default runs/anqi-recipe)
# Extra arguments go to `junqi loop`; resume with the same arguments and
# knobs (a loop resumes only with its own config). Knobs (environment): SEED
# (default 90, the teacher games' seed as recorded), ARENA_SEED (default
# SEED + 1), TEACHER_GAMES (default 3000), TRAIN_STEPS (default: the
# config's 2,500), ARENA_GAMES (default 100), PLANES (110, the default, makes
# the loop's nets read the history planes, widening the distilled net at
# generation 0; 100 is the recorded run, made before them), RETURN (the
# training's data.policy_target_return, default 0; 0.75 took the 翻棋 plain
# policy past +100 Elo against heuristic, BENCHMARKS.md "Decisive play"),
# ROUNDS, ROUND_GAMES, ROUND_STEPS (step 4), QUIET (the
# loop's [train.data] value_target_quiet, default 0), DRAW (the loop's
# self-play draw score, e.g. auto; default none), JUNQI_BIN (default:
# scripts/setup.sh, then build target/release/junqi). A smoke test of the
# whole chain in a few minutes:
#   TEACHER_GAMES=8 TRAIN_STEPS=20 ARENA_GAMES=2 bash scripts/anqi-recipe.sh /tmp/anqi-recipe \
#       --generations 1 --set bootstrap.games=8 --set bootstrap.steps=20 --set selfplay.games=8 \
#       --set steps_per_generation=20 --set evaluate.games=8 --set evaluate.anchor_games=8 \
#       --set 'evaluate.more_anchors=[]' --set evaluate.sprt.max_games=8
set -euo pipefail
. "$(dirname "$0")/recipe-lib.sh"
recipe_start anqi-recipe 90 "${1:-}"
shift || true
search="mcts:sims=128,c=4,mix=0.5,search=gumbel,gscale=0"

step "1/5 teacher games: mcts:3200"
"$J" selfplay --rules anqi --bots mcts:3200 --games "${TEACHER_GAMES:-3000}" --samples-per-game all \
    --shard-games 50 --seed "$seed" --out "$out/teacher"

step "2/5 the distilled net"
"$J" train --config configs/train/distill-anqi3200-q.toml --data "$out/teacher" --out "$out/distill" \
    ${TRAIN_STEPS:+--steps "$TRAIN_STEPS"}
distilled="$out/distill/net.safetensors"

step "3/5 the loop from the distilled net (planes $planes)"
loop_args=(--set "train.init=$distilled" --set "train.model.in_channels=$planes"
    --set "bootstrap.bot=mcts:sims=32,c=4,mix=0.5,search=gumbel,k=16,eval=net:$distilled")
[ -n "${QUIET:-}" ] && loop_args+=(--set "train.data.value_target_quiet=$QUIET")
[ -n "${RETURN:-}" ] && loop_args+=(--set "train.data.policy_target_return=$RETURN")
[ -n "${DRAW:-}" ] && loop_args+=(--set "selfplay.draw=\"$DRAW\"")
"$J" loop --config configs/loop/anqi-q.toml --out "$out/loop" "${loop_args[@]}" "$@"
best=$(recipe_best_net "$out/loop")

step "4/5 rounds of its own games: ${ROUNDS:-0}"
recipe_rounds anqi "$out/loop/$best" configs/train/anqi-decisive-r1.toml

step "5/5 the gauntlet"
"$J" arena --rules anqi --schedule gauntlet --games-per-pair "${ARENA_GAMES:-100}" --seed "${ARENA_SEED:-$((seed + 1))}" \
    --out "$out/arena" --bot "$search,eval=net:$rounds_net" \
    --bot heuristic --bot mcts:3200 --bot "$search,eval=net:anqi"
step "done: $rounds_net, $out/arena/results.md"
