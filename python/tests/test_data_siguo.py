"""junqi.data on four-player runs (`junqi selfplay --siguo`, docs/data.md).

The decisive check: every sample's planes decoded in numpy, its legal mask,
action and outcome equal what `junqi.SiguoGame` (the Rust referee) gives when
the game is replayed from its `start` and `moves` to the sampled ply; so the
reader, the files and the Rust encoder agree. Also: `junqi-siguo-samples/1`
files (no belief targets) are read, other schemas refused by name, a
two-player shard among four-player ones refused, bad codes refused, and
scripts/check_parquet.py validates the runs.
"""

import shutil
import subprocess
import sys
import tomllib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import junqi
from junqi import data


def _selfplay(junqi_bin, out, *args):
    cmd = [str(junqi_bin), "selfplay", "--siguo", "--out", str(out), "--threads", "1", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr}"
    return out


@pytest.fixture(scope="module")
def siguo_runs(junqi_bin, tmp_path_factory):
    """Four-player runs, 4 games each in 2 shards, every ply sampled: 四国暗棋
    (greedy against random), and 双明 with two options off their defaults
    (palace arcs and clockwise turns, so rule planes are on)."""
    root = tmp_path_factory.mktemp("siguo")
    common = ["--games", "4", "--samples-per-game", "all", "--shard-games", "2", "--bots", "greedy,random"]
    return {
        "anqi": _selfplay(junqi_bin, root / "anqi", *common, "--seed", "5"),
        "shuangming": _selfplay(
            junqi_bin, root / "shuangming", *common, "--seed", "9", "--rules", "shuangming",
            "--set", "palace_arcs=true", "--set", "turn_order=clockwise",
        ),
    }


def _replayed(game_row):
    """A games row's game as a `junqi.SiguoGame` at its start, and its moves."""
    rules = tomllib.loads(game_row["rules"])
    mode = rules.pop("mode")
    rules.pop("game")
    return junqi.SiguoGame(mode, rules=rules, position=game_row["start"]), game_row["moves"]


@pytest.mark.parametrize("run", ["anqi", "shuangming"])
def test_siguo_samples_equal_replayed_games(siguo_runs, run):
    games = data.read_games(siguo_runs[run]).to_pylist()
    arrays = data.sample_arrays(data.read_samples(siguo_runs[run]))
    n = len(arrays["seat"])
    assert n == sum(g["plies"] for g in games)
    assert arrays["obs"].shape == (n, *junqi.SIGUO_OBS_SHAPE) and arrays["obs"].dtype == np.float32
    assert arrays["codes"].shape == (n, data.SIGUO_CODE_BYTES)
    assert arrays["mask"].shape == (n, junqi.SIGUO_ACTIONS) == arrays["policy"].shape
    assert arrays["hidden_kinds"].shape == (n, 129)
    # policy targets: distributions over the legal actions, the action among them
    np.testing.assert_allclose(arrays["policy"].sum(axis=1), 1, atol=1e-5)
    assert (arrays["policy"][arrays["mask"] == 0] == 0).all()
    assert (arrays["mask"][np.arange(n), arrays["action"]] == 1).all()
    row = {(int(g), int(p)): i for i, (g, p) in enumerate(zip(arrays["game_id"], arrays["ply"]))}
    seats = set()
    for g in games:
        game, moves = _replayed(g)
        for ply, move in enumerate(moves):
            i = row[(g["game_id"], ply)]
            seat = game.current_player()
            seats.add(seat)
            assert arrays["seat"][i] == seat
            where = f"game {g['game_id']} ply {ply}"
            np.testing.assert_array_equal(arrays["obs"][i], game.observation(seat), err_msg=where)
            np.testing.assert_array_equal(arrays["mask"][i], game.action_mask(seat))
            assert arrays["action"][i] == game.move_to_action(move)
            game.apply(move)
        assert game.is_terminal()
        team = game.team_returns()
        for ply in range(len(moves)):
            i = row[(g["game_id"], ply)]
            assert arrays["outcome"][i] == team[arrays["seat"][i] % 2]
    assert seats == {0, 1, 2, 3}
    # Some of the 74 planes are on for a rule off its default exactly in the 双明 run.
    assert arrays["obs"][:, 66:74].any() == (run == "shuangming")


def test_belief_targets_are_hidden_kinds_the_mover_could_not_tell(siguo_runs):
    """`hidden_kinds` (junqi-siguo-samples/2): each target is on a piece of an army the
    mover does not see, whose kind the observation leaves open and includes."""
    samples = data.read_samples(siguo_runs["anqi"])
    arrays = data.sample_arrays(samples)
    targets = arrays["hidden_kinds"]
    # The fixture's runs come from this tree's binary, which writes /2: a /1 run here
    # means a stale binary, and the test would check nothing, so it fails instead.
    fmt = data.shard_metadata(data.shard_files(siguo_runs["anqi"])[0])["junqi.format"]
    assert fmt == "junqi-siguo-samples/2", f"the run was written by a binary without belief targets ({fmt})"
    assert targets.min() >= -1 and targets.max() <= 11 and (targets >= 0).any()
    obs = arrays["obs"].reshape(len(targets), 74, -1)
    cells = data._SIGUO_CELLS
    rows, nodes = np.nonzero(targets >= 0)
    for i, j in zip(rows, nodes):
        kind, cell = int(targets[i, j]), cells[j]
        army = int(np.argmax(obs[i, 4:8, cell]))
        assert obs[i, 4 + army, cell] == 1 and army != 0, (i, j)
        possible = obs[i, 8 + 12 * army : 20 + 12 * army, cell]
        assert possible[kind] == 1 and possible.sum() > 1, (i, j, possible)


