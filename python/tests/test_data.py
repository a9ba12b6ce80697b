"""junqi.data: the Parquet readers against runs written by `junqi selfplay`.

The decisive check: every sample's decoded planes, legal mask, policy ids and
action equal what `junqi.Game` gives when the game is replayed from its
`start_jfen` and `moves` to the sampled ply, so the readers, the files and
the Python encoders agree.
"""

import json
import shutil

import numpy as np
import pytest

import junqi
from junqi import data

KIND_LETTERS = "KGDROJCLEBMF"  # docs/rules.md §2, in kind order 0..11


def _by_game(arrays):
    out = {}
    for i, gid in enumerate(arrays["game_id"]):
        out.setdefault(int(gid), []).append(i)
    return out


def _truth_kinds(jfen):
    """Absolute node -> (is_red, kind) of every piece of a whole-truth JFEN (暗棋/明棋)."""
    board = jfen.split(" ")[0].split("/")
    pieces = {}
    for r, rank_text in enumerate(board):
        rank = 12 - r
        f = 0
        for ch in rank_text:
            if ch.isdigit():
                f += int(ch)
                continue
            pieces[(rank - 1) * 5 + f] = (ch.isupper(), KIND_LETTERS.index(ch.upper()))
            f += 1
    return pieces


@pytest.mark.parametrize("mode", ["fanqi", "anqi", "mingqi"])
def test_samples_equal_replayed_games(selfplay_runs, mode):
    run = selfplay_runs[mode]
    games = data.read_games(run)
    assert games.num_rows == 6
    assert games.column("game_id").to_pylist() == list(range(6))
    samples = data.read_samples(run)
    arrays = data.sample_arrays(samples)
    n = samples.num_rows
    assert n == sum(games.column("plies").to_pylist())  # --samples-per-game all
    c = tuple(junqi.OBS_SHAPE)
    assert arrays["obs"].shape == (n, *c) and arrays["obs"].dtype == np.float32
    assert arrays["codes"].shape == (n, data.CODE_BYTES) == (n, 195) and arrays["codes"].dtype == np.uint8
    assert arrays["mask"].shape == (n, 3600) and arrays["mask"].dtype == np.uint8
    assert arrays["policy"].shape == (n, 3600) and arrays["policy"].dtype == np.float32
    assert arrays["action"].dtype == np.int64 and arrays["hidden_kinds"].shape == (n, 60)
    # policy targets: distributions over the legal actions
    np.testing.assert_allclose(arrays["policy"].sum(axis=1), 1.0, rtol=0, atol=1e-5)
    assert not (arrays["policy"][arrays["mask"] == 0]).any()
    assert arrays["mask"][np.arange(n), arrays["action"]].all()
    assert set(np.unique(arrays["outcome"])) <= {-1.0, 0.0, 1.0}
    assert np.isnan(arrays["value"]).all()  # random bots give no value
    # the Rust decoder and the numpy one of the docs agree bit for bit
    assert np.array_equal(arrays["obs"].view(np.uint32), data.decode_codes_numpy(arrays["codes"]).view(np.uint32))

    rows = games.to_pylist()
    by_game = _by_game(arrays)
    checked = 0
    for row in rows:
        idx = by_game[row["game_id"]]
        plies = [int(arrays["ply"][i]) for i in idx]
        assert plies == list(range(row["plies"]))
        for (ply, game), i in zip(data.iter_replay(row, plies), idx):
            assert ply == arrays["ply"][i]
            seat = game.current_player()
            assert seat == arrays["seat"][i]
            obs = game.observation(seat)
            assert np.array_equal(obs.view(np.uint32), arrays["obs"][i].view(np.uint32)), (row["game_id"], ply)
            assert np.array_equal(game.action_mask(seat), arrays["mask"][i])
            legal = game.legal_actions()
            assert np.array_equal(np.flatnonzero(arrays["mask"][i]), legal)
            assert game.move_to_action(row["moves"][ply]) == arrays["action"][i]
            assert bytes(game.obs_code(seat)) == arrays["codes"][i].tobytes()
            if mode == "anqi":
                _check_hidden_kinds(game, seat, arrays["hidden_kinds"][i], obs)
            else:
                assert (arrays["hidden_kinds"][i] == -1).all()
            checked += 1
        end = data.replay(row)
        assert end.is_terminal()
        assert end.termination == row["termination"]
        assert end.ply == row["plies"]
        result = {1.0: "1-0", -1.0: "0-1", 0.0: "1/2-1/2"}[end.returns()[0]]
        assert result == row["result"]
        for i in idx:
            assert arrays["outcome"][i] == end.returns()[int(arrays["seat"][i])]
    assert checked == n


