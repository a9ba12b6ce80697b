#!/usr/bin/env bash
# Fishtest-style regression test between two builds of junqi.
#
#   scripts/regress-builds.sh BASE_REV [TEST_REV]
#   scripts/regress-builds.sh --bins BASE_BIN TEST_BIN
#
# The first form builds BASE_REV and TEST_REV (default: the working tree as
# it is, with any uncommitted changes); the second takes two junqi binaries
# already built (no cargo at all). It then runs an SPRT of the test build
# against the base build, each playing behind the engine protocol
# (`junqi engine --bot $BOT`), on the same seeds:
#
#   junqi sprt --test "engine:cmd=TEST/junqi engine --bot $BOT" \
#              --base "engine:cmd=BASE/junqi engine --bot $BOT" --elo0 $ELO0 --elo1 $ELO1 ...
#
# The default bounds ask "is the test build no weaker?": H0 is a regression of
# ELO0 (-20) normalized Elo, H1 no change (ELO1 = 0). The exit code is the
# SPRT's own: 0 when H1 is accepted (no regression), 1 when H0 is (a
# regression), 3 when the test stopped undecided at MAX_GAMES, 2 on an error.
# Re-running resumes the SPRT (same OUT). The same binary twice
# (`--bins X X`) is an A/A test (sprt --allow-same): it should pass.
#
# Builds share one cargo target directory and one git worktree, checked out
# at each revision in turn: the dependencies are compiled once, and the
# second build recompiles only the crates that differ.
#
# Settings (environment variables, defaults in brackets):
#   BOT [mcts]            the bot both builds play (its default budget is the build's)
#   RULES [fanqi]         rules preset or file
#   ELO0 [-20] ELO1 [0]   SPRT bounds (normalized Elo); ALPHA [0.05] BETA [0.05]
#   BATCH [64]            games per batch;  MAX_GAMES [20000];  SEED [0]
#   THREADS []            worker threads (default: all cores)
#   OPENINGS []           an openings file (one JFEN or deal seed per line),
#                         e.g. data/openings/fanqi.txt for RULES=fanqi
#   JUNQI []              the junqi that runs the SPRT (default: the test
#                         build; with two revisions, the working tree's)
#   FEATURES [--no-default-features]   cargo features of the builds (net
#                         bots need the default `torch` feature)
#   TEST_PATCH []         a patch applied to the test revision before building
#                         (scripts/regress-builds/half-budget.patch halves
#                         mcts's default budget: a build known to be weaker)
#   WORK [target/regress-builds]  where the worktree, the target and the binaries go
#   OUT [WORK/sprt-BASE-TEST]     the SPRT's output directory
# Both builds must have `junqi engine` (the engine protocol); the junqi that
# runs the SPRT must give its verdict as the exit code (this script's own
# revision and later).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e 's/^# \{0,1\}//' -e '$d' >&2
    exit 2
}
root=$(git rev-parse --show-toplevel)
cd "$root"
work=${WORK:-$root/target/regress-builds}
bot=${BOT:-mcts}
rules=${RULES:-fanqi}
features=${FEATURES:---no-default-features}
patch=${TEST_PATCH:-}
mkdir -p "$work"

# cargo_build SRC: build junqi from the checkout SRC into the shared target;
# prints the binary's path there.
cargo_build() {
    # shellcheck disable=SC2086
    cargo build --release --locked -p junqi $features --manifest-path "$1/Cargo.toml" \
        --target-dir "$work/target" >&2
    echo "$work/target/release/junqi"
}

# keep NAME BIN: copy BIN to WORK/bin-LABEL/NAME/junqi (one binary per build
# label: an SPRT resumed later finds the same builds); prints the copy.
keep() {
    local dir=$work/bin-$label/$1
    mkdir -p "$dir"
    cp "$2" "$dir/junqi"
    echo "$dir/junqi"
}

