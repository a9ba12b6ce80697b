#!/usr/bin/env bash
# Regenerate the openings books in data/openings/ (docs/regress.md, "Openings books").
#
#   scripts/make-openings.sh [OUT_DIR]     (default: data/openings)
#
# fanqi.txt: the positions after the first PLIES (8) plies of `heuristic`
#   self-play games under the 翻棋 preset: the deal and the first flips
#   differ from line to line.
# anqi.txt: the starting positions of `heuristic` self-play games under the
#   暗棋 preset: both armies deployed by the heuristic deployer, no move made.
# One JFEN per line, GAMES (256) lines each, duplicates dropped; the games
# are seeded (SEED, 20261205), so the same junqi makes the same books.
# Settings: JUNQI [target/release/junqi, else target/debug/junqi], GAMES, PLIES, SEED.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
out=${1:-data/openings}
games=${GAMES:-256}
plies=${PLIES:-8}
seed=${SEED:-20261205}
junqi=${JUNQI:-}
if [ -z "$junqi" ]; then
    for j in target/release/junqi target/debug/junqi; do
        [ -x "$j" ] && { junqi=$j; break; }
    done
fi
[ -n "$junqi" ] || { echo "no junqi: build it (cargo build --release -p junqi) or set JUNQI" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# records MODE: the JGN records of GAMES heuristic self-play games.
records() {
    "$junqi" selfplay --rules "$1" --bots heuristic --games "$games" --seed "$seed" \
        --samples-per-game 0 --out "$tmp/$1" >/dev/null
    "$junqi" export --games "$tmp/$1" --out "$tmp/$1.jgn" >/dev/null
}

# start_and_moves N < JGN: each record's `START | first N moves` (records
# with fewer plies are skipped).
start_and_moves() {
    python3 -c '
import re, sys
n = int(sys.argv[1])
records = re.split(r"^(?=\[GameId )", sys.stdin.read(), flags=re.M)
for record in records:
    start = re.search(r"^\[Start \"([^\"]*)\"\]$", record, flags=re.M)
    text = " ".join(l for l in record.splitlines() if not l.startswith("["))
    moves = [t for t in text.split() if not re.fullmatch(r"\d+\.|1-0|0-1|1/2-1/2|\*", t)]
    if start and len(moves) >= n:
        print(start.group(1), "|", " ".join(moves[:n]))
' "$1"
}

header() {
    echo "# $1"
    echo "# Made by scripts/make-openings.sh (GAMES=$games PLIES=$plies SEED=$seed); one JFEN per line."
    echo "# junqi arena/sprt --openings FILE, or openings = \"FILE\" in a regress suite (docs/regress.md)."
}

records fanqi
{
    header "翻棋 openings: the positions after the first $plies plies of heuristic self-play."
    start_and_moves "$plies" < "$tmp/fanqi.jgn" | "$junqi" apply --rules fanqi | paste - - |
        awk -F'\t' '$2 == "result: ongoing" { print $1 }' | awk '!seen[$0]++'
} > "$out/fanqi.txt"

records anqi
{
    header "暗棋 openings: both armies as the heuristic deployer set them, no move made."
    sed -n 's/^\[Start "\(.*\)"\]$/\1/p' "$tmp/anqi.jgn" | awk '!seen[$0]++'
} > "$out/anqi.txt"

for f in "$out/fanqi.txt" "$out/anqi.txt"; do
    echo "$f: $(grep -vc '^#' "$f") openings"
done
