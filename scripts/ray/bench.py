"""The cost of running self-play through Ray: games/s of one `junqi selfplay`
process with T threads against `junqi-ray selfplay` on a local cluster of T
one-CPU nodes (127.0.0.1), with the same games, seed and shards.

    .deps/ray/bin/python scripts/ray/bench.py [--binary target/release/junqi]
        [--games 40000] [--parts 8] [--nodes 2] [--repeat 1] [-- extra selfplay args]

Prints one line per measurement and a summary; the Ray figure is reported for
the whole driver (connect, play, publish, merge, publish) and for the play
phase alone (the parts, as the driver logs it). Starts its own cluster and
stops it with `ray stop --force` (every Ray process of this machine), unless
--address names a running one.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from junqi_ray.local_cluster import local_cluster  # noqa: E402


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.environ.get("JUNQI_BIN", os.path.join(HERE, "..", "..", "target", "debug", "junqi")))
    ap.add_argument("--games", type=int, default=40000)
    ap.add_argument("--shard-games", type=int, default=500)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--nodes", type=int, default=2, help="one-CPU nodes; the single run gets as many threads")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--address", default=None, help="a running cluster instead of a local one")
    a = ap.parse_args(argv)
    binary = os.path.abspath(a.binary)
    sp = ["--games", str(a.games), "--bots", "random,random", "--seed", "1", "--shard-games", str(a.shard_games),
          "--samples-per-game", "8", *extra]
    tmp = tempfile.mkdtemp(prefix="junqi-ray-bench-")
    rows = []
    try:
        for r in range(a.repeat):
            out = os.path.join(tmp, f"single-{r}")
            t = time.time()
            subprocess.run([binary, "selfplay", *sp, "--threads", str(a.nodes), "--out", out], check=True,
                           capture_output=True)
            dt = time.time() - t
            rows.append(("single", dt, None))
            print(f"single junqi selfplay, {a.nodes} threads: {dt:.2f} s, {a.games / dt:.0f} games/s", flush=True)
            shutil.rmtree(out)

        def ray_runs(address):
            for r in range(a.repeat):
                out = os.path.join(tmp, f"ray-{r}")
                env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
                t = time.time()
                p = subprocess.run([sys.executable, "-m", "junqi_ray", "--address", address, "--binary", binary,
                                    "--parts", str(a.parts), "--work-dir", os.path.join(tmp, "work"),
                                    "--out", out, "selfplay", "--", *sp],
                                   capture_output=True, text=True, env=env)
                dt = time.time() - t
                if p.returncode != 0:
                    sys.exit(f"junqi-ray failed:\n{p.stderr[-3000:]}")
                play = re.search(r"parts played in ([0-9.]+)s", p.stderr)
                merge = re.search(r"merged .* in ([0-9.]+)s", p.stderr)
                play_s = float(play.group(1)) if play else None
                rows.append(("ray", dt, play_s))
                print(f"junqi-ray, {a.nodes} nodes x 1 CPU, {a.parts} parts: {dt:.2f} s in all "
                      f"({a.games / dt:.0f} games/s); play phase {play_s:.2f} s ({a.games / play_s:.0f} games/s), "
                      f"merge+publish {float(merge.group(1)) if merge else float('nan'):.2f} s", flush=True)
                shutil.rmtree(out)

        if a.address:
            ray_runs(a.address)
        else:
            t = time.time()
            with local_cluster(nodes=a.nodes, cpus_per_node=1) as address:
                print(f"(local cluster of {a.nodes} nodes up in {time.time() - t:.1f} s)", flush=True)
                ray_runs(address)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    single = min(d for k, d, _ in rows if k == "single")
    whole = min(d for k, d, _ in rows if k == "ray")
    play = min(p for k, _, p in rows if k == "ray")
    print(f"summary: {a.games} games; single {a.games / single:.0f} games/s; junqi-ray {a.games / whole:.0f} games/s "
          f"end to end ({whole / single:.2f}x the time), play phase {a.games / play:.0f} games/s "
          f"({play / single:.2f}x)")


if __name__ == "__main__":
    main()