def _check_hidden_kinds(game, seat, targets, obs):
    truth = _truth_kinds(game.to_jfen())
    enemy_occupied = obs[25].reshape(60)
    may_be = obs[12:24].reshape(12, 60)
    for node in range(60):
        target = int(targets[node])
        if target < 0:
            continue
        absolute = node if seat == 0 else 59 - node
        assert absolute in truth
        assert truth[absolute][1] == target  # the referee's truth
        assert enemy_occupied[node] == 1  # an enemy piece stands there
        assert may_be[target, node] == 1  # the true kind is among the possible ones
        assert may_be[:, node].sum() > 1  # and the mover did not know it


def test_anqi_has_hidden_kind_targets(selfplay_runs):
    arrays = data.sample_arrays(data.read_samples(selfplay_runs["anqi"]))
    assert (arrays["hidden_kinds"] >= 0).any()
    assert arrays["hidden_kinds"].max() <= 11


def test_columns_filters_and_batches(selfplay_runs):
    run = selfplay_runs["fanqi"]
    full = data.sample_arrays(data.read_samples(run))
    part = data.read_samples(run, columns=["game_id", "ply", "position"], filter=data.field("game_id") < 2)
    arrays = data.sample_arrays(part)
    assert set(arrays) == {"game_id", "ply", "codes", "obs", "hidden_kinds"}
    keep = full["game_id"] < 2
    assert np.array_equal(arrays["obs"], full["obs"][keep])
    batches = list(data.iter_sample_batches(run, batch_size=50))
    assert all(len(b["action"]) <= 50 for b in batches)
    for key in ("obs", "mask", "policy", "action", "outcome", "seat", "hidden_kinds"):
        assert np.array_equal(np.concatenate([b[key] for b in batches]), full[key]), key
    games = data.read_games(run, columns=["game_id", "plies"], filter=data.field("game_id") >= 4)
    assert games.column("game_id").to_pylist() == [4, 5]


def test_heuristic_run_and_metadata(selfplay_runs):
    run = selfplay_runs["fanqi-heuristic"]
    config = data.read_run(run)["config"]
    assert config["bots"][0].startswith("heuristic")
    arrays = data.sample_arrays(data.read_samples(run))
    assert len(arrays["action"]) <= 4 * 5
    np.testing.assert_allclose(arrays["policy"].sum(axis=1), 1.0, atol=1e-5)
    files = data.shard_files(run, "samples")
    meta = data.shard_metadata(files[0])
    assert meta["junqi.obs_encoding"] == "obs-code-v3"
    assert meta["junqi.samples_schema"] == "3"
    assert json.loads(meta["junqi.config"]) == config


