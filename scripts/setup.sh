#!/usr/bin/env bash
# Install what junqi-train needs, into .deps/ (git-ignored). Idempotent: each
# step is skipped when its result is already there, so CI can call it on every
# run. Two parts:
#
#   bash scripts/setup.sh           the main job's part (scripts/demo.sh, the
#                                   recipes): libtorch and the Python packages
#                                   that read our files back; no root, no
#                                   apt-get, no browser.
#   bash scripts/setup.sh --tests   that, then the test suites' own parts
#                                   (scripts/test.sh): the Python package's
#                                   test pins and builder, torch for Python,
#                                   the Ray venv, Chromium (apt-get, root or
#                                   sudo) and Playwright.
#
# The main job's part:
#   .deps/libtorch   libtorch 2.11.0 (from the PyPI `torch` wheel, CPU path:
#                    the wheel plus the two small CUDA wheels libtorch_cpu.so
#                    links against); `.cargo/config.toml` points LIBTORCH at
#                    .deps/libtorch/torch so plain `cargo` commands find it.
#   .deps/python     Python packages for the checks: tensorboard (reads the
#                    training logs back) and pyarrow (reads the Parquet data).
#   .deps/bin/tensorboard  TensorBoard's command: `.deps/bin/tensorboard
#                    --logdir RUN/tb`. A wrapper of our own, because each
#                    `pip install --target` replaces .deps/python/bin.
#
# The test suites' part (--tests):
#   .deps/python     also pytest, PettingZoo and Gymnasium, pinned, for the
#                    Python package's tests (python/).
#   .deps/maturin    the builder of the Python package (python/).
#   .deps/torch-python  what `import torch` needs beyond .deps/libtorch
#                    (scripts/setup_torch_python.sh), for junqi.torch's tests.
#   .deps/ray        a venv with the Ray driver junqi-ray (scripts/ray, pinned
#                    ray) and its tests' moto S3 server (scripts/setup_ray.sh).
#   .deps/browser    Playwright for Python and pytest, driving Debian's
#                    chromium (apt-get), for `junqi serve`'s browser tests
#                    (scripts/setup_browser.sh).
#
# See docs/training.md. No machine here reaches pytorch.org, hence PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

tests=false
case "${1:-}" in
    "") ;;
    --tests) tests=true ;;
    *) echo "usage: bash scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac

TORCH_VERSION=2.11.0
CUDA_RUNTIME_VERSION=13.0.96
CUDA_CUPTI_VERSION=13.0.85

if ! command -v python3 >/dev/null 2>&1; then
    echo "error: python3 not found; the setup needs Python 3 with pip" >&2
    exit 2
fi
pip_install() {
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
        --no-compile "$@"
}

# libtorch: the wheel's version file tells what is installed.
libtorch=.deps/libtorch
have=$(cat "$libtorch/torch/version.py" 2>/dev/null | sed -n "s/^__version__ = '\([^'+]*\).*/\1/p" || true)
if [ "$have" = "$TORCH_VERSION" ] && [ -f "$libtorch/torch/lib/libtorch_cpu.so" ]; then
    echo "libtorch $TORCH_VERSION: already in $libtorch"
else
    echo "installing libtorch $TORCH_VERSION into $libtorch (about 540 MB download)"
    rm -rf "$libtorch"
    if ! pip_install --no-deps --target "$libtorch" "torch==$TORCH_VERSION" \
        "nvidia-cuda-runtime==$CUDA_RUNTIME_VERSION" "nvidia-cuda-cupti==$CUDA_CUPTI_VERSION"; then
        rm -rf "$libtorch"
        echo "error: could not install torch==$TORCH_VERSION into $libtorch (pip needs access to PyPI)" >&2
        exit 2
    fi
fi

# Python packages for the checks.
export PYTHONPATH="$PWD/.deps/python${PYTHONPATH:+:$PYTHONPATH}"
for pkg in tensorboard pyarrow numpy; do
    if python3 -c "import $pkg" 2>/dev/null; then
        echo "$pkg: already importable"
    else
        echo "installing $pkg into .deps/python"
        if ! pip_install --upgrade --target .deps/python "$pkg"; then
            echo "error: could not install $pkg into .deps/python (pip needs access to PyPI)" >&2
            exit 2
        fi
    fi
done

# TensorBoard's command, kept outside .deps/python/bin (which the next
# `pip install --target` would replace). Rewritten only when it differs.
tb_wrapper='#!/usr/bin/env bash
# Written by scripts/setup.sh: TensorBoard from .deps/python (or wherever
# python3 finds it), e.g. .deps/bin/tensorboard --logdir runs/train-1/tb
deps=$(cd "$(dirname "$0")/.." && pwd)
PYTHONPATH="$deps/python${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m tensorboard.main "$@"'
if [ "$(cat .deps/bin/tensorboard 2>/dev/null)" != "$tb_wrapper" ]; then
    mkdir -p .deps/bin
    printf '%s\n' "$tb_wrapper" > .deps/bin/tensorboard
    chmod +x .deps/bin/tensorboard
fi
echo "tensorboard: .deps/bin/tensorboard --logdir RUN/tb"

if ! $tests; then
    echo "setup done (main job): LIBTORCH=$PWD/$libtorch/torch (set by .cargo/config.toml); the test suites' parts: bash scripts/setup.sh --tests"
    exit 0
fi

# The Python package's tests: pinned, so its environment checks run against
# the APIs they were written for. One pip call (with --upgrade) so the three
# resolve together and a changed pin replaces the old files.
test_pins="pytest==9.2.0 pettingzoo==1.27.0 gymnasium==1.4.0"
missing=$(python3 scripts/missing_pins.py $test_pins)
if [ -z "$missing" ]; then
    echo "pytest, pettingzoo, gymnasium: pinned versions already installed"
else
    echo "installing $test_pins into .deps/python"
    # shellcheck disable=SC2086 # the pins are words
    if ! pip_install --upgrade --target .deps/python $test_pins; then
        echo "error: could not install $test_pins into .deps/python (pip needs access to PyPI)" >&2
        exit 2
    fi
fi

# maturin builds the Python package (python/): pinned, in a directory of its
# own, so scripts/test.sh builds without fetching a build backend each time.
maturin_version=1.16.0
if [ "$(.deps/maturin/bin/maturin --version 2>/dev/null)" = "maturin $maturin_version" ]; then
    echo "maturin $maturin_version: already in .deps/maturin"
else
    echo "installing maturin $maturin_version into .deps/maturin"
    rm -rf .deps/maturin
    if ! pip_install --target .deps/maturin "maturin==$maturin_version"; then
        echo "error: could not install maturin==$maturin_version into .deps/maturin (pip needs access to PyPI)" >&2
        exit 2
    fi
fi

# An importable torch (CPU) for the PyTorch net of the Python package.
bash scripts/setup_torch_python.sh

# The Ray driver (scripts/ray) and its tests' servers, in the venv .deps/ray.
bash scripts/setup_ray.sh

# Chromium and Playwright for the browser tests of `junqi serve` (.deps/browser).
bash scripts/setup_browser.sh

echo "setup done: LIBTORCH=$PWD/$libtorch/torch (set by .cargo/config.toml)"
