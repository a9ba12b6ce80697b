"""A throwaway Ray cluster of several nodes on this machine (127.0.0.1), for
the tests and the benchmark: `ray start --head` plus `ray start --address`
per extra node, each with its own CPU count.

    with local_cluster(nodes=2, cpus_per_node=1) as address:
        ...  # junqi-ray --address <address> ...

Stopping runs `ray stop --force`, which stops every Ray process of this
machine (Ray has no per-cluster stop): do not use it beside another cluster.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_exe() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "ray")
    return exe if os.access(exe, os.X_OK) else (shutil.which("ray") or "ray")


def alive_nodes(address: str) -> int:
    code = ("import ray, json; ray.init(address=%r, logging_level='ERROR'); "
            "print(json.dumps(sum(1 for n in ray.nodes() if n['Alive'])))" % address)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    lines = p.stdout.strip().splitlines()
    return int(lines[-1]) if p.returncode == 0 and lines else 0


def stop() -> None:
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    subprocess.run([_ray_exe(), "stop", "--force"], env=env, capture_output=True, timeout=120)


@contextlib.contextmanager
def local_cluster(nodes: int = 2, cpus_per_node: int = 1, timeout: float = 90):
    ray = _ray_exe()
    port = free_port()
    address = f"127.0.0.1:{port}"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus", str(cpus_per_node), "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    # Ray's socket paths must stay short (about 107 bytes): a short temp dir.
    temp = tempfile.mkdtemp(prefix="jr-", dir="/tmp")
    try:
        def start(args):
            p = subprocess.run([ray, "start", *args, *common], env=env, capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                raise RuntimeError(f"`ray start {' '.join(args)}` failed:\n{p.stderr[-3000:]}")

        start(["--head", "--port", str(port), "--include-dashboard=false", "--temp-dir", temp])
        for _ in range(nodes - 1):
            start(["--address", address])
        deadline = time.time() + timeout
        while alive_nodes(address) < nodes:
            if time.time() > deadline:
                raise RuntimeError(f"the Ray cluster did not reach {nodes} alive nodes in {timeout:.0f} s")
            time.sleep(1)
        yield address
    finally:
        stop()
        shutil.rmtree(temp, ignore_errors=True)
