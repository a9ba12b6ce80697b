#!/usr/bin/env bash
# 翻棋 from nothing to a net whose search beats `heuristic` and `mcts:3200`,
# in under three hours on 2 CPU cores (BENCHMARKS.md, "翻棋 in under three
# hours"). Five steps, each resumable, so running the script again after an
# interruption (Ctrl-C, a killed machine) goes on where it stopped:
#   1. the one-hour loop (configs/loop/fanqi-1h-bilinear.toml) → its best net;
#   2. 2,000 games of that net's 128-simulation Gumbel search, every position
#      with the search's improved policy and root value;
#   3. a 4×64 net trained from scratch on them for 5,000 steps
#      (configs/train/distill-fanqi1h-q5k.toml) → OUT/train/net.safetensors;
#   4. ROUNDS rounds (default 0) that teach it to play to win, much as the
#      shipped net:fanqi was taught (four rounds past the net of step 3's
#      recipe): ROUND_GAMES (500) games of its own 128-simulation search with
#      draw=auto, then configs/train/history-fanqi-quiet-r4-return1.toml's
#      training from its weights (ROUND_STEPS, default 2,000) → OUT/round-N/;
#   5. the last net's 128-simulation search in a gauntlet against mcts:3200,
#      heuristic and the shipped net:fanqi's search at the same budget, 100
#      paired games each (OUT/arena/results.md).
# Usage: bash scripts/fanqi-recipe.sh [OUT_DIR] [LOOP ARGS...]   (default runs/fanqi-recipe)
# Extra arguments go to `junqi loop`; resume with the same arguments and
# knobs (a loop resumes only with its own config). Knobs (environment): SEED
# (default 82, the teacher games' seed), ARENA_SEED (default SEED + 1; the
# recorded gauntlet used 25), TEACHER_GAMES (default 2000), TRAIN_STEPS
# (default: the config's 5,000), ARENA_GAMES (default 100), PLANES (110,
# the default, trains a net that reads the history planes; 100 is the
# recorded run, made before them), RETURN (the
# training's data.policy_target_return, default 0; 0.75 took the plain
# policy past +100 Elo against heuristic, BENCHMARKS.md "Decisive play"),
# ROUNDS, ROUND_GAMES, ROUND_STEPS (step 4), QUIET (the training's
# data.value_target_quiet, default 0), DRAW (the teacher search's draw
# score, e.g. auto; default none), JUNQI_BIN
# (default: scripts/setup.sh, then build target/release/junqi). A smoke
# test of the whole chain in a few minutes:
#   TEACHER_GAMES=8 TRAIN_STEPS=20 ARENA_GAMES=2 bash scripts/fanqi-recipe.sh /tmp/recipe \
#       --generations 1 --set bootstrap.games=40 --set bootstrap.steps=20 --set selfplay.games=8 \
#       --set steps_per_generation=20 --set evaluate.games=8 --set evaluate.anchor_games=8
set -euo pipefail
. "$(dirname "$0")/recipe-lib.sh"
recipe_start fanqi-recipe 82 "${1:-}"
shift || true

step "1/5 the one-hour loop"
"$J" loop --config configs/loop/fanqi-1h-bilinear.toml --out "$out/loop" "$@"
best=$(recipe_best_net "$out/loop")
teacher="mcts:sims=128,c=4,mix=0.5,search=gumbel,k=16${DRAW:+,draw=$DRAW},eval=net:$out/loop/$best"

step "2/5 teacher games: $teacher"
"$J" selfplay --games "${TEACHER_GAMES:-2000}" --bots "$teacher" --samples-per-game all --shard-games 50 \
    --seed "$seed" --out "$out/teacher"

step "3/5 training"
train_args=(--set "model.in_channels=$planes")
[ -n "${QUIET:-}" ] && train_args+=(--set "data.value_target_quiet=$QUIET")
[ -n "${RETURN:-}" ] && train_args+=(--set "data.policy_target_return=$RETURN")
"$J" train --config configs/train/distill-fanqi1h-q5k.toml --data "$out/teacher" --out "$out/train" \
    ${TRAIN_STEPS:+--steps "$TRAIN_STEPS"} "${train_args[@]}"

step "4/5 rounds of its own games: ${ROUNDS:-0}"
recipe_rounds fanqi "$out/train/net.safetensors" configs/train/history-fanqi-quiet-r4-return1.toml

step "5/5 the gauntlet"
"$J" arena --rules fanqi --schedule gauntlet --games-per-pair "${ARENA_GAMES:-100}" --seed "${ARENA_SEED:-$((seed + 1))}" \
    --out "$out/arena" --bot "mcts:sims=128,c=4,mix=0.5,search=gumbel,gscale=0,eval=net:$rounds_net" \
    --bot mcts:3200 --bot heuristic --bot "mcts:sims=128,c=4,mix=0.5,search=gumbel,gscale=0,eval=net:fanqi"
step "done: $rounds_net, $out/arena/results.md"