def test_hidden_and_damaged_files(selfplay_runs, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(selfplay_runs["fanqi"], run)
    # a temporary shard being written is skipped
    (run / "samples" / ".shard-000009.parquet.tmp").write_bytes(b"partial")
    (run / "games" / ".shard-000009.parquet.tmp").write_bytes(b"partial")
    assert data.read_games(run).num_rows == 6
    assert [p.name for p in data.shard_files(run, "games")] == ["shard-000000.parquet", "shard-000001.parquet"]
    data.shard_files(run, "games", check="crc32c")  # the records match
    data.shard_files(run, "samples", check="crc32c")
    # a shard is done once its games file exists: samples without it are left out
    (run / "games" / "shard-000001.parquet").rename(run / "games" / ".shard-000001.parquet.tmp")
    assert sorted(set(data.read_samples(run).column("game_id").to_pylist())) == [0, 1, 2]
    (run / "games" / ".shard-000001.parquet.tmp").rename(run / "games" / "shard-000001.parquet")
    assert sorted(set(data.read_samples(run).column("game_id").to_pylist())) == list(range(6))
    # a shard whose length or bytes differ from its checksum record is refused, named
    shard = run / "games" / "shard-000001.parquet"
    raw = bytearray(shard.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    shard.write_bytes(bytes(raw))
    data.shard_files(run, "games")  # the length still matches: only the CRC sees it
    with pytest.raises(data.DamagedShardError, match="shard-000001.parquet: damaged: checksum mismatch"):
        data.read_games(run, check="crc32c")
    shard.write_bytes(bytes(raw[:-10]))
    with pytest.raises(data.DamagedShardError, match="shard-000001.parquet: damaged: .* bytes, its checksum record says"):
        data.read_games(run)


def test_replay_rules_with_options(junqi_bin, tmp_path):
    """A run with non-default options: the rules column round-trips into junqi.Game."""
    import subprocess

    out = tmp_path / "opts"
    cmd = [str(junqi_bin), "selfplay", "--out", str(out), "--threads", "1", "--games", "2", "--samples-per-game", "3",
           "--set", "attack_hidden=true", "--set", "no_progress_plies=30"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    rows = data.read_games(out).to_pylist()
    mode, overrides = data.game_rules(rows[0]["rules"])
    assert mode == "fanqi" and overrides == {"attack_hidden": True, "no_progress_plies": 30}
    arrays = data.sample_arrays(data.read_samples(out))
    for i in range(len(arrays["action"])):
        row = rows[int(arrays["game_id"][i])]
        game = data.replay(row, int(arrays["ply"][i]))
        assert np.array_equal(game.observation(int(arrays["seat"][i])), arrays["obs"][i])
    for row in rows:
        end = data.replay(row)
        assert end.is_terminal() and end.termination == row["termination"]


def test_values_of_a_searching_bot(junqi_bin, tmp_path):
    """`value` is the bot's estimate where it has one (mcts), NaN where not (random)."""
    import subprocess

    out = tmp_path / "mcts"
    cmd = [str(junqi_bin), "selfplay", "--out", str(out), "--threads", "1", "--games", "2", "--samples-per-game", "6",
           "--bots", "mcts:sims=8,random"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    arrays = data.sample_arrays(data.read_samples(out))
    mcts = arrays["seat"] == 0  # game ids 0, 1 without --swap: mcts is seat 1 of the docs
    assert mcts.any() and (~mcts).any()
    assert not np.isnan(arrays["value"][mcts]).any()
    assert (np.abs(arrays["value"][mcts]) <= 1).all()
    assert np.isnan(arrays["value"][~mcts]).all()
    np.testing.assert_allclose(arrays["policy"].sum(axis=1), 1.0, atol=1e-5)


def test_schema_version_2_without_hidden_kinds(selfplay_runs, tmp_path):
    """Version 2 shards (no `hidden_kinds` column) still read: no belief targets."""
    import pyarrow.parquet as pq

    run = tmp_path / "v2"
    shutil.copytree(selfplay_runs["anqi"], run)
    for path in data.shard_files(run, "samples"):
        table = pq.read_table(path)
        meta = dict(pq.read_metadata(path).metadata)
        meta[b"junqi.samples_schema"] = b"2"
        table = table.drop_columns(["hidden_kinds"]).replace_schema_metadata(meta)
        pq.write_table(table, path, compression="zstd")
        path.with_name(f".{path.name}.crc32c").unlink()  # a file without a record is read as it is
    arrays = data.sample_arrays(data.read_samples(run))
    assert (arrays["hidden_kinds"] == -1).all()
    part = data.read_samples(run, columns=["game_id", "hidden_kinds"])
    assert part.column("hidden_kinds").null_count == part.num_rows
    full = data.sample_arrays(data.read_samples(selfplay_runs["anqi"]))
    assert np.array_equal(arrays["obs"], full["obs"])
    # Streamed too, with the column asked for by name.
    batch = next(data.iter_sample_batches(run, columns=["game_id", "hidden_kinds"], decode=False))
    assert batch.column("hidden_kinds").null_count == batch.num_rows
    # A run whose later shards are version 3 (resumed by a newer build) keeps
    # their targets, whichever file comes first.
    mixed = tmp_path / "mixed"
    shutil.copytree(run, mixed)
    newest = data.shard_files(selfplay_runs["anqi"], "samples")[-1]
    shutil.copy(newest, mixed / "samples" / newest.name)
    newest_ids = set(pq.read_table(newest, columns=["game_id"]).column("game_id").to_pylist())

    def kinds_by_position(table):
        cols = (table.column(c).to_pylist() for c in ("game_id", "ply", "hidden_kinds"))
        return {(g, p): h for g, p, h in zip(*cols)}

    original = kinds_by_position(data.read_samples(selfplay_runs["anqi"], columns=["game_id", "ply", "hidden_kinds"]))
    mixed_kinds = kinds_by_position(data.read_samples(mixed, columns=["game_id", "ply", "hidden_kinds"]))
    assert any(h is not None for h in mixed_kinds.values())
    for position, kinds in mixed_kinds.items():
        assert kinds == (original[position] if position[0] in newest_ids else None), position
    # a version this reader does not know is refused, naming the file
    path = data.shard_files(run, "samples")[0]
    table = pq.read_table(path)
    meta = dict(pq.read_metadata(path).metadata)
    meta[b"junqi.samples_schema"] = b"9"
    pq.write_table(table.replace_schema_metadata(meta), path)
    with pytest.raises(ValueError, match="shard-000000.parquet: samples schema version 9"):
        data.read_samples(run)


def test_a_run_without_samples(junqi_bin, tmp_path):
    import subprocess

    out = tmp_path / "none"
    cmd = [str(junqi_bin), "selfplay", "--out", str(out), "--threads", "1", "--games", "2", "--samples-per-game", "0"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    arrays = data.sample_arrays(data.read_samples(out))
    assert arrays["obs"].shape == (0, *junqi.OBS_SHAPE) and arrays["policy"].shape == (0, 3600)
    assert list(data.iter_sample_batches(out)) == []
    assert data.read_games(out).num_rows == 2


# 扛军旗: a Red engineer on b2 carries Black's flag, a Black 排长 stands on Red's
# flag on d1 (random play from a deal picks a flag up too rarely to test on).
CARRIED_FLAG = "4l/5/2g2/5/5/5/5/5/5/G4/1E+f3/3l-F1 fanqi 1 r 0 10"


@pytest.mark.parametrize(
    "mode, rules, jfen",
    [
        ("fanqi", {"flag_carry": True}, CARRIED_FLAG),
        ("fanqi", {"mountains": "open"}, None),
        ("mingqi", {"mountains": "engineer"}, None),
    ],
)
def test_rule_state_planes_decode_alike(mode, rules, jfen):
    """Positions of the rules with state of their own (a carried flag, the
    mountains' pieces) decode to the encoder's planes in Rust and in numpy,
    and an obs-code-v2 record reads as the same position with those rules off."""
    import random

    r = random.Random(5)
    codes, planes, seen = [], [], set()
    for seed in range(4):
        game = junqi.Game(mode, rules=rules, seed=seed, jfen=jfen)
        while not game.is_terminal():
            seat = game.current_player()
            codes.append(np.frombuffer(game.obs_code(seat), np.uint8))
            planes.append(game.observation(seat))
            seen |= {c for c in range(110, 132) if planes[-1][c].any()}
            game.apply(r.choice(game.legal_actions()))
    codes, planes = np.stack(codes), np.stack(planes)
    assert planes.shape[1:] == junqi.OBS_SHAPE == (132, 12, 5)
    assert np.array_equal(junqi.decode_codes(codes).view(np.uint32), planes.view(np.uint32))
    assert np.array_equal(data.decode_codes_numpy(codes).view(np.uint32), planes.view(np.uint32))
    option = 110 if "flag_carry" in rules else 112 if rules["mountains"] == "open" else 113
    assert option in seen and any(c >= 114 for c in seen), sorted(seen)
    # The first 189 bytes are an obs-code-v2 record: the same position, the new rules' state off.
    old = data.upgrade_codes(codes[:, : data.V2_CODE_BYTES])
    want = planes.copy()
    want[:, 110:] = 0
    assert np.array_equal(data.decode_codes_numpy(old), want)
    assert np.array_equal(junqi.decode_codes(codes[:, : data.V2_CODE_BYTES]), want)
