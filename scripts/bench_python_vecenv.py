#!/usr/bin/env python3
"""Python `junqi.VecEnv` against the Rust `VecEnv`, in the same run.

Both step N = 256 games of one mode on one thread with uniformly random legal
actions read from the mask: the Rust example `vecenv_speed` (action choice in
Rust) and a Python loop `env.step(env.sample_actions())`. The machine is
noisy, so the two alternate in short rounds and each gets the median of its
rounds. Prints one table row per mode: game-steps/s of the whole loop and
inside `step` alone, and the Python/Rust ratios. Usage:

    python3 scripts/bench_python_vecenv.py [--seconds 2] [--rounds 5] [--n 256] [--modes fanqi,anqi,mingqi]

Needs `junqi` importable (pip install ./python) and a release build of the
example (`cargo build --release -p junqi-env --example vecenv_speed`; the
script builds it when missing).
"""
import argparse
import re
import statistics
import subprocess
import time
from pathlib import Path

import junqi

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "target" / "release" / "examples" / "vecenv_speed"


def rust_rates(mode, n, seconds):
    """(whole loop, inside step) game-steps/s of the Rust example, one thread."""
    out = subprocess.run([str(EXAMPLE), mode, str(n), str(seconds), "1"], check=True, capture_output=True, text=True)
    m = re.search(r": (\d+) game-steps/s \((\d+) inside VecEnv::step\)", out.stdout)
    if not m:
        raise SystemExit(f"unexpected output of {EXAMPLE}: {out.stdout!r}")
    return float(m.group(1)), float(m.group(2))


def python_rates(mode, n, seconds):
    """(whole loop, inside step) game-steps/s of junqi.VecEnv from Python."""
    env = junqi.VecEnv(n, mode, seed=1)
    env.reset()
    steps, in_step = 0, 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = env.sample_actions()
        t = time.perf_counter()
        env.step(actions)
        in_step += time.perf_counter() - t
        steps += n
    total = time.perf_counter() - start
    return steps / total, steps / in_step


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    p.add_argument("--rounds", type=int, default=5, help="alternating Rust/Python rounds per mode")
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--modes", default="fanqi,anqi,mingqi")
    args = p.parse_args()
    if not EXAMPLE.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "junqi-env", "--example", "vecenv_speed"], cwd=ROOT, check=True)
    print(f"N = {args.n}, one thread, medians of {args.rounds} alternating rounds of {args.seconds:g} s")
    print("| mode | Rust loop | Python loop | ratio | Rust inside step | Python inside step | ratio |")
    print("|---|---|---|---|---|---|---|")
    for mode in args.modes.split(","):
        rust, python = [], []
        for _ in range(args.rounds):
            rust.append(rust_rates(mode, args.n, args.seconds))
            python.append(python_rates(mode, args.n, args.seconds))
        rust_loop, rust_step = (statistics.median(r[k] for r in rust) for k in (0, 1))
        py_loop, py_step = (statistics.median(r[k] for r in python) for k in (0, 1))
        print(
            f"| {mode} | {rust_loop:,.0f} | {py_loop:,.0f} | {py_loop / rust_loop:.0%} "
            f"| {rust_step:,.0f} | {py_step:,.0f} | {py_step / rust_step:.0%} |"
        )


if __name__ == "__main__":
    main()
