#!/usr/bin/env bash
# Run every test of the project on a fresh machine: check the toolchain,
# install what is missing (scripts/setup.sh), then build and run all tests (doc tests, unit, integration and CLI tests,
# and each criterion benchmark once in test mode), read a small self-play
# run's Parquet files with pyarrow, build and test the Python package
# (python/, pytest), run the Ray driver's tests on a local two-node cluster
# (scripts/ray), test `junqi serve` in headless Chromium (scripts/browser),
# and print one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        echo "error: cargo not found; install the Rust toolchain (https://rustup.rs) first" >&2
        exit 2
    fi
fi
cargo --version

# What a fresh machine lacks: libtorch for junqi-train, the Python
# packages of the checks (pyarrow, tensorboard), and the test suites' own
# parts (--tests: Ray, Chromium, ...), all into .deps/ (git-ignored).
# Idempotent: a second run only checks. Then check that the main job's part
# alone (what scripts/demo.sh runs) needs no root, apt-get or browser, and
# leaves a working .deps/bin/tensorboard.
bash scripts/setup.sh --tests
# The builds below (target/, python/target/) need several GB of disk: say
# early when it is short, rather than failing later in the linker.
# (A check only: a df that fails or prints no number says nothing and
# stops nothing. The free column is third from the end, whatever the
# filesystem's name holds.)
free_kb=$(df -Pk . 2>/dev/null | awk 'NR == 2 && $(NF - 2) ~ /^[0-9]+$/ { print $(NF - 2) }') || true
if [ -n "$free_kb" ]; then
    echo "disk: $((free_kb / 1024 / 1024)) GB free here"
    if [ "$free_kb" -lt $((8 * 1024 * 1024)) ]; then
        echo "warning: under 8 GB of disk free; the test build may run out of space" >&2
    fi
fi
bash scripts/check_setup.sh
export PYTHONPATH="$PWD/.deps/python${PYTHONPATH:+:$PYTHONPATH}"

log=$(mktemp)
run_dir=$(mktemp -d)
wheels=$(mktemp -d)
pytest_log=$(mktemp)
trap 'rm -f "$log" "$pytest_log"; rm -rf "$run_dir" "$wheels"' EXIT
cargo test --workspace --locked --doc 2>&1 | tee "$log"
cargo test --workspace --locked --all-targets 2>&1 | tee -a "$log"

# Python check: pyarrow reads both Parquet datasets of a small self-play run
# (scripts/check_parquet.py). The binary is the one the integration tests
# above just built (workspace features, test profile): `cargo run -p junqi`
# would resolve the features of that one package and rebuild half the tree.
junqi=target/debug/junqi
"$junqi" selfplay --rules anqi --games 200 --bots random,greedy --swap \
    --samples-per-game 8 --shard-games 64 --seed 3 --out "$run_dir/anqi"
"$junqi" selfplay --games 20 --samples-per-game all --shard-games 8 --out "$run_dir/fanqi"
python3 scripts/check_parquet.py "$run_dir/anqi"
python3 scripts/check_parquet.py "$run_dir/fanqi"
# scripts/game_counts.py (the game tables in data/nets/*/games.md) reads both: 220 games.
counts=$(python3 scripts/game_counts.py "$run_dir/anqi" "$run_dir/fanqi")
echo "$counts"
grep -q '^| all of the above | 220 |' <<<"$counts" || { echo "game_counts.py: expected 220 games" >&2; exit 1; }

# The Python package (python/): maturin (.deps/maturin) builds the extension
# (release) into a wheel, pip installs it into .deps/junqi-python, then its
# pytest suite runs against the binary just built. torch's paths come before
# .deps/python, whose setuptools is newer than torch accepts. Every test must
# run here: a skipped one (torch, a package or the binary missing) fails CI.
.deps/maturin/bin/maturin build --quiet --release --locked --manifest-path python/Cargo.toml --out "$wheels"
PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --no-index \
    --upgrade --target .deps/junqi-python "$wheels"/junqi-*.whl
PYTHONPATH="$PWD/.deps/junqi-python:$PWD/.deps/libtorch:$PWD/.deps/torch-python:$PWD/.deps/python" \
    JUNQI_BIN="$PWD/$junqi" python3 -m pytest python/tests -q -rs -p no:cacheprovider 2>&1 | tee "$pytest_log"
cat "$pytest_log" >> "$log"
if grep -Eq '^(=+ )?[0-9]+ .*skipped' "$pytest_log"; then
    echo "error: Python tests were skipped (see the reasons above); CI runs them all" >&2
    exit 1
fi

# The Ray driver (scripts/ray, docs/distributed.md): a real two-node Ray
# cluster on 127.0.0.1 and an S3-compatible server (moto), all started and
# stopped by the tests; distributed self-play, arena, study and a loop
# generation on the cluster must equal one process. About two minutes.
bash scripts/setup_ray.sh
env -u PYTHONPATH JUNQI_BIN="$PWD/$junqi" .deps/ray/bin/python -m pytest scripts/ray/tests -q -rs -p no:cacheprovider 2>&1 | tee "$pytest_log"
cat "$pytest_log" >> "$log"
if grep -Eq '^(=+ )?[0-9]+ .*skipped' "$pytest_log"; then
    echo "error: Ray driver tests were skipped (see the reasons above); CI runs them all" >&2
    exit 1
fi

# `junqi serve` in a real browser (scripts/browser): Debian's Chromium,
# driven by Playwright, against the server on 127.0.0.1 (started and
# stopped by the tests): replay, a game by clicks, a 暗棋 deployment, and
# no hidden kind in any response. About 15 seconds.
bash scripts/setup_browser.sh
env -u PYTHONPATH JUNQI_BIN="$PWD/$junqi" .deps/browser/bin/python -m pytest scripts/browser -q -rs -p no:cacheprovider 2>&1 | tee "$pytest_log"
cat "$pytest_log" >> "$log"
if grep -Eq '^(=+ )?[0-9]+ .*skipped' "$pytest_log" || ! grep -Eq '^(=+ )?[0-9]+ passed' "$pytest_log"; then
    echo "error: the browser tests did not all run and pass (see above)" >&2
    exit 1
fi

# The binary without libtorch (`--no-default-features`) still compiles:
# rules, self-play, arena and the studies need no network. Last, and a
# check rather than a build, because its feature set differs from the
# workspace's (its dependencies are compiled again, metadata only).
cargo check --locked --profile test -q -p junqi --no-default-features

# One closing line over every test binary: "tests: N passed, N failed".
# (cargo's "test result:" lines and pytest's closing "N passed, N failed in Ts" line)
awk '/^test result:/ || /^(=+ )?[0-9]+ (passed|failed|skipped)/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f; if (p == 0 || f > 0) exit 1 }' "$log"