def _rewrite_samples(run, dest, change):
    """A copy of `run` whose samples shards are `change(table, metadata)` (checksum records dropped)."""
    shutil.copytree(run, dest)
    for path in sorted((dest / "samples").glob("shard-*.parquet")):
        table = pq.read_table(path)
        meta = {k: v for k, v in data.shard_metadata(path).items() if k != "ARROW:schema"}
        table, meta = change(table, meta)
        pq.write_table(table.replace_schema_metadata(meta), path)
        (path.parent / f".{path.name}.crc32c").unlink(missing_ok=True)
    return dest


def test_version_1_samples_are_read_without_belief_targets(siguo_runs, tmp_path):
    run = siguo_runs["anqi"]

    def as_v1(table, meta):
        if "hidden_kinds" in table.schema.names:
            table = table.drop_columns(["hidden_kinds"])
        return table, {**meta, "junqi.format": "junqi-siguo-samples/1"}

    old = _rewrite_samples(run, tmp_path / "v1", as_v1)
    got, want = data.sample_arrays(data.read_samples(old)), data.sample_arrays(data.read_samples(run))
    for key in ("obs", "mask", "policy", "action", "outcome", "seat", "ply"):
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    assert (got["hidden_kinds"] == -1).all()


def test_other_schemas_and_mixed_runs_are_refused_by_name(siguo_runs, selfplay_runs, tmp_path):
    run = siguo_runs["anqi"]
    future = _rewrite_samples(run, tmp_path / "v9", lambda t, m: (t, {**m, "junqi.format": "junqi-siguo-samples/9"}))
    with pytest.raises(ValueError, match="samples of format junqi-siguo-samples/9; this reader reads"):
        data.read_samples(future)
    other_code = _rewrite_samples(
        run, tmp_path / "code2", lambda t, m: (t, {**m, "junqi.obs_encoding": "siguo-code/2"})
    )
    with pytest.raises(ValueError, match="siguo-code/2"):
        data.read_samples(other_code)
    # A two-player shard (and its games file) among the four-player ones.
    mixed = tmp_path / "mixed"
    shutil.copytree(run, mixed)
    for sub in ("games", "samples"):
        shutil.copy(selfplay_runs["anqi"] / sub / "shard-000000.parquet", mixed / sub / "shard-000009.parquet")
    with pytest.raises(ValueError, match="two-player and four-player samples mixed"):
        data.read_samples(mixed)


def test_bad_codes_are_refused_naming_the_row(siguo_runs):
    codes = data.sample_arrays(data.read_samples(siguo_runs["anqi"]), decode_planes=False)["codes"][:4].copy()
    assert data.decode_siguo_codes(codes).shape == (4, 74, 17, 17)
    with pytest.raises(ValueError, match=r"expected \[B, 278\]"):
        data.decode_siguo_codes(codes[:, :-1])
    for byte, value in ((0, 4), (1, 7), (12, 0), (20 + 2 * 10 + 1, 0x50)):
        bad = codes.copy()
        bad[2, byte] = value
        with pytest.raises(ValueError, match="row 2 is not a siguo-code/1 code"):
            data.decode_siguo_codes(bad)
    table = pa.table({"code": pa.array([bytes(codes[0])]), "legal_actions": pa.array([[16641]], pa.list_(pa.uint16()))})
    with pytest.raises(ValueError, match="outside the 16641 actions"):
        data.legal_masks(table)


def test_check_parquet_validates_four_player_runs(siguo_runs, repo_root, tmp_path):
    script = repo_root / "scripts" / "check_parquet.py"
    for run in siguo_runs.values():
        proc = subprocess.run([sys.executable, str(script), str(run)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "four-player" in proc.stdout
    # A sample whose outcome contradicts its game's result is caught.

    def flip_outcome(table, meta):
        i = table.schema.get_field_index("outcome")
        flipped = pa.array([-v for v in table.column("outcome").to_pylist()], pa.int8())
        return table.set_column(i, table.schema.field("outcome"), flipped), meta

    bad = _rewrite_samples(siguo_runs["anqi"], tmp_path / "flipped", flip_outcome)
    proc = subprocess.run([sys.executable, str(script), str(bad)], capture_output=True, text=True)
    assert proc.returncode != 0 and "outcome" in proc.stderr, proc.stderr