# build_rev NAME REV PATCH: check the shared worktree out at REV, apply
# PATCH, build, keep the binary; prints its path.
build_rev() {
    local name=$1 rev=$2 with_patch=$3 src=$work/src
    if [ ! -e "$src/.git" ]; then
        git worktree prune
        git worktree add --detach "$src" "$rev" >/dev/null 2>&1
    fi
    # Back to a clean tree at REV; files that did not change keep their
    # times, so cargo rebuilds only the crates whose sources differ.
    git -C "$src" reset --quiet --hard
    git -C "$src" clean --quiet -fd
    git -C "$src" checkout --quiet --detach "$rev"
    if [ -n "$with_patch" ]; then
        git -C "$src" apply "$with_patch"
    fi
    echo "building $name ($rev${with_patch:+ + $(basename "$with_patch")})" >&2
    keep "$name" "$(cargo_build "$src")"
}

if [ "${1:-}" = "--bins" ]; then
    [ $# -eq 3 ] || usage
    [ -z "$patch" ] || { echo "TEST_PATCH applies to a revision, not to --bins" >&2; exit 2; }
    base_bin=$(realpath "$2")
    test_bin=$(realpath "$3")
    for b in "$base_bin" "$test_bin"; do
        [ -x "$b" ] || { echo "$b: not an executable" >&2; exit 2; }
    done
    label=bins-$(cat "$base_bin" "$test_bin" | sha1sum | cut -c1-10)
    host=${JUNQI:-$test_bin}
else
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    base_rev=$1
    test_rev=${2:-}
    if [ -n "$patch" ]; then
        patch=$(realpath "$patch")
        [ -n "$test_rev" ] || { echo "TEST_PATCH needs a TEST_REV to apply to" >&2; exit 2; }
    fi
    # Resolve both revisions before the worktree moves.
    base_id=$(git rev-parse --verify --short "$base_rev^{commit}")
    if [ -n "$test_rev" ]; then
        test_id=$(git rev-parse --verify --short "$test_rev^{commit}")
    else
        # The working tree's state, so that a later edit is a new test, not a
        # resume of this one with another binary.
        test_id="worktree-$( (git rev-parse HEAD; git diff HEAD; git ls-files --others --exclude-standard | xargs -r cat) | sha1sum | cut -c1-10)"
    fi
    label=$base_id-$test_id${patch:+-$(basename "$patch" .patch)}
    base_bin=$(build_rev base "$base_id" "")
    if [ -n "$test_rev" ]; then
        test_bin=$(build_rev test "$test_id" "$patch")
    else
        echo "building test (the working tree)" >&2
        test_bin=$(keep test "$(cargo_build "$root")")
    fi
    if [ -n "${JUNQI:-}" ]; then
        host=$JUNQI
    elif [ -z "$test_rev" ]; then
        host=$test_bin
    else
        echo "building the SPRT's host (the working tree)" >&2
        host=$(keep host "$(cargo_build "$root")")
    fi
fi

same=()
if [ "$base_bin" = "$test_bin" ]; then
    echo "the same binary twice: an A/A test" >&2
    same=(--allow-same)
fi
out=${OUT:-$work/sprt-$label}
status=0
"$host" sprt "${same[@]}" \
    --candidate "engine:cmd=$test_bin engine --bot $bot" \
    --baseline "engine:cmd=$base_bin engine --bot $bot" \
    --rules "$rules" --elo0 "${ELO0:--20}" --elo1 "${ELO1:-0}" \
    --alpha "${ALPHA:-0.05}" --beta "${BETA:-0.05}" \
    --batch-games "${BATCH:-64}" --max-games "${MAX_GAMES:-20000}" --seed "${SEED:-0}" \
    ${THREADS:+--threads "$THREADS"} ${OPENINGS:+--openings "$OPENINGS"} --out "$out" || status=$?
case $status in
    0) echo "result: $out/result.json (H1 accepted: no regression)" ;;
    1) echo "result: $out/result.json (H0 accepted: a regression)" ;;
    3) echo "result: $out/result.json (undecided at MAX_GAMES)" ;;
esac
exit "$status"
