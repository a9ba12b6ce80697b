#!/usr/bin/env bash
# Run every test of the project on a fresh machine: check the toolchain,
# then build and run all tests (doc tests, unit, integration and CLI tests,
# and each criterion benchmark once in test mode), and print one summary line.
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

log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked --doc 2>&1 | tee "$log"
cargo test --workspace --locked --all-targets 2>&1 | tee -a "$log"

# One closing line over every test binary: "tests: N passed, N failed".
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f; if (p == 0 || f > 0) exit 1 }' "$log"
