"""junqi-ray on a real two-node Ray cluster (127.0.0.1): distributed runs must
equal one `junqi` process with the same arguments, survive killed workers,
and work against an S3-compatible object store.

    JUNQI_BIN=$PWD/target/debug/junqi .deps/ray/bin/python -m pytest scripts/ray/tests -q
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from conftest import PKG, junqi_ray

FAKE = os.environ.get("JUNQI_RAY_FAKE") == "1"

SELFPLAY = ["--games", "4000", "--bots", "random,random", "--seed", "11", "--shard-games", "100",
            "--samples-per-game", "8"]
ARENA = ["--bot", "random", "--bot", "greedy", "--bot", "heuristic", "--games-per-pair", "20", "--seed", "5"]
STUDY = ["--variant", "anqi", "--variant", "mingqi", "--bot", "random", "--games", "20", "--seed", "3"]
# A precision study: rounds of 20 games until ±250 Elo or 80 games, the
# variants needing different numbers of rounds.
PRECISION = ["--variant", "anqi", "--variant", "anqi:mine_rule=trade", "--bot", "random", "--games", "20",
             "--seed", "3", "--precision", "250", "--max-games", "80"]
# Longer parts for the kill test, so that there is time to kill one midway.
KILL = ["--games", "20000", "--bots", "random,random", "--seed", "12", "--shard-games", "100",
        "--samples-per-game", "8"]

# Fields of the JSON records that may differ between a merged and a single
# run: the part, and speeds measured on the clock (arena's moves_per_s).
VOLATILE = {"part", "moves_per_s"}


def single_run(junqi_bin, command, args, out):
    """The reference: one junqi process, as many threads as the cluster's CPUs."""
    if not out.exists():
        subprocess.run([junqi_bin, *command, *args, "--threads", "2", "--out", str(out)],
                       check=True, capture_output=True, timeout=300)
    return out


class Tree:
    """A run directory, local or in an object store, read through pyarrow."""

    def __init__(self, fs, base):
        self.fs, self.base = fs, base.rstrip("/")

    @staticmethod
    def local(path):
        return Tree(pafs.LocalFileSystem(), str(path))

    def files(self):
        sel = pafs.FileSelector(self.base, recursive=True)
        out = set()
        for info in self.fs.get_file_info(sel):
            rel = info.path[len(self.base) + 1:]
            if info.type == pafs.FileType.File and not any(p.startswith((".", "_")) for p in rel.split("/")):
                out.add(rel)
        return out

    def table(self, rel):
        return pq.read_table(f"{self.base}/{rel}", filesystem=self.fs)

    def json(self, rel):
        with self.fs.open_input_stream(f"{self.base}/{rel}") as f:
            return json.loads(f.read())


def strip(obj):
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def assert_same_run(single: Tree, merged: Tree):
    """Same files; every Parquet file holds the same rows (its key-value
    metadata, with timings, may differ); the JSON records agree; the text
    reports are equal."""
    a, b = single.files(), merged.files()
    assert a == b, f"only in the single run: {sorted(a - b)[:10]}; only in the merged: {sorted(b - a)[:10]}"
    assert any(f.endswith(".parquet") for f in a)
    for rel in sorted(a):
        if rel.endswith(".parquet"):
            ta, tb = single.table(rel), merged.table(rel)
            assert ta.schema.equals(tb.schema, check_metadata=False), rel
            assert ta.equals(tb), f"{rel}: rows differ"
        elif rel.endswith(".json"):
            assert strip(single.json(rel)) == strip(merged.json(rel)), rel


def game_ids(tree: Tree, games_dir="games"):
    ids = []
    for rel in sorted(tree.files()):
        if rel.startswith(games_dir + "/") and rel.endswith(".parquet"):
            ids += tree.table(rel).column("game_id").to_pylist()
    return ids


def test_refuses_flags_the_driver_owns(junqi_bin, tmp_root):
    for extra, word in ((["--out", "x"], "--out"), (["--part", "0/2"], "--part"), (["--threads", "4"], "--threads")):
        p = junqi_ray("127.0.0.1:1", junqi_bin, "--out", str(tmp_root / "never"), "selfplay", "--",
                      "--games", "10", *extra, check=False)
        assert p.returncode == 2 and word in p.stderr, p.stderr
    p = junqi_ray("127.0.0.1:1", junqi_bin, "--out", str(tmp_root / "never"), "study", "first-move", "--",
                  "--precision", "20", "--resume-from", "t.json", check=False)
    assert p.returncode == 2 and "--resume-from" in p.stderr
    for extra, word in ((["--bot", "random", "--bot", "greedy"], "one --bot"), (["--factor", "x=1,2"], "--factor")):
        p = junqi_ray("127.0.0.1:1", junqi_bin, "--out", str(tmp_root / "never"), "study", "first-move", "--",
                      "--precision", "20", *extra, check=False)
        assert p.returncode == 2 and word in p.stderr, p.stderr
    assert not (tmp_root / "never").exists()


