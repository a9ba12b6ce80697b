# Sourced by scripts/fanqi-recipe.sh and scripts/anqi-recipe.sh: what both
# recipes do before their steps, and the loop's best net they both read.

repo=$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")

# recipe_start NAME DEFAULT_SEED [OUT_DIR]: sets out (OUT_DIR, relative to
# where the script was started from; default runs/NAME), seed (SEED or the
# default), planes (PLANES: 100, 110 or 132; the rule-state planes past
# 110 are all 0 under the presets the recipes play) and J (JUNQI_BIN, or the release
# build after scripts/setup.sh); moves to the repository root.
recipe_start() {
    out=$(realpath -m "${3:-$repo/runs/$1}")
    J=${JUNQI_BIN:+$(realpath -m "$JUNQI_BIN")}
    cd "$repo"
    seed=${SEED:-$2}
    planes=${PLANES:-110}
    case "$planes" in 100 | 110 | 132) ;; *) echo "PLANES must be 100, 110 or 132, not $planes" >&2; exit 2 ;; esac
    if [ -z "$J" ]; then
        command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
        bash scripts/setup.sh
        cargo build --release --locked -q -p junqi
        J=${CARGO_TARGET_DIR:-target}/release/junqi
    fi
    case "$out" in *,* | *=* | *'|'* | *'"'*) echo "OUT_DIR may not contain ',', '=', '|' or '\"' (it goes into bot specs): $out" >&2; exit 2 ;; esac
    mkdir -p "$out"
}

# A line in OUT/recipe.log (and on the terminal) as each step starts.
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$out/recipe.log"; }

# The best net of the loop in LOOP_DIR (its file name), or fail saying there is none yet.
recipe_best_net() {
    local best
    best=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["best"] or "")' "$1/state.json")
    [ -n "$best" ] || { echo "the loop in $1 has no best net yet" >&2; exit 1; }
    echo "$best"
}

# recipe_rounds RULES NET CONFIG: ROUNDS (default 0) rounds that teach NET to
# play to win (BENCHMARKS.md, "Decisive play"): each round plays ROUND_GAMES
# (default 500) games of the net's own 128-simulation Gumbel search with
# draw=auto, then trains CONFIG (the quiet-counter value target and the
# way-back policy target) from the net's weights on them, ROUND_STEPS steps
# (default: the config's); the next round starts from that net. Sets
# rounds_net to the last net (NET itself with no rounds). Each round's two
# steps resume like the recipe's others.
recipe_rounds() {
    local rules=$1 config=$3 i
    rounds_net=$2
    for ((i = 1; i <= ${ROUNDS:-0}; i++)); do
        step "round $i/$ROUNDS: games of its own search ($rounds_net)"
        "$J" selfplay --rules "$rules" --games "${ROUND_GAMES:-500}" --samples-per-game all --shard-games 50 \
            --bot "mcts:sims=128,c=4,mix=0.5,search=gumbel,k=16,draw=auto,eval=net:$rounds_net" \
            --seed "$((seed + 100 + i))" --out "$out/round-$i/games"
        step "round $i/$ROUNDS: training ($config)"
        "$J" train --config "$config" --data "$out/round-$i/games" --out "$out/round-$i/train" \
            --set "init=$rounds_net" ${ROUND_STEPS:+--steps "$ROUND_STEPS"}
        rounds_net=$out/round-$i/train/net.safetensors
    done
}
