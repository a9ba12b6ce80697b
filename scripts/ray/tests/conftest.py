"""Fixtures: a real two-node Ray cluster on 127.0.0.1, an S3-compatible
server (moto), and the junqi binary (JUNQI_BIN, default target/debug/junqi;
JUNQI_RAY_FAKE=1 swaps in tests/fake_junqi.py to test the plumbing alone)."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from junqi_ray.local_cluster import free_port, local_cluster  # noqa: E402

HERE = Path(__file__).resolve().parent
PKG = HERE.parent  # scripts/ray
REPO = PKG.parent.parent
BIN = Path(sys.executable).parent  # the venv's bin/: ray, moto_server


@pytest.fixture(scope="session")
def tmp_root():
    d = tempfile.mkdtemp(prefix="junqi-ray-test-")
    # The workers' scratch directories (and shipped binaries) go here too.
    os.environ["JUNQI_RAY_WORK_DIR"] = os.path.join(d, "work")
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def junqi_bin(tmp_root) -> str:
    if os.environ.get("JUNQI_RAY_FAKE") == "1":
        wrapper = tmp_root / "fake-junqi"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "fake_junqi.py"}" "$@"\n')
        wrapper.chmod(0o755)
        return str(wrapper)
    path = Path(os.environ.get("JUNQI_BIN", REPO / "target" / "debug" / "junqi")).resolve()
    if not os.access(path, os.X_OK):
        pytest.fail(f"junqi binary {path} not found: build it (cargo build -p junqi) or set JUNQI_BIN")
    probe = subprocess.run([str(path), "merge", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.fail(f"{path} has no `merge` command (a binary older than the --part/merge contract); "
                    "rebuild it, or set JUNQI_RAY_FAKE=1 to test the plumbing with the fake")
    return str(path)


@pytest.fixture(scope="session")
def ray_cluster():
    """A head node and a worker node, one CPU each, on 127.0.0.1; always
    stopped at the end, on failure too (`ray stop --force`: every Ray process
    of this machine, so do not run the suite beside another Ray cluster)."""
    with local_cluster(nodes=2, cpus_per_node=1) as address:
        yield address


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3-compatible server on 127.0.0.1 with one bucket; always stopped."""
    import boto3

    port = free_port()
    proc = subprocess.Popen([str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    endpoint = f"http://127.0.0.1:{port}"
    creds = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}
    try:
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("moto_server did not start")
                time.sleep(0.2)
        s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="testing",
                          aws_secret_access_key="testing", region_name="us-east-1")
        s3.create_bucket(Bucket="junqi")
        yield {"endpoint": endpoint, "bucket": "junqi", "env": creds, "client": s3}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def junqi_ray(address, junqi_bin, *args, env=None, timeout=300, check=True, cwd=None):
    """Run the driver as a user would; returns the CompletedProcess."""
    cmd = [sys.executable, "-m", "junqi_ray", "--address", address, "--binary", junqi_bin, *args]
    full_env = dict(os.environ, **(env or {}))
    full_env["PYTHONPATH"] = str(PKG) + os.pathsep + full_env.get("PYTHONPATH", "")
    p = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"junqi-ray failed ({p.returncode}):\n{p.stderr[-6000:]}\n{p.stdout[-2000:]}")
    return p
