"""junqi-ray: run one junqi self-play, arena or study across a Ray cluster.

    junqi-ray [OPTIONS] selfplay -- <junqi selfplay args>
    junqi-ray [OPTIONS] arena -- <junqi arena args>
    junqi-ray [OPTIONS] study first-move -- <junqi study first-move args>

Everything after ``--`` goes to junqi unchanged, except --out, --part and
--threads, which the driver sets itself. The run is split into --parts parts
(``junqi ... --part I/N``), one Ray task each; each task publishes its part to
OUT/parts/part-IIII-of-NNNN/, then the driver runs ``junqi merge`` over the
parts and publishes the whole run to OUT/merged/. A study with --precision
is played round by round: round R's parts (each from the tallies merged
after round R-1) go to OUT/rounds/round-RRRRR/parts/, ``junqi study merge``
joins them into OUT/rounds/round-RRRRR/merged/, and the round that finishes
the study is published, report included, to OUT/merged/. See
docs/distributed.md.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import storage, task

COMMANDS = {"selfplay": ["selfplay"], "arena": ["arena"], "study": ["study"]}
STUDIES = ["first-move"]

# junqi flags the driver owns, per command (with the reason).
_OWNED = {
    "--out": "the driver gives each part its own directory; use junqi-ray --out",
    "--part": "the driver splits the run; use junqi-ray --parts",
    "--threads": "each part runs with --threads equal to junqi-ray --cpus-per-part",
}
_REFUSED = {
    "arena": {"--pgnout": "it would be written on a worker; export the merged games with `junqi export`"},
    "study": {
        "--resume-from": "the driver gives each round's parts the tallies merged after the round before",
    },
}


class UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="junqi-ray",
        usage="junqi-ray [OPTIONS] --out URL {selfplay,arena,study first-move} -- JUNQI_ARGS...",
        description="Run a junqi self-play, arena or study across a Ray cluster; the merged output "
        "equals that of one `junqi` process with the same arguments. JUNQI_ARGS (after `--`) go to "
        "junqi as they are, without --out, --part and --threads, which junqi-ray sets. "
        "See docs/distributed.md.",
        epilog="Example: junqi-ray --address auto --parts 32 --out s3://bucket/runs/sp1 selfplay -- "
        "--games 100000 --bots random,greedy --seed 7 --shard-games 1000",
    )
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster address (`auto`, HOST:PORT). Default: $RAY_ADDRESS, "
                        "else a running local cluster, else a new one on this machine")
    p.add_argument("--parts", type=int, default=None, metavar="N",
                   help="number of parts (Ray tasks); default: the cluster's CPUs now / --cpus-per-part "
                        "(give it on an autoscaling cluster, whose CPUs come later)")
    p.add_argument("--cpus-per-part", type=float, default=1.0, metavar="C",
                   help="CPUs Ray reserves for each task (num_cpus); junqi gets --threads C (at least 1). Default 1")
    p.add_argument("--max-retries", type=int, default=3, metavar="R",
                   help="times Ray retries a failed task (crash, lost node or junqi error). Default 3")
    p.add_argument("--binary", default=os.environ.get("JUNQI_BIN", "junqi"), metavar="PATH",
                   help="junqi binary: a path on the workers, or a name on their PATH (default: $JUNQI_BIN, else junqi)")
    p.add_argument("--ship-binary", action="store_true",
                   help="send the driver's --binary to the workers through Ray's object store "
                        "(for clusters without junqi installed; same OS and CPU architecture)")
    p.add_argument("--merge-binary", default=None, metavar="PATH",
                   help="junqi binary on this machine for `junqi merge` (default: --binary)")
    p.add_argument("--out", required=True, metavar="URL",
                   help="output: a directory every node can write (shared file system) or an object-store URL "
                        "(s3://bucket/prefix, gs://...). Parts go to OUT/parts/, the whole run to OUT/merged/")
    p.add_argument("--s3-endpoint", default=None, metavar="URL",
                   help="S3-compatible endpoint, e.g. http://127.0.0.1:9000 "
                        "(default: $JUNQI_RAY_S3_ENDPOINT, $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL)")
    p.add_argument("--s3-region", default=None, metavar="REGION", help="S3 region (default: $AWS_REGION, $AWS_DEFAULT_REGION)")
    p.add_argument("--forward-env", action="append", default=[], metavar="NAME",
                   help="also set this environment variable of the driver in every task; repeatable. "
                        "AWS_* variables that are set are forwarded unless --no-forward-aws")
    p.add_argument("--no-forward-aws", action="store_true",
                   help="do not forward the driver's AWS_* variables (workers use their own role/credentials)")
    p.add_argument("--work-dir", default=None, metavar="DIR",
                   help="scratch directory on each worker (default: $JUNQI_RAY_WORK_DIR, else the system temp dir)")
    p.add_argument("--force", action="store_true", help="play every part again, even those already published")
    p.add_argument("--no-merge", action="store_true", help="publish the parts only")
    p.add_argument("--merged-local", default=None, metavar="DIR",
                   help="also keep the merged run in this local directory")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    sub = p.add_subparsers(dest="command", required=True, metavar="{selfplay,arena,study}")
    sub.add_parser("selfplay", help="junqi selfplay, split by shards")
    sub.add_parser("arena", help="junqi arena, split by matchups")
    st = sub.add_parser("study", help="junqi study KIND, split by variants")
    st.add_argument("kind", choices=STUDIES)
    return p


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def check_junqi_args(command: str, junqi_args: list[str]) -> None:
    refused = dict(_OWNED, **_REFUSED.get(command, {}))
    for a in junqi_args:
        flag = a.split("=", 1)[0]
        if flag in refused:
            raise UsageError(f"`{flag}` cannot be passed to junqi through junqi-ray {command}: {refused[flag]}")


class Progress:
    """A bar on a terminal, plain lines otherwise."""

    def __init__(self, total: int, done: int, quiet: bool):
        self.total, self.done, self.quiet = total, done, quiet
        self.tty = sys.stderr.isatty()
        self.start = self.last = time.time()
        self.closed = False
        self.show("")

    def show(self, note: str, tick: bool = False) -> None:
        if self.quiet:
            return
        el = time.time() - self.start
        if tick and not self.tty and time.time() - self.last < 60:
            return  # in a log, a line per part and one a minute while waiting
        self.last = time.time()
        if self.tty:
            w = 30
            fill = int(w * self.done / max(1, self.total))
            sys.stderr.write(f"\rparts [{'#' * fill}{'.' * (w - fill)}] {self.done}/{self.total} {el:6.1f}s {note[:40]:40}")
            sys.stderr.flush()
        else:
            print(f"parts {self.done}/{self.total} after {el:.1f}s{': ' + note if note else ''}", file=sys.stderr, flush=True)

    def step(self, note: str) -> None:
        self.done += 1
        self.show(note)

    def close(self) -> None:
        if self.tty and not self.quiet and not self.closed:
            sys.stderr.write("\n")
        self.closed = True


def log(args, msg: str) -> None:
    if not args.quiet:
        print(f"junqi-ray: {msg}", file=sys.stderr, flush=True)


def forwarded_env(args) -> dict:
    names = list(args.forward_env)
    if not args.no_forward_aws:
        names += [n for n in os.environ if n.startswith("AWS_")]
    return {n: os.environ[n] for n in names if n in os.environ}


def run(argv: list[str]) -> int:
    front, junqi_args = split_argv(argv)
    args, extra = build_parser().parse_known_args(front)
    if extra:
        raise UsageError(f"unrecognized arguments {' '.join(extra)}: junqi's own arguments go after `--` "
                         "(junqi-ray [OPTIONS] selfplay -- --games 1000 ...)")
    command = list(COMMANDS[args.command]) + ([args.kind] if args.command == "study" else [])
    check_junqi_args(args.command, junqi_args)
    precision = args.command == "study" and any(a.split("=", 1)[0] == "--precision" for a in junqi_args)
    if precision and args.no_merge:
        raise UsageError("--no-merge: a --precision study merges each round to plan the next")
    flags = [a.split("=", 1)[0] for a in junqi_args]
    if precision and flags.count("--bot") > 1:
        raise UsageError("a --precision study is split round by round for one --bot; run one study per bot")
    if precision and "--factor" in flags:
        raise UsageError("a --precision study with --factor fits its effects on every game: play it in one process")
    if args.parts is not None and args.parts < 1:
        raise UsageError("--parts must be at least 1")
    if args.cpus_per_part <= 0:
        raise UsageError("--cpus-per-part must be positive")
    threads = max(1, int(round(args.cpus_per_part)))
    if not storage.is_remote(args.out):
        # The tasks run elsewhere, in other working directories.
        path = args.out[len("file://"):] if args.out.startswith("file://") else args.out
        args.out = os.path.abspath(path)
    opts = storage.StorageOptions.from_env(args.s3_endpoint, args.s3_region)
    store = storage.open_store(args.out, opts)
    if os.sep in args.binary and os.path.exists(args.binary):
        # A path here: the same path on the workers, whatever their working directory.
        args.binary = os.path.abspath(args.binary)
    if args.ship_binary and not os.path.isfile(args.binary) and shutil.which(args.binary):
        args.binary = shutil.which(args.binary)
    if args.ship_binary and not os.path.isfile(args.binary):
        raise UsageError(f"--ship-binary: `{args.binary}` is not a file on this machine (give --binary PATH)")
    merge_binary = args.merge_binary or args.binary
    if not args.no_merge:
        found = shutil.which(merge_binary) if os.sep not in merge_binary else merge_binary
        if not found or not os.access(found, os.X_OK):
            raise UsageError(f"junqi binary `{merge_binary}` for the merge not found on this machine "
                             "(pass --merge-binary PATH, or --no-merge)")
        merge_binary = os.path.abspath(found)

    # Parts failing after a first failure are cancelled, not reported twice.
    os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")
    import ray

    env = forwarded_env(args)
    ray.init(address=args.address, logging_level="WARNING", log_to_driver=False,
             runtime_env={"env_vars": env} if env else None)
    try:
        parts = args.parts
        if parts is None:
            cpus = ray.cluster_resources().get("CPU", 1)
            parts = max(1, int(cpus // args.cpus_per_part))
        spec_base = {
            "command": command,
            "junqi_args": junqi_args,
            "count": parts,
            "threads": threads,
            "out": args.out,
            "prefix": "parts",
            "storage": {"endpoint": opts.endpoint, "region": opts.region},
            "work_dir": args.work_dir or os.environ.get("JUNQI_RAY_WORK_DIR")
            or os.path.join(tempfile.gettempdir(), "junqi-ray"),
            "binary": args.binary,
            "run_key": hashlib.sha256(json.dumps([command, junqi_args, args.out, parts]).encode()).hexdigest(),
        }
        if args.ship_binary:
            with open(args.binary, "rb") as f:
                data = f.read()
            spec_base["binary_sha256"] = hashlib.sha256(data).hexdigest()
            spec_base["binary_ref"] = ray.put(data)
            del data
        # Ship the task's code by value: workers need Ray, not this package.
        import ray.cloudpickle as cp
        import junqi_ray

        cp.register_pickle_by_value(junqi_ray)
        remote = ray.remote(task.run_part).options(
            num_cpus=args.cpus_per_part, max_retries=args.max_retries, retry_exceptions=True,
            name="junqi-part")
        if precision:
            return play_rounds(args, store, remote, spec_base, merge_binary)
        code = play_parts(args, store, remote, spec_base)
        if code != 0:
            return code
    finally:
        ray.shutdown()
    if args.no_merge:
        return 0
    names = [task.part_name(i, parts) for i in range(parts)]
    return merge(args, store, names, merge_binary)


def play_parts(args, store: storage.Store, remote, spec: dict) -> int:
    """Play the parts of spec (those not yet published under spec['prefix'])
    as Ray tasks; 0 when all are published, else 1 (reported)."""
    parts, prefix = spec["count"], spec["prefix"]
    names = [task.part_name(i, parts) for i in range(parts)]
    todo = [i for i in range(parts) if args.force or not store.has(f"{prefix}/{names[i]}")]
    if len(todo) < parts:
        log(args, f"{parts - len(todo)} of {parts} parts already published in {store.join(prefix)}; playing the rest")
    t0 = time.time()
    import ray

    pending = {remote.remote(dict(spec, index=i)): i for i in todo}
    progress = Progress(parts, parts - len(todo), args.quiet)
    failures = []
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=5.0)
        if not ready:
            progress.show("", tick=True)
            continue
        ref = ready[0]
        i = pending.pop(ref)
        try:
            r = ray.get(ref)
            progress.step(f"{names[i]} on {r['node']} in {r['seconds_play']:.1f}s")
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append((i, e))
            progress.close()
            for other in pending:
                ray.cancel(other)
            pending.clear()
    progress.close()
    if failures:
        i, e = failures[0]
        msg = getattr(e, "cause", None) or e
        print(f"junqi-ray: error: {names[i]} failed after {args.max_retries} retries:\n{msg}", file=sys.stderr)
        done = len(store.list_parts(prefix))
        print(f"junqi-ray: {done} parts are published in {store.join(prefix)}; "
              "run the same command again to play only the missing ones", file=sys.stderr)
        return 1
    log(args, f"{len(todo)} parts played in {time.time() - t0:.1f}s")
    return 0


def play_rounds(args, store: storage.Store, remote, spec_base: dict, binary: str) -> int:
    """A study with --precision: its rounds in sequence, each round's parts
    in parallel, each from the tallies `junqi study merge` joined after the
    round before, until the tallies say the study is finished; that last
    merge (with the report) is published to OUT/merged/. A rerun skips the
    rounds already merged."""
    tallies = None  # the text of the tallies after the last merged round
    for r in itertools.count():
        prefix = f"rounds/round-{r:05d}"
        if store.has(f"{prefix}/merged") and not args.force:
            with tempfile.TemporaryDirectory(prefix="junqi-ray-round-") as tmp:
                merged = store.fetch(f"{prefix}/merged", os.path.join(tmp, "merged"))
                with open(os.path.join(merged, "tallies.json")) as f:
                    tallies = f.read()
                finished = json.loads(tallies)["finished"]
                if finished and not store.has("merged"):
                    store.publish(merged, "merged")
            log(args, f"round {r + 1} already merged in {store.join(prefix + '/merged')}")
        else:
            digest = hashlib.sha256((tallies or "").encode()).hexdigest()
            spec = dict(spec_base, prefix=f"{prefix}/parts",
                        run_key=hashlib.sha256(f"{spec_base['run_key']}/{r}/{digest}".encode()).hexdigest())
            if tallies is not None:
                spec["resume_tallies"] = tallies
            log(args, f"round {r + 1}: {spec['count']} parts")
            code = play_parts(args, store, remote, spec)
            if code != 0:
                return code
            code, tallies = merge_round(args, store, prefix, spec["count"], binary)
            if code != 0:
                return code
            finished = json.loads(tallies)["finished"]
        if finished:
            log(args, f"the study is finished after {r + 1} rounds; tallies and report in {store.join('merged')}")
            return 0


def merge_round(args, store: storage.Store, prefix: str, parts: int, binary: str):
    """`junqi study merge` over one round's published parts: the tallies to
    PREFIX/merged/ (and, when they finish the study, with the report to
    OUT/merged/). Returns (exit code, the merged tallies' text)."""
    with tempfile.TemporaryDirectory(prefix="junqi-ray-merge-") as tmp:
        dirs = []
        for name in (task.part_name(i, parts) for i in range(parts)):
            rel = f"{prefix}/parts/{name}"
            if not store.has(rel):
                print(f"junqi-ray: error: {store.join(rel)} is missing", file=sys.stderr)
                return 1, None
            # The tallies alone: the merge needs no games.
            part_dir = store.fetch(rel, os.path.join(tmp, "parts", name))
            dirs.append(os.path.join(part_dir, "tallies.json"))
        merged = os.path.join(tmp, "merged")
        proc = subprocess.run([binary, "study", "merge", "--out", merged, *dirs],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"junqi-ray: error: `junqi study merge` failed (exit code {proc.returncode}):\n"
                  f"{(proc.stderr or proc.stdout).strip()}", file=sys.stderr)
            return 1, None
        with open(os.path.join(merged, "tallies.json")) as f:
            tallies = f.read()
        store.publish(merged, f"{prefix}/merged")
        if json.loads(tallies)["finished"]:
            if args.merged_local:
                shutil.copytree(merged, args.merged_local, dirs_exist_ok=True)
            store.publish(merged, "merged")
            if not args.quiet and proc.stdout.strip():
                print(proc.stdout.strip().replace(merged, store.join("merged")), file=sys.stderr)
    log(args, f"merged the round's {parts} parts into {store.join(prefix + '/merged')}")
    return 0, tallies


def merge(args, store: storage.Store, names: list[str], binary: str) -> int:
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="junqi-ray-merge-") as tmp:
        dirs = []
        for name in names:
            rel = f"parts/{name}"
            if not store.has(rel):
                print(f"junqi-ray: error: {store.join(rel)} is missing", file=sys.stderr)
                return 1
            dirs.append(store.fetch(rel, os.path.join(tmp, "parts", name)))
        merged = args.merged_local or os.path.join(tmp, "merged")
        cmd = [binary, "merge", "--out", merged, *dirs]
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"junqi-ray: error: `junqi merge` failed (exit code {proc.returncode}):\n"
                  f"{(proc.stderr or proc.stdout).strip()}", file=sys.stderr)
            return 1
        store.publish(merged, "merged")
    log(args, f"merged {len(names)} parts into {store.join('merged')} in {time.time() - t0:.1f}s")
    if not args.quiet and proc.stdout.strip():
        print(proc.stdout.strip().replace(merged, store.join("merged")), file=sys.stderr)
    return 0


def main() -> None:
    try:
        sys.exit(run(sys.argv[1:]))
    except UsageError as e:
        print(f"junqi-ray: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("junqi-ray: interrupted; published parts stay and a rerun plays only the missing ones", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
