"""junqi.torch: the PyTorch net against the Rust one.

* The PyTorch net reproduces the Rust CPU engine's outputs (`junqi.Net`,
  what `net:` bots evaluate) on positions sampled by `junqi selfplay`:
  priors over the legal actions, win/draw/loss and the belief head, for the
  shipped nets (bilinear policy head, with and without belief head) and a
  `conv`-head net.
* Files round-trip exactly, and a net written from Python (weights changed,
  or freshly initialised) is read by Rust with the same outputs and plays in
  `junqi arena`.

Needs torch (skipped without it; `scripts/setup_torch_python.sh` makes it
importable) and pyarrow. Run from the repository root:

    pip install --target .deps/junqi-python ./python
    PYTHONPATH=.deps/junqi-python:.deps/libtorch:.deps/torch-python:.deps/python python3 -m pytest python/tests/test_torch_net.py -q
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pa_ds = pytest.importorskip("pyarrow.dataset")

import junqi  # noqa: E402
from junqi.torch import DEFAULT_CONFIG, Net, load_safetensors, read_safetensors  # noqa: E402

# Float tolerance: the Rust engine folds batch norm into the convolutions
# and sums in another order; the outputs are probabilities in [0, 1].
TOL = 1e-4
# At most this many positions per run are compared (every k-th sample).
MAX_POSITIONS = 400

NETS = {
    # name: (file, the self-play run whose positions it evaluates)
    "fanqi": ("data/nets/fanqi.safetensors", "fanqi"),  # net:fanqi, 4x64: bilinear policy head
    "anqi": ("data/nets/anqi.safetensors", "anqi"),  # net:anqi, 4x64: bilinear + belief head
    "anqi-loop": ("data/nets/anqi/net-loop.safetensors", "anqi"),  # 3x32: bilinear + belief head + deployment model
    "conv-head": ("data/nets/fanqi-1h/net-012.safetensors", "fanqi"),  # legacy `conv` policy head
}


def _positions(run_dir):
    """(codes uint8 [N, 195], legal action lists) of a run's samples, at most MAX_POSITIONS."""
    table = pa_ds.dataset(str(run_dir / "samples"), format="parquet").to_table(columns=["position", "legal_actions"])
    positions = table.column("position").to_pylist()
    legal = table.column("legal_actions").to_pylist()
    step = max(1, len(positions) // MAX_POSITIONS)
    idx = list(range(0, len(positions), step))[:MAX_POSITIONS]
    codes = np.frombuffer(b"".join(positions[i] for i in idx), dtype=np.uint8).reshape(len(idx), -1)
    return codes, [legal[i] for i in idx]


def _compare(rust_net, torch_net, codes, legal):
    """The largest absolute differences (priors, wdl, belief) between the two nets."""
    planes = junqi.decode_codes(codes)
    ours = torch_net.evaluate(planes, legal)
    worst = {"priors": 0.0, "wdl": 0.0, "belief": 0.0}
    for i, ids in enumerate(legal):
        priors, wdl, belief = rust_net.evaluate(codes[i].tobytes(), ids)
        tp, tw, tb = ours[i]
        assert tp.shape == (len(ids),) and tw.shape == (3,)
        worst["priors"] = max(worst["priors"], float(np.abs(priors - tp.numpy()).max()))
        worst["wdl"] = max(worst["wdl"], float(np.abs(wdl - tw.numpy()).max()))
        assert (belief is None) == (tb is None)
        if belief is not None:
            assert tb.shape == (60, 12)
            worst["belief"] = max(worst["belief"], float(np.abs(belief - tb.numpy().reshape(-1)).max()))
    return worst


@pytest.mark.parametrize("name", sorted(NETS))
def test_torch_net_reproduces_the_rust_net(name, repo_root, selfplay_runs):
    path, mode = NETS[name]
    path = repo_root / path
    rust_net, torch_net = junqi.Net(str(path)), load_safetensors(path)
    assert torch_net.config == rust_net.config
    codes, legal = _positions(selfplay_runs[mode])
    assert len(legal) >= 50
    worst = _compare(rust_net, torch_net, codes, legal)
    print(f"{name}: {len(legal)} positions, max abs diff {worst}")
    assert max(worst.values()) < TOL, worst
    if name.startswith("anqi"):
        assert torch_net.belief is not None
    if name == "anqi-loop":
        assert "deploy.weight" in torch_net.extra_tensors


def test_forward_agrees_with_evaluate(repo_root, selfplay_runs):
    """`forward`'s raw outputs, masked and normalised, are what `evaluate` returns."""
    net = load_safetensors(repo_root / NETS["anqi"][0])
    codes, legal = _positions(selfplay_runs["anqi"])
    codes, legal = codes[:32], legal[:32]
    planes = torch.from_numpy(junqi.decode_codes(codes))
    with torch.no_grad():
        policy, wdl, belief = net(planes)
    assert policy.shape == (32, 3600) and wdl.shape == (32, 3) and belief.shape == (32, 60, 12)
    ev = net.evaluate(planes, legal)
    for i, ids in enumerate(legal):
        mask = torch.full((3600,), -1e9)
        mask[torch.tensor(ids, dtype=torch.long)] = 0
        full = torch.softmax(policy[i] + mask, -1)[torch.tensor(ids, dtype=torch.long)]
        assert torch.allclose(full, ev[i][0], atol=1e-6)
        assert torch.allclose(torch.softmax(wdl[i], -1), ev[i][1], atol=1e-6)
        assert torch.allclose(torch.softmax(belief[i], -1), ev[i][2], atol=1e-6)


@pytest.mark.parametrize("name", ["fanqi", "anqi", "anqi-loop"])
def test_save_load_round_trip_is_exact(name, repo_root, tmp_path):
    src = repo_root / NETS[name][0]
    net = load_safetensors(src)
    out = tmp_path / "net.safetensors"
    net.save_safetensors(out)
    again = load_safetensors(out)
    assert again.config == net.config and again.step == net.step
    assert again.metadata == net.metadata
    meta_src, tensors_src = read_safetensors(src)
    meta_out, tensors_out = read_safetensors(out)
    assert sorted(tensors_src) == sorted(tensors_out)  # deploy.* kept, no num_batches_tracked
    for k in tensors_src:
        assert tensors_src[k].shape == tensors_out[k].shape
        assert tensors_src[k].tobytes() == tensors_out[k].tobytes(), k
    assert json.loads(meta_out["architecture"]) == net.config
    assert meta_out["format"] == "junqi-net/1" and meta_out["step"] == meta_src["step"]
    # Whatever the source file's key order or extras, the other metadata entries survive.
    for k, v in meta_src.items():
        if k not in ("architecture", "checksum_fnv1a64"):
            assert meta_out[k] == v, k
    # And Rust reads it.
    assert junqi.Net(str(out)).config == net.config


def _arena(junqi_bin, net_path, out, *extra):
    cmd = [str(junqi_bin), "arena", "--bot", f"net:path={net_path}", "--bot", "random",
           "--games-per-pair", "4", "--threads", "1", "--out", str(out), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}"
    results = json.loads((out / "results.json").read_text())
    return proc, results


def test_a_fine_tuned_net_saved_from_python_plays_in_arena(repo_root, junqi_bin, selfplay_runs, tmp_path):
    """The fanqi net with every weight changed (as fine-tuning would),
    saved from Python: Rust reads the new weights (its outputs equal the
    PyTorch net's, and differ from the original's) and `junqi arena` plays it."""
    net = load_safetensors(repo_root / NETS["fanqi"][0])
    gen = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=gen) * (p.std() if p.numel() > 1 else 1.0))
    net.step += 1
    path = tmp_path / "tuned.safetensors"
    net.save_safetensors(path)
    codes, legal = _positions(selfplay_runs["fanqi"])
    codes, legal = codes[:100], legal[:100]
    worst = _compare(junqi.Net(str(path)), net, codes, legal)
    assert max(worst.values()) < TOL, worst
    original = _compare(junqi.Net(str(repo_root / NETS["fanqi"][0])), net, codes, legal)
    assert original["priors"] > 1e-3, "the perturbation did not reach the file"
    _, results = _arena(junqi_bin, path, tmp_path / "arena")
    assert "tuned.safetensors" in json.dumps(results)


