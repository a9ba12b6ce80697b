#!/usr/bin/env bash
# Install the Ray driver (scripts/ray, the `junqi-ray` command) and what its
# tests need into the virtual environment .deps/ray (git-ignored):
#
#   ray[default] 2.60.0, pyarrow    the driver and its tasks
#   junqi-ray (editable)            scripts/ray itself, so edits need no reinstall
#   moto[server], boto3, pytest     scripts/ray/tests (a local S3-compatible server)
#
# Idempotent: nothing is installed when the pinned versions are already there.
# Then: .deps/ray/bin/junqi-ray --help, and the tests with
#   JUNQI_BIN=$PWD/target/debug/junqi .deps/ray/bin/python -m pytest scripts/ray/tests -q
# See docs/distributed.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# The venv stands alone: packages on a PYTHONPATH (scripts/setup.sh's
# .deps/python holds pytest and another pyarrow) would satisfy its pins
# here and be missing, or shadow the pinned ones, when it runs.
unset PYTHONPATH

PINS="ray[default]==2.60.0 pyarrow==26.0.1 moto[server]==5.2.5 boto3==1.44.8 pytest==9.2.0"
venv=.deps/ray

if ! command -v python3 >/dev/null 2>&1; then
    echo "error: python3 not found; the Ray driver needs Python 3.9 or newer with venv" >&2
    exit 2
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "creating the virtual environment $venv"
    if ! python3 -m venv "$venv"; then
        rm -rf "$venv"
        echo "error: python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
        exit 2
    fi
fi
py="$venv/bin/python"
pip_install() {
    PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check "$@"
}

# Which pins are missing (name==version, extras ignored), and whether the
# driver is installed from this checkout.
# shellcheck disable=SC2086 # the pins are words
missing=$("$py" scripts/missing_pins.py $PINS)
if [ -z "$missing" ]; then
    echo "ray, pyarrow, moto, boto3, pytest: pinned versions already in $venv"
else
    echo "installing $PINS into $venv (ray is about 70 MB)"
    # shellcheck disable=SC2086
    if ! pip_install $PINS; then
        echo "error: could not install $PINS into $venv (pip needs access to PyPI)" >&2
        exit 2
    fi
fi

here="$PWD/scripts/ray"
if "$py" -c "import junqi_ray, os, sys; sys.exit(os.path.dirname(os.path.dirname(os.path.abspath(junqi_ray.__file__))) != sys.argv[1])" "$here" 2>/dev/null \
    && [ -x "$venv/bin/junqi-ray" ]; then
    echo "junqi-ray: already installed (editable) from scripts/ray"
else
    echo "installing junqi-ray (editable) from scripts/ray into $venv"
    if ! pip_install --no-deps -e "$here"; then
        echo "error: could not install scripts/ray into $venv" >&2
        exit 2
    fi
fi
echo "setup done: $venv/bin/junqi-ray"
