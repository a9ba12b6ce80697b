"""The work of one part, run as a Ray task on a worker node: play the part with
the junqi binary into a local directory, then publish it to the output URL.

Kept free of driver state so that Ray can ship it by value: a worker needs
Ray, pyarrow (for object storage) and the junqi binary, not this package.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from . import storage


def part_name(index: int, count: int) -> str:
    return f"part-{index:04d}-of-{count:04d}"


def _die_with_parent() -> None:
    """In the child, before exec: be killed when the Ray worker dies (Linux),
    so a crashed task leaves no junqi process writing behind it."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _binary(spec: dict) -> str:
    """The junqi binary on this node: the shipped one (cached by digest), or
    the path given."""
    ref = spec.get("binary_ref")
    if ref is None:
        found = shutil.which(spec["binary"]) if os.sep not in spec["binary"] else spec["binary"]
        if not found or not os.access(found, os.X_OK):
            raise RuntimeError(
                f"junqi binary `{spec['binary']}` not found on node {socket.gethostname()}: "
                "install it there (the Docker image puts it on PATH), pass --binary PATH, or --ship-binary"
            )
        return found
    import ray

    digest = spec["binary_sha256"]
    cache = os.path.join(spec["work_dir"], "bin", digest)
    path = os.path.join(cache, "junqi")
    if not os.path.exists(path):
        data = ray.get(ref)
        if hashlib.sha256(data).hexdigest() != digest:
            raise RuntimeError("the shipped junqi binary arrived corrupted (digest mismatch)")
        os.makedirs(cache, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    return path


def run_part(spec: dict) -> dict:
    """Play part spec['index'] of spec['count'] and publish it. Raises (and so
    lets Ray retry) on any failure. Resumable on one node: the local directory
    is keyed by the run and the part, and junqi resumes what is there."""
    start = time.time()
    index, count = spec["index"], spec["count"]
    name = part_name(index, count)
    binary = _binary(spec)
    st = os.stat(binary)
    key = hashlib.sha256(
        json.dumps([spec["run_key"], os.path.realpath(binary), st.st_size, st.st_mtime_ns]).encode()
    ).hexdigest()[:16]
    local = os.path.join(spec["work_dir"], "runs", key, name)
    os.makedirs(os.path.dirname(local), exist_ok=True)
    log_path = local + ".log"
    resume = []
    if spec.get("resume_tallies") is not None:
        # A round of a precision study: the tallies merged after the round before.
        tallies_path = local + ".tallies.json"
        with open(tallies_path, "w") as f:
            f.write(spec["resume_tallies"])
        resume = ["--resume-from", tallies_path]
    cmd = [
        binary,
        *spec["command"],
        *spec["junqi_args"],
        *resume,
        "--threads",
        str(spec["threads"]),
        "--part",
        f"{index}/{count}",
        "--out",
        local,
    ]
    with open(log_path, "ab") as log:
        log.write(("\n$ " + " ".join(cmd) + "\n").encode())
        log.flush()
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                              preexec_fn=_die_with_parent)
    with open(log_path, "rb") as f:
        f.seek(max(0, os.path.getsize(log_path) - 4000))
        tail = f.read().decode(errors="replace")
    if proc.returncode != 0:
        how = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
        raise RuntimeError(f"{name} on {socket.gethostname()}: junqi {how}\n{tail.strip()}")
    played = time.time()
    store = storage.open_store(spec["out"], storage.StorageOptions(**spec["storage"]))
    nbytes = store.publish(local, spec["prefix"] + "/" + name)
    shutil.rmtree(local, ignore_errors=True)
    if resume:
        os.remove(resume[1])
    for leftover in (lambda: os.remove(log_path), lambda: os.rmdir(os.path.dirname(local))):
        try:
            leftover()
        except OSError:
            pass  # the run's directory still holds other parts
    return {
        "index": index,
        "node": socket.gethostname(),
        "pid": os.getpid(),
        "seconds_play": played - start,
        "seconds_publish": time.time() - played,
        "bytes": nbytes,
        "summary": tail.strip().splitlines()[-3:],
    }