@pytest.mark.parametrize(
    "config",
    [
        {"blocks": 1, "channels": 16, "policy_head": "conv"},
        {"blocks": 2, "channels": 8, "value_planes": 2, "value_hidden": 16, "policy_head": "bilinear", "belief": True},
    ],
    ids=["conv", "bilinear-belief"],
)
def test_a_fresh_net_from_python_is_read_by_rust(config, junqi_bin, selfplay_runs, tmp_path):
    """A freshly initialised net (random batch-norm statistics too) of a
    shape nobody trained: same outputs in Rust, and it plays in the arena."""
    torch.manual_seed(11)
    net = Net(config)
    with torch.no_grad():
        for name, b in net.named_buffers():
            if name.endswith("running_mean"):
                b.normal_(0, 0.1)
            elif name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
    net.eval()
    path = tmp_path / "fresh.safetensors"
    net.save_safetensors(path)
    rust_net = junqi.Net(str(path))
    assert rust_net.config == net.config == {**DEFAULT_CONFIG, **config}
    codes, legal = _positions(selfplay_runs["anqi" if config.get("belief") else "fanqi"])
    worst = _compare(rust_net, net, codes[:100], legal[:100])
    assert max(worst.values()) < TOL, worst
    _arena(junqi_bin, path, tmp_path / "arena")


