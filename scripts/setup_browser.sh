#!/usr/bin/env bash
# Install what the browser tests of `junqi serve` (scripts/browser) need:
#
#   chromium             Debian's package (/usr/bin/chromium), and a font with
#                        Chinese glyphs (fonts-wqy-zenhei) for the pieces'
#                        names in screenshots, through apt-get (as root, or sudo)
#   .deps/browser        a venv with Playwright for Python (pinned), which
#                        drives that Chromium (no browser download), and pytest
#
# Idempotent: nothing is installed when it is already there. Then:
#   JUNQI_BIN=$PWD/target/debug/junqi .deps/browser/bin/python -m pytest scripts/browser -q
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONPATH

PINS="playwright==1.65.2 pytest==9.2.0"
venv=.deps/browser

if [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/truetype/wqy ]; then
    echo "chromium, fonts-wqy-zenhei: already installed"
else
    echo "installing Debian's chromium and fonts-wqy-zenhei (apt-get)"
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
            echo "error: installing chromium needs root (apt-get install chromium)" >&2
            exit 2
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! $sudo apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null; then
        $sudo apt-get update >/dev/null
        if ! $sudo apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null; then
            echo "error: apt-get could not install chromium and fonts-wqy-zenhei" >&2
            exit 2
        fi
    fi
fi

if [ ! -x "$venv/bin/python" ]; then
    echo "creating the virtual environment $venv"
    python3 -m venv "$venv" || { rm -rf "$venv"; echo "error: python3 -m venv failed" >&2; exit 2; }
fi
# shellcheck disable=SC2086
missing=$("$venv/bin/python" scripts/missing_pins.py $PINS)
if [ -z "$missing" ]; then
    echo "playwright, pytest: pinned versions already in $venv"
else
    echo "installing $PINS into $venv"
    # shellcheck disable=SC2086
    if ! PIP_ROOT_USER_ACTION=ignore "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $PINS; then
        echo "error: could not install $PINS into $venv (pip needs access to PyPI)" >&2
        exit 2
    fi
fi
echo "setup done: $venv, /usr/bin/chromium"