def test_selfplay_equals_single_run(ray_cluster, junqi_bin, tmp_root):
    out = tmp_root / "sp-dist"
    p = junqi_ray(ray_cluster, junqi_bin, "--parts", "8", "--out", str(out), "selfplay", "--", *SELFPLAY)
    parts = sorted(os.listdir(out / "parts"))
    assert parts == [f"part-{i:04d}-of-0008" for i in range(8)], parts
    for part in parts:
        assert (out / "parts" / part / "_SUCCESS").is_file()
        assert json.loads((out / "parts" / part / "run.json").read_text())["part"]["count"] == 8
    assert (out / "merged" / "_SUCCESS").is_file()
    merged = Tree.local(out / "merged")
    assert sorted(game_ids(merged)) == list(range(4000))
    assert "part" not in merged.json("run.json")
    single = single_run(junqi_bin, ["selfplay"], SELFPLAY, tmp_root / "sp-single")
    assert_same_run(Tree.local(single), merged)
    # A second run finds every part published and plays nothing.
    p = junqi_ray(ray_cluster, junqi_bin, "--parts", "8", "--out", str(out), "selfplay", "--", *SELFPLAY)
    assert "8 of 8 parts already published" in p.stderr, p.stderr
    assert_same_run(Tree.local(single), Tree.local(out / "merged"))


def test_arena_equals_single_run(ray_cluster, junqi_bin, tmp_root):
    out = tmp_root / "arena-dist"
    # A relative --out (the driver's working directory) and the binary shipped
    # through Ray's object store.
    junqi_ray(ray_cluster, junqi_bin, "--parts", "3", "--ship-binary", "--out", "arena-dist", "arena", "--", *ARENA,
              cwd=tmp_root)
    merged = Tree.local(out / "merged")
    assert "results.json" in merged.files()
    for part in os.listdir(out / "parts"):
        assert not (out / "parts" / part / "results.json").exists(), "a part wrote a report"
    single = single_run(junqi_bin, ["arena"], ARENA, tmp_root / "arena-single")
    assert_same_run(Tree.local(single), merged)


@pytest.mark.skipif(FAKE, reason="the fake binary has no study")
def test_study_equals_single_run(ray_cluster, junqi_bin, tmp_root):
    out = tmp_root / "study-dist"
    junqi_ray(ray_cluster, junqi_bin, "--parts", "2", "--out", str(out), "study", "first-move", "--", *STUDY)
    single = single_run(junqi_bin, ["study", "first-move"], STUDY, tmp_root / "study-single")
    assert_same_run(Tree.local(single), Tree.local(out / "merged"))


@pytest.mark.skipif(FAKE, reason="the fake binary has no study")
def test_precision_study_rounds_equal_single_run(ray_cluster, junqi_bin, tmp_root):
    """Rounds in sequence, each round's parts on the cluster, merged between
    rounds: the tallies and the report of one process."""
    out = tmp_root / "precision-dist"
    drv = ["--parts", "2", "--out", str(out), "study", "first-move", "--", *PRECISION]
    junqi_ray(ray_cluster, junqi_bin, *drv)
    single = single_run(junqi_bin, ["study", "first-move"], PRECISION, tmp_root / "precision-single")
    whole = json.loads((single / "tallies.json").read_text())
    rounds = sorted(os.listdir(out / "rounds"))
    assert len(rounds) == len(whole["rounds"]) > 1, rounds
    for r, name in enumerate(rounds):
        assert sorted(os.listdir(out / "rounds" / name / "parts")) == ["part-0000-of-0002", "part-0001-of-0002"]
        merged = json.loads((out / "rounds" / name / "merged" / "tallies.json").read_text())
        assert merged["rounds"] == whole["rounds"][:r + 1]
    assert (out / "merged" / "_SUCCESS").is_file()
    assert json.loads((out / "merged" / "tallies.json").read_text()) == whole
    assert (out / "merged" / "first-move.md").read_text() == (single / "first-move.md").read_text()
    # Run again: every round is merged, nothing is played.
    p = junqi_ray(ray_cluster, junqi_bin, *drv)
    assert f"round {len(rounds)} already merged" in p.stderr and "parts played" not in p.stderr, p.stderr


