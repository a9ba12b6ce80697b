#!/usr/bin/env bash
# Load test of `junqi serve` (BENCHMARKS.md): 50 concurrent connections on
# each request a replay viewer's page load makes, against 127.0.0.1.
#
#   bash scripts/bench_serve.sh [JUNQI_BINARY]     (needs wrk: apt-get install wrk)
#
# Makes a 1,000-game 翻棋 dataset (greedy vs random, every position
# sampled) and starts the server on a free port; then wrk, 50
# connections for 8 s (SECONDS_EACH) on each request one page load makes
# (page, script, styles, board, dataset list, game list, one game with
# its frames and samples) one after another, and prints each one's rate
# and latency percentiles; then 50 viewers loading whole pages at once
# (scripts/page_loads.py), with the page loads' time percentiles.
set -euo pipefail
cd "$(dirname "$0")/.."
junqi=${1:-target/release/junqi}
command -v wrk >/dev/null || { echo "error: wrk not found (apt-get install wrk)" >&2; exit 2; }
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
"$junqi" selfplay --games 1000 --bots greedy,random --samples-per-game all --shard-games 100 --seed 1 \
    --out "$work/runs/fanqi" >/dev/null
"$junqi" serve --addr 127.0.0.1:0 --runs "$work/runs" >"$work/log" 2>&1 &
server=$!
for _ in $(seq 50); do grep -q listening "$work/log" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$work/log")
# Warm the dataset cache (the first read of 1,000 games and of its ten
# samples shards: one game of each), then measure each request of a page
# load with 50 connections; a page load makes them in turn.
curl -sf "$url/api/games?d=0/fanqi" >/dev/null
for id in 0 100 200 300 400 500 600 700 800 900; do curl -sf "$url/api/game?d=0/fanqi&id=$id" >/dev/null; done
printf '%-28s %10s %10s %10s %10s\n' request "req/s" "p50 ms" "p90 ms" "p99 ms"
# A game: each request a game drawn at random from the 1,000 (viewers
# browsing; the first look at each game replays it, later ones are kept).
cat >"$work/games.lua" <<'LUA'
request = function()
  return wrk.format("GET", "/api/game?d=0/fanqi&id=" .. math.random(0, 999))
end
LUA
for path in / /app.js /style.css /api/board /api/datasets "/api/games?d=0/fanqi" "/api/game?d=0/fanqi&id=(random)"; do
    target=("$url$path")
    case "$path" in *random*) target=(-s "$work/games.lua" "$url/") ;; esac
    out=$(wrk -t2 -c50 -d"${SECONDS_EACH:-8}"s --latency "${target[@]}")
    ms() { # wrk prints 1.23ms, 456.78us or 1.02s
        awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.1f", n }'
    }
    p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
    p90=$(awk '$1 == "90%" { print $2 }' <<<"$out")
    p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
    rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")
    printf '%-28s %10s %10s %10s %10s\n' "$path" "$rps" "$(ms "$p50")" "$(ms "$p90")" "$(ms "$p99")"
done

# Then whole page loads: 50 viewers at once, each loading the page and its
# data and opening a random game, again and again (scripts/page_loads.py;
# its Python threads share the 2 cores with the server).
python3 scripts/page_loads.py "$url" 0/fanqi 1000 50 "${SECONDS_EACH:-8}"