def test_default_config_is_rusts(tmp_path):
    """`Net()` has `ModelConfig::default()`'s shape, and Rust reads its file."""
    net = Net()
    assert net.config == DEFAULT_CONFIG
    path = tmp_path / "default.safetensors"
    net.save_safetensors(path)
    assert junqi.Net(str(path)).config == DEFAULT_CONFIG
    with pytest.raises(ValueError):
        Net({"chanels": 32})


def test_rust_refuses_an_edited_file(repo_root, tmp_path):
    """The checksum is over the metadata too: a file whose architecture was
    edited after writing is refused, by Rust and by load_safetensors."""
    path = tmp_path / "edited.safetensors"
    load_safetensors(repo_root / NETS["fanqi"][0]).save_safetensors(path)
    data = bytearray(path.read_bytes())
    at = data.index(b'"step":"') + len(b'"step":"')
    data[at] ^= 1  # a digit of the step: "2800" becomes "3800"
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        junqi.Net(str(path))
    with pytest.raises(ValueError, match="checksum"):
        load_safetensors(path)


def test_import_junqi_does_not_import_torch():
    code = "import sys, junqi; assert 'torch' not in sys.modules and 'junqi.torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())


def test_the_training_example_lowers_its_losses_and_junqi_plays_the_net(repo_root, junqi_bin, selfplay_runs, tmp_path):
    """python/examples/train_torch_net.py on a tiny run: both losses fall on
    the few games it sees again and again, and the Rust side plays the file."""
    sys.path.insert(0, str(repo_root / "python" / "examples"))
    try:
        import train_torch_net
    finally:
        sys.path.pop(0)
    path = tmp_path / "example.safetensors"
    args = [str(selfplay_runs["fanqi"]), "--out", str(path), "--steps", "40", "--batch-size", "64"]
    (policy0, value0), (policy1, value1) = train_torch_net.main(args + ["--blocks", "1", "--channels", "16"])
    assert policy1 < policy0 and value1 < value0, (policy0, value0, policy1, value1)
    junqi.Net(str(path))  # the Rust reader accepts it (checksums, architecture)
    _arena(junqi_bin, path, tmp_path / "arena")