def _part_processes(work_dir: str):
    """(pid, ppid, the part's local --out) of the junqi processes of a run."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        argv = [a.decode(errors="replace") for a in argv if a]
        if "--part" in argv and "--out" in argv:
            out = argv[argv.index("--out") + 1]
            if out.startswith(work_dir):
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                found.append((int(pid), ppid, out))
    return found


def _shards(out: str) -> int:
    try:
        return sum(1 for n in os.listdir(os.path.join(out, "games")) if n.endswith(".parquet"))
    except OSError:
        return 0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_killed_worker_and_junqi_are_retried(ray_cluster, junqi_bin, tmp_root):
    """Kill the Ray worker running one part (a system failure), then a junqi
    process of another attempt (an application failure), each midway: Ray
    retries, and every game is there exactly once."""
    out, work = tmp_root / "kill-dist", str(tmp_root / "kill-work")
    args = KILL
    env = {}
    if FAKE:
        env = {"FAKE_JUNQI_SHARD_SECONDS": "0.03"}
    cmd = [sys.executable, "-m", "junqi_ray", "--address", ray_cluster, "--binary", junqi_bin, "--parts", "4",
           "--max-retries", "4", "--work-dir", work, "--forward-env", "FAKE_JUNQI_SHARD_SECONDS",
           "--out", str(out), "selfplay", "--", *args]
    full_env = dict(os.environ, **env)
    full_env["PYTHONPATH"] = str(PKG) + os.pathsep + full_env.get("PYTHONPATH", "")
    driver = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env)
    kills = []
    try:
        deadline = time.time() + 120
        while len(kills) < 2 and driver.poll() is None and time.time() < deadline:
            for pid, ppid, part_out in _part_processes(work):
                if pid in [k[1] for k in kills] or _shards(part_out) < 2:
                    continue
                if not kills:
                    # The Ray worker process running the task ("ray::junqi-part").
                    if not _cmdline(ppid).startswith("ray::"):
                        continue
                    os.kill(ppid, signal.SIGKILL)
                    kills.append(("worker", pid, ppid))
                else:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(("junqi", pid, ppid))
                break
            time.sleep(0.01)
        stdout, stderr = driver.communicate(timeout=240)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert [k[0] for k in kills] == ["worker", "junqi"], f"could not kill midway: {kills}\n{stderr[-3000:]}"
    assert driver.returncode == 0, stderr[-6000:]
    merged = Tree.local(out / "merged")
    ids = game_ids(merged)
    assert len(ids) == 20000 and sorted(ids) == list(range(20000)), "a game is missing or repeated"
    single = single_run(junqi_bin, ["selfplay"], args, tmp_root / "kill-single")
    assert_same_run(Tree.local(single), merged)


def test_selfplay_to_object_store(ray_cluster, junqi_bin, tmp_root, s3_server, monkeypatch):
    for k, v in s3_server["env"].items():
        monkeypatch.setenv(k, v)
    endpoint, bucket, s3 = s3_server["endpoint"], s3_server["bucket"], s3_server["client"]
    url = f"s3://{bucket}/runs/sp"
    # A part without its _SUCCESS marker (an upload cut short) counts as absent.
    s3.put_object(Bucket=bucket, Key="runs/sp/parts/part-0003-of-0008/games/shard-000003.parquet", Body=b"junk")
    drv = ["--parts", "8", "--s3-endpoint", endpoint, "--out", url, "selfplay", "--", *SELFPLAY]
    junqi_ray(ray_cluster, junqi_bin, *drv, env=s3_server["env"])
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="runs/sp/")["Contents"]}
    for i in range(8):
        assert f"runs/sp/parts/part-{i:04d}-of-0008/_SUCCESS" in keys
    assert "runs/sp/merged/_SUCCESS" in keys
    # Read it back through pyarrow from the s3:// URL (endpoint in the query).
    host = endpoint.split("://", 1)[1]
    fs, base = pafs.FileSystem.from_uri(f"{url}/merged?endpoint_override={host}&scheme=http&region=us-east-1")
    merged = Tree(fs, base)
    single = single_run(junqi_bin, ["selfplay"], SELFPLAY, tmp_root / "sp-single")
    assert_same_run(Tree.local(single), merged)
    whole = pq.read_table(f"{url}/merged/games?endpoint_override={host}&scheme=http&region=us-east-1")
    assert sorted(whole.column("game_id").to_pylist()) == list(range(4000))
    # Unmark a part: the next run plays that part alone, and merges again.
    s3.delete_object(Bucket=bucket, Key="runs/sp/parts/part-0005-of-0008/_SUCCESS")
    p = junqi_ray(ray_cluster, junqi_bin, *drv, env=s3_server["env"])
    assert "7 of 8 parts already published" in p.stderr, p.stderr
    assert_same_run(Tree.local(single), Tree(fs, base))


def test_failing_part_is_reported(ray_cluster, junqi_bin, tmp_root):
    """junqi fails in every attempt: the driver exits 1, names the part and
    shows junqi's own message; nothing is merged."""
    out = tmp_root / "fail-dist"
    bad = ["--games", "100", "--bots", "nosuchbot", "--seed", "1"] if not FAKE else ["--games", "oops"]
    p = junqi_ray(ray_cluster, junqi_bin, "--parts", "2", "--max-retries", "1", "--out", str(out),
                  "selfplay", "--", *bad, check=False)
    assert p.returncode == 1, p.stderr
    assert "failed after 1 retries" in p.stderr and "part-000" in p.stderr, p.stderr[-3000:]
    assert ("nosuchbot" if not FAKE else "oops") in p.stderr, p.stderr[-3000:]
    assert not (out / "merged").exists()
