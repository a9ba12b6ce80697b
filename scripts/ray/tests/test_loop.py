"""`junqi loop` with `selfplay.backend = "ray"`: each generation's self-play
runs as parts on the real two-node cluster, training stays in the loop's
process, and the games are the ones a local loop plays."""

import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from conftest import PKG

FAKE = os.environ.get("JUNQI_RAY_FAKE") == "1"

# A tiny loop: two generations of a few short games and a few training steps.
TINY = [
    'rules_set=["max_plies=80"]',
    "bootstrap.bot=greedy",
    "bootstrap.games=8",
    "selfplay.games=6",
    "selfplay.sims=2",
    "steps_per_generation=4",
    "evaluate.games=4",
    "evaluate.sims=2",
    "evaluate.anchor=random",
    "evaluate.anchor_games=4",
    "train.model.blocks=1",
    "train.model.channels=8",
    "train.optim.batch_size=16",
    "train.data.shuffle_buffer=500",
]


def run_loop(junqi_bin, out, extra_sets=(), env=None):
    args = [junqi_bin, "loop", "--out", str(out), "--generations", "2", "--threads", "2", "--device", "cpu"]
    for kv in [*TINY, *extra_sets]:
        args += ["--set", kv]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, f"junqi loop failed ({p.returncode}):\n{p.stderr[-4000:]}\n{p.stdout[-2000:]}"
    return p


def games(selfplay_dir):
    """Every game's id, moves and result (the bot names hold the net's path,
    relative in one loop and absolute in the other)."""
    table = pq.read_table(str(selfplay_dir / "games"))
    rows = table.select(["game_id", "moves", "result", "termination"]).to_pylist()
    return sorted((r["game_id"], r["moves"], r["result"], r["termination"]) for r in rows)


@pytest.mark.skipif(FAKE, reason="the loop needs the real junqi binary")
def test_loop_plays_its_generations_on_the_cluster(ray_cluster, junqi_bin, tmp_root):
    local = tmp_root / "loop-local"
    on_ray = tmp_root / "loop-ray"
    run_loop(junqi_bin, local)
    command = json.dumps([sys.executable, "-m", "junqi_ray"])
    env = dict(os.environ, PYTHONPATH=str(PKG) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = run_loop(
        junqi_bin,
        on_ray,
        [
            'selfplay.backend="ray"',
            f'selfplay.ray.address="{ray_cluster}"',
            # parts × cpus_per_part = the local loop's 2 threads: the same
            # shards, so training reads the same stream and gen 1 matches.
            "selfplay.ray.parts=2",
            f"selfplay.ray.command={command}",
        ],
        env,
    )
    assert "self-play on Ray" in p.stdout + p.stderr
    for g in ("gen-000", "gen-001"):
        work = on_ray / g / "selfplay-ray"
        assert (work / "config.json").is_file() and (work / "driver.log").is_file()
        assert not (work / "out").exists(), "the parts and the merged copy are removed once copied"
        assert games(on_ray / g / "selfplay") == games(local / g / "selfplay"), g
    state = json.loads((on_ray / "state.json").read_text())
    played = [gen["selfplay_games"] for gen in state["generations"]]
    assert played == [8, 6], state["generations"]
    # Generation 1 played with the best net, named by its absolute path for the workers.
    assert str(on_ray.resolve()) in state["generations"][1]["selfplay_bot"]
    # Training read the cluster's games: a net per generation.
    assert sorted(p.name for p in (on_ray / "nets").iterdir()) == ["net-000.safetensors", "net-001.safetensors"]
