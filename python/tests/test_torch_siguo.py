"""junqi.torch.SiguoNet: the four-player (四国) PyTorch net against the Rust one.

* The PyTorch net reproduces the Rust CPU engine (`junqi.SiguoNet`, that is
  `junqi_net::SiguoCpuNet`, what four-player `net:` bots evaluate) on
  hundreds of positions of random 四国 games (暗棋, 双明, 全明, and rule
  planes on): the priors over the legal actions, the team's win/draw/loss
  and the belief head, within TOL, and the same most probable move. The net
  is a tiny one `junqi train` makes in the test (bilinear head, belief head,
  learned deployment model); freshly initialised nets of other shapes
  (`conv` head, no belief head) are written from Python and read by Rust.
* Files round-trip exactly, a net changed in Python and saved is read by
  Rust with the new outputs and plays in `junqi arena --siguo`.
* Each game's loaders, Python's and Rust's, refuse the other game's nets by
  name; edited files and the wrong plane count are refused.

Needs torch and the `junqi` binary (`JUNQI_BIN`), like test_torch_net.py:

    PYTHONPATH=.deps/junqi-python:.deps/libtorch:.deps/torch-python:.deps/python \\
        JUNQI_BIN=target/debug/junqi python3 -m pytest python/tests/test_torch_siguo.py -q
"""

import json
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import junqi  # noqa: E402
from junqi.torch import (  # noqa: E402
    SIGUO_ACTIONS,
    SIGUO_DEFAULT_CONFIG,
    SIGUO_NODE_CELLS,
    SIGUO_NODES,
    SiguoNet,
    load_safetensors,
    load_siguo_safetensors,
    read_safetensors,
    write_safetensors,
)

# Float tolerance on probabilities (in [0, 1]): the Rust engine folds batch
# norm into the convolutions and sums in another order.
TOL = 1e-4
# Two moves whose Rust priors are closer than this may swap places within
# float rounding; every other position must have the same most probable move.
TIE = 1e-5
# Positions compared per net: every EVERY-th ply of random games.
POSITIONS = 400
EVERY = 3


def _run(cmd):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}: exit {proc.returncode}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def trained(junqi_bin, repo_root, tmp_path_factory):
    """A tiny four-player net trained by `junqi train` (1 block × 8 channels,
    bilinear policy head, belief head, a fitted deployment model) on 4
    四国暗棋 games of `greedy` against `random`: `{"net": path, "out": dir}`."""
    root = tmp_path_factory.mktemp("siguo-net")
    run, out = root / "run", root / "train"
    _run([junqi_bin, "selfplay", "--siguo", "--games", "4", "--bots", "greedy,random", "--samples-per-game", "all",
          "--threads", "1", "--seed", "5", "--out", run])
    sets = ["model.blocks=1", "model.channels=8", "model.value_hidden=16", "model.belief=true",
            "validate_every=0", "data.shuffle_buffer=256", "optim.warmup_steps=0"]
    cmd = [junqi_bin, "--device", "cpu", "train", "--config", repo_root / "configs/train/siguo-small.toml",
           "--data", run, "--out", out, "--steps", "6", "--batch-size", "16", "--fit-deployments"]
    for s in sets:
        cmd += ["--set", s]
    _run(cmd)
    return {"net": out / "net.safetensors", "out": out}


