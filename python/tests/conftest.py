"""Shared pytest fixtures for the `junqi` Python package's tests.

Run from the repository root, against the installed package (scripts/test.sh
does this):
    pip install --target .deps/junqi-python ./python
    PYTHONPATH=.deps/junqi-python:.deps/libtorch:.deps/torch-python:.deps/python python3 -m pytest python/tests -q
"""

# --- environments and datasets (test_pettingzoo.py, test_gymnasium.py, test_data.py) ---

import os
import pathlib
import subprocess

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _find_junqi_bin():
    env = os.environ.get("JUNQI_BIN")
    if env:
        return pathlib.Path(env)
    for profile in ("release", "debug"):
        path = REPO_ROOT / "target" / profile / "junqi"
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


@pytest.fixture(scope="session")
def repo_root():
    """The repository root (two levels above python/tests)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def junqi_bin():
    """The `junqi` binary: $JUNQI_BIN, else target/release/junqi, else target/debug/junqi
    (skips the test when none is built: `cargo build -p junqi`)."""
    path = _find_junqi_bin()
    if path is None:
        pytest.skip("no junqi binary (build it: cargo build -p junqi; or set JUNQI_BIN)")
    return path


def _selfplay(junqi_bin, out, *args):
    cmd = [str(junqi_bin), "selfplay", "--out", str(out), "--threads", "1", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    return out


@pytest.fixture(scope="session")
def selfplay_runs(junqi_bin, tmp_path_factory):
    """Small self-play runs written by the binary, one per mode: {mode: run dir}.

    6 games each, every ply sampled, 2 shards of 3 games (so the readers join
    shard files); 暗棋 gives `hidden_kinds`, and one 翻棋 run is `heuristic`
    against `random`.
    """
    root = tmp_path_factory.mktemp("selfplay")
    runs = {}
    for mode in ("fanqi", "anqi", "mingqi"):
        runs[mode] = _selfplay(
            junqi_bin, root / mode, "--games", "6", "--samples-per-game", "all", "--shard-games", "3",
            "--rules", mode, "--seed", "7",
        )
    runs["fanqi-heuristic"] = _selfplay(
        junqi_bin, root / "fanqi-heuristic", "--games", "4", "--samples-per-game", "5",
        "--bots", "heuristic,random", "--seed", "3",
    )
    return runs

# --- end of environments and datasets ---
