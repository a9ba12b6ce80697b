#!/usr/bin/env bash
# The ten-minute 翻棋 training loop on a GPU machine (written for one NVIDIA
# H200 with 16 cores, no Rust toolchain and no network), recording its
# throughput and the Elo it reaches. configs/loop/fanqi-h200.toml is the run.
#
# On the development machine, once (the CUDA build links libtorch_cuda from
# the same PyPI torch 2.11.0 that scripts/setup.sh installs):
#   cargo build --release -p junqi --features cuda --target-dir target/cuda
#   mkdir -p .h200 && cp target/cuda/release/junqi .h200/ && echo /.h200/ >> .git/info/exclude
# On the GPU machine, from the repository root (the binary carried in .h200/):
#   bash scripts/h200.sh [OUT_DIR]            # default runs/h200, or $OUT
# Without a GPU it still runs, on the CPU, for a smoke test:
#   DEVICE=cpu BENCH_SECONDS=2 JUNQI_BIN=target/release/junqi bash scripts/h200.sh /tmp/h200 \
#       --generations 2 --threads 2 --set bootstrap.games=40 --set bootstrap.steps=20 \
#       --set selfplay.games=8 --set steps_per_generation=20 --set evaluate.games=8 \
#       --set evaluate.anchor_games=8 --set evaluate.sprt.max_games=16 \
#       --set train.model.blocks=1 --set train.model.channels=16 --set train.optim.batch_size=64 \
#       --set 'evaluate.more_anchors=["random"]'
# (about three minutes on two cores).
# Extra arguments go to `junqi loop`. Written into OUT_DIR (eight files, so
# that a remote runner which returns few files returns them all): gpu.txt
# (the device), bench.txt (the net's forward passes, on CUDA in fp32, bf16
# and fp16), loop.log, summary.md, state.json, elo.svg, throughput.txt
# (positions/s per generation) and best.safetensors (the loop's best net).
# Knobs (environment): LOOP_SECONDS (default 390, so that the bench's 180 s
# and the loop fit one 10-minute call) stops the loop, which resumes if run
# again; BENCH_SECONDS (default 20) per bench measurement and
# BENCH_TIMEOUT (default 180) for the whole bench;
# LOOP_DIR (default OUT_DIR/loop) holds the loop's own directory (its data
# and every net; put it outside OUT_DIR when only OUT_DIR's files come back).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-runs/h200}}
shift || true
bin=${JUNQI_BIN:-.h200/junqi}
[ -x "$bin" ] || { echo "no junqi binary at $bin (see the top of $0)" >&2; exit 2; }
loop_dir=${LOOP_DIR:-$out/loop}
mkdir -p "$out"

# libtorch 2.11 (CUDA) from the machine's own PyTorch, when there is one.
if torch_lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null); then
    export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "no nvidia-smi"; nproc; } >"$out/gpu.txt"
# A library the binary cannot find is the usual reason CUDA is missing.
ldd "$bin" | grep -E 'torch|cuda|not found' >>"$out/gpu.txt" || true
"$bin" --version >>"$out/gpu.txt"

device=${DEVICE:-cuda}
# The net alone and in self-play: forward passes, training steps and
# self-play positions/s (32 simulations) of a fresh net of the loop's shape.
timeout "${BENCH_TIMEOUT:-180}" "$bin" bench --net random:8x96 --device "$device" --seconds "${BENCH_SECONDS:-20}" --warmup 5 \
    --sims 32 2>&1 | tee "$out/bench.txt" || true

# The loop itself, stopped at LOOP_SECONDS whatever happens (it resumes if run again).
status=0
timeout --signal=INT --kill-after=20 "${LOOP_SECONDS:-390}" "$bin" loop --config configs/loop/fanqi-h200.toml \
    --out "$loop_dir" --device "$device" "$@" 2>&1 | tee "$out/loop.log" || status=$?
for f in summary.md state.json elo.svg; do
    if [ -f "$loop_dir/$f" ]; then cp "$loop_dir/$f" "$out/$f"; fi
done
best=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["best"])' "$loop_dir/state.json" 2>/dev/null || true)
if [ -n "$best" ] && [ -f "$loop_dir/$best" ]; then cp "$loop_dir/$best" "$out/best.safetensors"; fi
python3 - "$out" <<'PY' || true
import json, sys
out = sys.argv[1]
state = json.load(open(f"{out}/state.json"))
def interval(e):
    return f"{e[0]:+.0f} [{e[1]:+.0f}, {e[2]:+.0f}]" if e else "-"
lines = ["gen  games  plies  seconds  positions/s  mean batch  train samples/s  gate (games, verdict)  Elo vs each anchor"]
for g in state["generations"]:
    secs = g.get("selfplay_seconds") or 0
    batch = g["inference_positions"] / g["inference_batches"] if g.get("inference_batches") else 0
    gate = g.get("gate")
    gate = f"{gate['games']}, {gate['verdict']}" if gate else "-"
    elos = [f"heuristic {interval(g.get('elo_vs_anchor'))}"]
    elos += [f"{m['anchor']} {interval(m.get('elo'))}" for m in g.get("elo_vs_more") or []]
    lines.append(f"{g['index']:>3}  {g.get('selfplay_games', 0):>5}  {g.get('selfplay_plies', 0):>6}  {secs:>7.1f}  "
                 f"{g.get('selfplay_plies', 0) / secs if secs else 0:>11.0f}  {batch:>10.1f}  "
                 f"{g.get('train_samples_per_s') or 0:>15.0f}  {gate:>21}  {'; '.join(elos)}")
open(f"{out}/throughput.txt", "w").write("\n".join(lines) + "\n")
PY
exit "$status"