@pytest.fixture(scope="module")
def positions():
    """(planes float32 [N, 74, 17, 17], legal action lists) of the seat to
    move at every EVERY-th ply of random games: 暗棋, 双明, 全明 and 双明
    with palace arcs and clockwise turns (rule planes on), until POSITIONS."""
    rng = np.random.default_rng(3)
    setups = [("anqi", None), ("shuangming", None), ("quanming", None),
              ("shuangming", {"palace_arcs": True, "turn_order": "clockwise"})]
    planes, legal = [], []
    game_no = 0
    while len(legal) < POSITIONS:
        mode, rules = setups[game_no % len(setups)]
        game = junqi.SiguoGame(mode, rules=rules, seed=100 + game_no)
        game_no += 1
        for ply in range(POSITIONS // len(setups) * EVERY):
            ids = game.legal_actions()
            if game.is_terminal() or not ids:
                break
            if ply % EVERY == 0:
                planes.append(game.observation(game.current_player()))
                legal.append(ids)
                if len(legal) == POSITIONS:
                    break
            game.apply(int(rng.choice(ids)))
    return np.stack(planes), legal


def _compare(rust_net, torch_net, planes, legal):
    """The largest absolute differences (priors, wdl, belief) between the two
    nets, and the positions whose most probable move differs (near ties aside)."""
    ours = torch_net.evaluate(planes, legal)
    worst = {"priors": 0.0, "wdl": 0.0, "belief": 0.0}
    other_best = []
    for i, ids in enumerate(legal):
        priors, wdl, belief = rust_net.evaluate(planes[i], ids)
        tp, tw, tb = (t.numpy() if t is not None else None for t in ours[i])
        assert tp.shape == (len(ids),) and tw.shape == (3,)
        worst["priors"] = max(worst["priors"], float(np.abs(priors - tp).max()))
        worst["wdl"] = max(worst["wdl"], float(np.abs(wdl - tw).max()))
        top2 = np.sort(priors)[-2:]
        if np.argmax(priors) != np.argmax(tp) and (len(ids) == 1 or top2[1] - top2[0] >= TIE):
            other_best.append(i)
        assert (belief is None) == (tb is None)
        if belief is not None:
            assert tb.shape == (SIGUO_NODES, 12)
            worst["belief"] = max(worst["belief"], float(np.abs(belief - tb.reshape(-1)).max()))
    return worst, other_best


def _assert_same(rust_net, torch_net, planes, legal, label):
    worst, other_best = _compare(rust_net, torch_net, planes, legal)
    print(f"{label}: {len(legal)} positions, max abs diff {worst}")
    assert max(worst.values()) < TOL, worst
    assert not other_best, f"a different most probable move at positions {other_best}"
    return worst


def test_the_positions_are_real_and_varied(positions):
    """The sample spans modes and plies: several hundred positions, with
    hidden and known pieces, and the node plane where the net reads nodes."""
    planes, legal = positions
    assert planes.shape == (POSITIONS, 74, 17, 17)
    assert len({len(ids) for ids in legal}) > 10  # many different move counts
    flat = planes.reshape(POSITIONS, 74, -1)
    assert (flat[:, 0, list(SIGUO_NODE_CELLS)] == 1).all() and flat[:, 0].sum() == POSITIONS * 129
    kinds_open = flat[:, 8:56].sum(axis=1)  # kind planes set per cell
    assert (kinds_open > 1).any() and ((kinds_open == 1).sum(axis=1) > 0).all()


def test_siguo_net_reproduces_the_rust_net(trained, positions):
    rust_net, torch_net = junqi.SiguoNet(str(trained["net"])), load_siguo_safetensors(trained["net"])
    assert torch_net.config == rust_net.config
    assert torch_net.config["belief"] and torch_net.config["policy_head"] == "bilinear"
    assert torch_net.belief is not None and "deploy.weight" in torch_net.extra_tensors
    assert torch_net.step == 6
    _assert_same(rust_net, torch_net, *positions, "trained")
    # Without the belief asked, Rust gives none; bad input is refused by name.
    planes, legal = positions
    assert rust_net.evaluate(planes[0], legal[0], belief=False)[2] is None
    with pytest.raises(ValueError, match="one observation"):
        rust_net.evaluate(planes[:2], legal[0])
    with pytest.raises(ValueError, match="out of range"):
        rust_net.evaluate(planes[0], [SIGUO_ACTIONS])
    with pytest.raises(ValueError, match="at least one action"):
        rust_net.evaluate(planes[0], [])


@pytest.mark.parametrize(
    "config",
    [
        {"blocks": 2, "channels": 8, "value_planes": 2, "value_hidden": 16, "policy_head": "conv", "belief": False},
        {"blocks": 1, "channels": 16, "value_planes": 3, "value_hidden": 8},
    ],
    ids=["conv", "bilinear-belief"],
)
def test_a_fresh_net_from_python_is_read_by_rust(config, positions, tmp_path):
    """A freshly initialised four-player net (random batch-norm statistics
    too) of a shape nobody trained, saved from Python: same outputs in Rust."""
    torch.manual_seed(11)
    net = SiguoNet(config)
    assert net.config == {**SIGUO_DEFAULT_CONFIG, **config}
    with torch.no_grad():
        for name, b in net.named_buffers():
            if name.endswith("running_mean"):
                b.normal_(0, 0.1)
            elif name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
    path = tmp_path / "fresh.safetensors"
    net.save_safetensors(path)
    rust_net = junqi.SiguoNet(str(path))
    assert rust_net.config == net.config
    _assert_same(rust_net, net, *positions, f"fresh {net.config['policy_head']}")


def test_forward_agrees_with_evaluate(trained, positions):
    """`forward`'s raw outputs, masked and normalised, are what `evaluate`
    returns, for a batch on the four-player shapes."""
    net = load_siguo_safetensors(trained["net"])
    planes, legal = positions[0][:24], positions[1][:24]
    with torch.no_grad():
        policy, wdl, belief = net(torch.from_numpy(planes))
    assert policy.shape == (24, SIGUO_ACTIONS) and wdl.shape == (24, 3) and belief.shape == (24, SIGUO_NODES, 12)
    ev = net.evaluate(planes, legal)
    for i, ids in enumerate(legal):
        ids = torch.tensor(ids, dtype=torch.long)
        mask = torch.full((SIGUO_ACTIONS,), -1e9)
        mask[ids] = 0
        assert torch.allclose(torch.softmax(policy[i] + mask, -1)[ids], ev[i][0], atol=1e-6)
        assert torch.allclose(torch.softmax(wdl[i], -1), ev[i][1], atol=1e-6)
        assert torch.allclose(torch.softmax(belief[i], -1), ev[i][2], atol=1e-6)
    with pytest.raises(ValueError, match="0..16641"):
        net.evaluate(planes[0], [SIGUO_ACTIONS])


def test_save_load_round_trip_is_exact(trained, tmp_path):
    src = trained["net"]
    net = load_siguo_safetensors(src)
    out = tmp_path / "net.safetensors"
    net.save_safetensors(out)
    again = load_siguo_safetensors(out)
    assert again.config == net.config and again.step == net.step and again.metadata == net.metadata
    meta_src, tensors_src = read_safetensors(src)
    meta_out, tensors_out = read_safetensors(out)
    assert sorted(tensors_src) == sorted(tensors_out)  # deploy.* kept, no num_batches_tracked
    for k in tensors_src:
        assert tensors_src[k].shape == tensors_out[k].shape
        assert tensors_src[k].tobytes() == tensors_out[k].tobytes(), k
    assert meta_out["format"] == "junqi-siguo-net/1" and meta_out["game"] == "siguo"
    for k, v in meta_src.items():
        if k not in ("architecture", "checksum_fnv1a64"):
            assert meta_out[k] == v, k
    assert json.loads(meta_out["architecture"]) == net.config
    assert junqi.SiguoNet(str(out)).config == net.config
    # The training checkpoint the net was exported from reads to the same weights.
    ckpt = sorted((trained["out"] / "checkpoints").glob("ckpt-*.safetensors"))[-1]
    assert read_safetensors(ckpt)[0]["format"] == "junqi-siguo-train-checkpoint/1"
    from_ckpt = load_siguo_safetensors(ckpt)
    for k, v in net.state_dict().items():
        assert torch.equal(from_ckpt.state_dict()[k], v), k


def test_a_changed_net_saved_from_python_plays_in_arena(trained, junqi_bin, positions, tmp_path):
    """The trained net with every weight changed (as fine-tuning would),
    saved from Python: Rust reads the new weights (its outputs equal the
    PyTorch net's and differ from the original's) and `junqi arena --siguo`
    plays it."""
    net = load_siguo_safetensors(trained["net"])
    gen = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.2 * torch.randn(p.shape, generator=gen) * (p.std() if p.numel() > 1 else 1.0))
    net.step += 1
    path = tmp_path / "tuned.safetensors"
    net.save_safetensors(path)
    planes, legal = positions[0][:100], positions[1][:100]
    _assert_same(junqi.SiguoNet(str(path)), net, planes, legal, "changed")
    original, _ = _compare(junqi.SiguoNet(str(trained["net"])), net, planes, legal)
    assert original["priors"] > 1e-3, "the change did not reach the file"
    out = tmp_path / "arena"
    _run([junqi_bin, "arena", "--siguo", "--bots", f"net:path={path},random", "--games-per-pair", "2",
          "--threads", "1", "--seed", "1", "--out", out])
    results = json.loads((out / "results.json").read_text())
    assert "tuned.safetensors" in json.dumps(results) and sum(results["penta"]) == 1


