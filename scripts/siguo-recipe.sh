#!/usr/bin/env bash
# 四国暗棋 (the four-player game) from nothing to a net like `net:siguo`, and
# the measurements BENCHMARKS.md reports for it ("四国: the loop from
# nothing"). Three steps, each resumable, so running the script again after
# an interruption (Ctrl-C, a killed machine) goes on where it stopped:
#   1. the loop configs/loop/siguo.toml: 1,000 games of `heuristic` against
#      itself teach the first net (a 2×32 net with a belief head and learned
#      deployments); then generations of its own Gumbel search at 16
#      simulations, an SPRT gate, ratings against `heuristic` and the rollout
#      search `mcts` (200 simulations), until the config's 150 minutes;
#   2. the DAgger round (data/nets/siguo/plain-rounds/README.md): the loop's
#      best net plays DAGGER_GAMES games (default 1,000; 0 skips the step)
#      against `random` and as many against `heuristic`; `junqi reanalyse`
#      relabels its team's quiet positions (quiet counter 12 or more) with
#      the choice of DAGGER_BOT (default `mcts`, the rollout search) and
#      keeps its own samples below; `junqi train` fits the policy to both
#      runs (configs/train/siguo-dagger.toml, DAGGER_STEPS steps, default
#      the config's 1,500), starting from the loop's net;
#   3. that net (the loop's, if step 2 is skipped) in paired four-player
#      arenas on a fresh seed (ARENA_SEED), ARENA_GAMES games each
#      (OUT/arena-TAG-*/results.md): its plain policy against `random` and
#      `greedy`; its search (SEARCH_SIMS simulations, default 64; SEARCH_K
#      actions considered at the root, default 8; SEARCH_MIX, the rollout's
#      share of a leaf's value, unset by default: the net's value alone)
#      against `heuristic` and `mcts`; and mixed teams against two
#      `heuristic`s on the same deals: the net's search allied with
#      `heuristic`, once moving first of its team and once second (beside
#      the search on both armies, above).
# Usage: bash scripts/siguo-recipe.sh [OUT_DIR] [LOOP ARGS...]   (default runs/siguo-recipe)
# Extra arguments go to `junqi loop`; resume with the same arguments and
# knobs (a loop resumes only with its own config, and the round's self-play
# and reanalysis only with their own; DAGGER_STEPS may grow). Knobs (environment): ARENA_SEED (default
# 4401), ARENA_GAMES (default 200), SEARCH_SIMS (64), SEARCH_K (8),
# SEARCH_MIX (unset), DAGGER_GAMES (1000), DAGGER_BOT (mcts), DAGGER_STEPS
# (the config's), JUNQI_BIN (default: scripts/setup.sh, then build
# target/release/junqi). BENCHMARKS.md's mixed-leaf search is SEARCH_SIMS=512
# SEARCH_K=16 SEARCH_MIX=0.5 (about 0.3 s a move; its arenas take some
# 30 minutes each on 2 cores, the defaults' a few). A smoke test of the
# whole chain in a few minutes:
#   ARENA_GAMES=4 SEARCH_SIMS=4 DAGGER_GAMES=4 DAGGER_BOT=greedy DAGGER_STEPS=4 \
#       bash scripts/siguo-recipe.sh /tmp/siguo-recipe --generations 2 \
#       --set bootstrap.games=20 --set bootstrap.steps=20 --set selfplay.games=4 --set selfplay.sims=4 \
#       --set steps_per_generation=20 --set evaluate.games=4 --set evaluate.sims=4 \
#       --set evaluate.anchor_games=4 --set 'evaluate.more_anchors=[]' --set evaluate.sprt.max_games=8
set -euo pipefail
. "$(dirname "$0")/recipe-lib.sh"
recipe_start siguo-recipe 44 "${1:-}"
shift || true

step "1/3 the loop (configs/loop/siguo.toml)"
"$J" loop --config configs/loop/siguo.toml --out "$out/loop" "$@"
net="$out/loop/$(recipe_best_net "$out/loop")"
# Each arena's folder names the net (a longer loop may have another best net).
tag=$(basename "$net" .safetensors)

if [ "${DAGGER_GAMES:-1000}" != 0 ]; then
    dagger=$out/dagger-$tag
    # Its own games against each opponent (deals far from each other's and
    # the arenas'), relabelled from quiet 12 on.
    for opponent in random heuristic; do
        step "2/3 the DAgger round: $net against $opponent"
        case $opponent in random) offset=7000 ;; *) offset=9000 ;; esac
        "$J" selfplay --siguo --rules anqi --bots "net:path=$net,$opponent" --games "${DAGGER_GAMES:-1000}" \
            --seed $((seed + offset)) --out "$dagger/$opponent"
        "$J" reanalyse --data "$dagger/$opponent" --bot "${DAGGER_BOT:-mcts}" --seats a --min-quiet 12 --one-hot \
            --keep-stored --seed $((seed + offset + 1)) --out "$dagger/$opponent-relabelled"
    done
    step "2/3 the DAgger round: training (configs/train/siguo-dagger.toml)"
    "$J" train --config configs/train/siguo-dagger.toml --data "$dagger/random-relabelled" \
        --data "$dagger/heuristic-relabelled" --out "$dagger/train" --set "init=$net" ${DAGGER_STEPS:+--steps "$DAGGER_STEPS"}
    net=$dagger/train/net.safetensors
    # The arenas name the trained net's bytes: more DAGGER_STEPS later, new arenas.
    tag=$tag-dagger-$(sha256sum "$net" | cut -c1-8)
fi

step "3/3 the arenas of $net"
# `mix` only when set, so the default search keeps the name of the committed reports.
search="mcts:sims=${SEARCH_SIMS:-64},search=gumbel,k=${SEARCH_K:-8},gscale=0,${SEARCH_MIX:+mix=$SEARCH_MIX,}eval=net:path=$net"
# arena NAME TEAM_A TEAM_B: one paired four-player arena (its output in
# OUT/arena-TAG-NAME.log, its wall time in OUT/arena-TAG-NAME/seconds),
# skipped once its report is there.
arena() {
    local dir="$out/arena-$tag-$1" began
    if [ ! -f "$dir/results.md" ]; then
        rm -rf "$dir" # four-player arenas are read back when finished, not resumed
        began=$(date +%s)
        "$J" arena --siguo --rules anqi --bots "$2,$3" --games-per-pair "${ARENA_GAMES:-200}" \
            --seed "${ARENA_SEED:-4401}" --out "$dir" >"$dir.log"
        echo $(($(date +%s) - began)) >"$dir/seconds"
    fi
    echo "$1 ($(cat "$dir/seconds") s): $(sed -n 5p "$dir/results.md")"
}
arena policy-vs-random "net:path=$net" random
arena policy-vs-greedy "net:path=$net" greedy
arena search-vs-heuristic "$search" heuristic
arena search-vs-mcts "$search" mcts
arena search-allied-with-heuristic "$search|heuristic" heuristic
arena heuristic-allied-with-search "heuristic|$search" heuristic
step "done: $net, $out/arena-$tag-*/results.md"
