#!/usr/bin/env bash
# Run every test of the project on a fresh machine: check the toolchain,
# then build and run all tests (unit, integration, CLI, doc tests, and each
# criterion benchmark once in test mode).
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
cargo test --workspace --all-targets --locked
cargo test --workspace --doc --locked