def test_each_game_refuses_the_others_nets(trained, repo_root):
    """A two-player net given to the four-player loaders, and the reverse,
    is refused by name, in Python as in Rust."""
    two, four = repo_root / "data/nets/fanqi.safetensors", trained["net"]
    for load in (load_siguo_safetensors, SiguoNet.from_safetensors):
        with pytest.raises(ValueError, match=r"a two-player net \(format `junqi-net/1`.*four-player \(四国\) net is needed"):
            load(two)
    with pytest.raises(ValueError, match=r"a four-player \(四国\) net \(format `junqi-siguo-net/1`.*load_siguo_safetensors"):
        load_safetensors(four)
    with pytest.raises(ValueError, match="two-player net"):
        junqi.SiguoNet(str(two))
    with pytest.raises(ValueError, match=r"four-player \(四国\) net"):
        junqi.Net(str(four))


def test_bad_four_player_files_are_refused(trained, tmp_path):
    """Refused by both readers: a `game` key that contradicts the format, an
    architecture that does not take the 74 planes, and an edited file."""
    meta, tensors = read_safetensors(trained["net"])
    wrong_game = tmp_path / "wrong-game.safetensors"
    write_safetensors(wrong_game, tensors, {**meta, "game": "junqi"})
    planes = tmp_path / "planes.safetensors"
    arch = {**json.loads(meta["architecture"]), "in_channels": 110}
    stem = dict(tensors, **{"stem.conv.weight": np.zeros((8, 110, 3, 3), np.float32)})
    write_safetensors(planes, stem, {**meta, "architecture": json.dumps(arch)})
    edited = tmp_path / "edited.safetensors"
    data = bytearray(trained["net"].read_bytes())
    at = data.index(b'"step":"') + len(b'"step":"')
    data[at] ^= 1  # the step "6" becomes "7"
    edited.write_bytes(bytes(data))
    for path, why in [(wrong_game, "metadata `game` is `junqi`"), (planes, "110 observation planes.*74"),
                      (edited, "checksum")]:
        with pytest.raises(ValueError, match=why):
            load_siguo_safetensors(path)
        with pytest.raises(ValueError, match=why):
            junqi.SiguoNet(str(path))
    with pytest.raises(ValueError, match="in_channels = 74"):
        SiguoNet({"in_channels": 110})
