#!/usr/bin/env bash
# Check (scripts/test.sh) that the main job's setup, the line scripts/demo.sh
# runs, needs no root and none of the test suites' parts: run under a PATH
# whose apt-get, sudo, dpkg and browsers only record that they were called
# (and whose `id -u` answers as a user), it must call none of them, start
# neither the Ray nor the browser setup script, and end with its own closing
# line. Then the tensorboard command it leaves must run. Seconds once
# scripts/setup.sh has installed everything.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check_setup: $*" >&2; exit 1; }

setup_line=$(grep -E '^bash scripts/setup\.sh' scripts/demo.sh) || fail "scripts/demo.sh runs no scripts/setup.sh line"
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
for cmd in apt-get apt dpkg sudo su chromium chromium-browser google-chrome; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\nexit 1\n' "$cmd" "$stubs" > "$stubs/$cmd"
done
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec %s "$@"\n' "$(command -v id)" > "$stubs/id"
chmod +x "$stubs"/*

# BASH_ENV runs in every bash that starts: it records each script's name.
printf 'echo "$0" >> "%s/scripts"\n' "$stubs" > "$stubs/bash_env"
if ! env PATH="$stubs:$PATH" BASH_ENV="$stubs/bash_env" bash -c "$setup_line" > "$stubs/out" 2>&1; then
    cat "$stubs/out" >&2
    fail "'$setup_line' failed without root"
fi
[ ! -s "$stubs/calls" ] || fail "'$setup_line' called: $(tr '\n' ';' < "$stubs/calls")"
grep -q 'scripts/setup\.sh' "$stubs/scripts" || fail "no scripts/setup.sh started (BASH_ENV unused?)"
if grep -E 'setup_(ray|browser)\.sh' "$stubs/scripts"; then
    fail "'$setup_line' ran a test suite's setup (the scripts above)"
fi
grep -q '^setup done (main job)' "$stubs/out" || fail "'$setup_line' did not print its closing line"

version=$(.deps/bin/tensorboard --version 2>/dev/null) || fail ".deps/bin/tensorboard --version failed"
[[ "$version" =~ ^[0-9]+\.[0-9]+ ]] || fail ".deps/bin/tensorboard --version printed '$version', not a version"
echo "check_setup: '$setup_line' ran without root, apt-get or a browser; .deps/bin/tensorboard $version"
