#!/usr/bin/env bash
# Build the TypeScript client and the chat-server example, and run all their
# tests (node's built-in runner) against real graphwire server processes.
#
#   clients/typescript/test.sh            # from anywhere
#   GRAPHWIRE_PYTHON=/path/to/python ...  # the interpreter that runs the server
#                                         # (default python3; it needs the repo's
#                                         # server installed: pip install -e proto/python -e clients/python -e '.[test]')
#
# `npm ci` is skipped for a package whose node_modules was installed from the
# same package-lock.json by the same Node, so a second run needs no network.
# Exits non-zero when anything fails; the last lines are node's test summary.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
example="$repo/examples/chat-server-ts"

major="$(node -p 'process.versions.node.split(".")[0]')"
if (( major < 20 )); then
  echo "test.sh: Node.js 20 or newer is needed (found $(node --version))" >&2
  exit 1
fi

install() {
  local dir="$1"
  local stamp="$dir/node_modules/.graphwire-installed"
  local want
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1) node-$(node --version)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return
  fi
  echo "test.sh: npm ci in ${dir#"$repo"/}"
  # No package here needs an install script; not running them is safer.
  (cd "$dir" && npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
}

build() {
  local dir="$1"
  echo "test.sh: checking formatting and building ${dir#"$repo"/}"
  rm -rf "$dir/dist" "$dir/build"
  (cd "$dir" && npm run --silent format:check && npm run --silent build && npm run --silent build:test)
}

install "$here"
build "$here"
install "$example" # links @graphwire/client to clients/typescript, so it comes second
build "$example"

cd "$repo"
exec node --test --test-reporter=spec --test-timeout=120000 \
  clients/typescript/build/test/*.test.js \
  examples/chat-server-ts/build/*.test.js
