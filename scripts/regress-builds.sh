#!/usr/bin/env bash
# Fishtest-style regression test between two builds of junqi.
#
#   scripts/regress-builds.sh BASE_REV [TEST_REV]
#
# Builds BASE_REV and TEST_REV (default: the working tree as it is, with any
# uncommitted changes) in git worktrees under target/regress-builds/, then
# runs an SPRT of the test build against the base build, each playing behind
# the engine protocol (`junqi engine --bot $BOT`), on the same seeds:
#
#   junqi sprt --test "engine:cmd=TEST/junqi engine --bot $BOT" \
#              --base "engine:cmd=BASE/junqi engine --bot $BOT" --elo0 $ELO0 --elo1 $ELO1 ...
#
# The default bounds ask "is the test build no weaker?": H0 is a regression of
# ELO0 (-20) normalized Elo, H1 no change (ELO1 = 0). Exit code 0 when H1 is
# accepted (no regression), 1 when H0 is (a regression), 3 when the test
# stopped undecided at MAX_GAMES. Re-running resumes the SPRT (same OUT).
#
# Settings (environment variables, defaults in brackets):
#   BOT [mcts]            the bot both builds play (its default budget is the build's)
#   RULES [fanqi]         rules preset or file
#   ELO0 [-20] ELO1 [0]   SPRT bounds (normalized Elo); ALPHA [0.05] BETA [0.05]
#   BATCH [64]            games per batch;  MAX_GAMES [20000];  SEED [0]
#   THREADS []            worker threads (default: all cores)
#   OPENINGS []           an openings file (one JFEN or deal seed per line)
#   FEATURES [--no-default-features]   cargo features of both builds (net
#                         bots need the default `torch` feature)
#   TEST_PATCH []         a patch applied to the test revision before building
#                         (scripts/regress-builds/half-budget.patch halves
#                         mcts's default budget: a build known to be weaker)
#   WORK [target/regress-builds]  where worktrees and builds go
#   OUT [WORK/sprt-BASE-TEST]     the SPRT's output directory
# Both revisions must have `junqi engine` (the engine protocol).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed -e 's/^# \{0,1\}//' -e '$d' >&2
    exit 2
fi
root=$(git rev-parse --show-toplevel)
cd "$root"
base_rev=$1
test_rev=${2:-}
work=${WORK:-$root/target/regress-builds}
bot=${BOT:-mcts}
rules=${RULES:-fanqi}
features=${FEATURES:---no-default-features}
patch=${TEST_PATCH:-}
if [ -n "$patch" ]; then
    patch=$(realpath "$patch")
fi
mkdir -p "$work"

# Resolve both revisions before any worktree is made.
base_id=$(git rev-parse --verify --short "$base_rev^{commit}")
if [ -n "$test_rev" ]; then
    test_id=$(git rev-parse --verify --short "$test_rev^{commit}")
else
    # The working tree's state, so that a later edit is a new test, not a
    # resume of this one with another binary.
    test_id="worktree-$( (git rev-parse HEAD; git diff HEAD; git ls-files --others --exclude-standard | xargs -r cat) | sha1sum | cut -c1-10)"
fi
label=$base_id-$test_id${patch:+-$(basename "$patch" .patch)}

# build NAME REV PATCH: build junqi from REV (empty: the working tree), with
# PATCH applied; prints the binary's path.
build() {
    local name=$1 rev=$2 with_patch=$3 src
    if [ -z "$rev" ]; then
        src=$root
    else
        src=$work/src-$name
        git worktree remove --force "$src" >/dev/null 2>&1 || rm -rf "$src"
        git worktree prune
        git worktree add --detach "$src" "$rev" >/dev/null 2>&1
        if [ -n "$with_patch" ]; then
            git -C "$src" apply "$with_patch"
        fi
    fi
    echo "building $name (${rev:-working tree}${with_patch:+ + $(basename "$with_patch")})" >&2
    # shellcheck disable=SC2086
    cargo build --release --locked -p junqi $features --manifest-path "$src/Cargo.toml" \
        --target-dir "$work/target-$name" >&2
    # One binary per build label: an SPRT resumed later finds the same builds.
    local bin=$work/bin-$label/$name
    mkdir -p "$bin"
    cp "$work/target-$name/release/junqi" "$bin/junqi"
    echo "$bin/junqi"
}

base_bin=$(build base "$base_id" "")
if [ -z "$test_rev" ] && [ -n "$patch" ]; then
    echo "TEST_PATCH needs a TEST_REV to apply to" >&2
    exit 2
fi
test_bin=$(build test "${test_rev:+$test_id}" "$patch")

out=${OUT:-$work/sprt-$label}
"$base_bin" sprt \
    --candidate "engine:cmd=$test_bin engine --bot $bot" \
    --baseline "engine:cmd=$base_bin engine --bot $bot" \
    --rules "$rules" --elo0 "${ELO0:--20}" --elo1 "${ELO1:-0}" \
    --alpha "${ALPHA:-0.05}" --beta "${BETA:-0.05}" \
    --batch-games "${BATCH:-64}" --max-games "${MAX_GAMES:-20000}" --seed "${SEED:-0}" \
    ${THREADS:+--threads "$THREADS"} ${OPENINGS:+--openings "$OPENINGS"} --out "$out"

decision=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["decision"])' "$out/result.json")
echo "result: $out/result.json ($decision)"
case $decision in
    AcceptH1) exit 0 ;;
    AcceptH0) exit 1 ;;
    *) exit 3 ;;
esac
