# Sourced by scripts/fanqi-recipe.sh and scripts/anqi-recipe.sh: what both
# recipes do before their steps, and the loop's best net they both read.

repo=$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")

# recipe_start NAME DEFAULT_SEED [OUT_DIR]: sets out (OUT_DIR, relative to
# where the script was started from; default runs/NAME), seed (SEED or the
# default), planes (PLANES: 100 or 110) and J (JUNQI_BIN, or the release
# build after scripts/setup.sh); moves to the repository root.
recipe_start() {
    out=$(realpath -m "${3:-$repo/runs/$1}")
    J=${JUNQI_BIN:+$(realpath -m "$JUNQI_BIN")}
    cd "$repo"
    seed=${SEED:-$2}
    planes=${PLANES:-110}
    case "$planes" in 100 | 110) ;; *) echo "PLANES must be 100 or 110, not $planes" >&2; exit 2 ;; esac
    if [ -z "$J" ]; then
        command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
        bash scripts/setup.sh
        cargo build --release --locked -q -p junqi
        J=${CARGO_TARGET_DIR:-target}/release/junqi
    fi
    case "$out" in *,* | *=*) echo "OUT_DIR may not contain ',' or '=' (it goes into bot specs): $out" >&2; exit 2 ;; esac
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
