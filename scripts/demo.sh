#!/usr/bin/env bash
# `npm run demo`: installs what the demo needs (scripts/setup-demo.sh), builds the extension
# and the demo with their output kept in a log that is shown only if a step fails, then starts
# the demo (scripts/demo.ts), which ends by printing the URL to open, the apps and how to stop.
# Arguments go to the demo (see scripts/demo.ts): npm run demo -- --port 8080
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup-demo.sh

log="$(mktemp -t agent-runs-demo-build.XXXXXX)"
step() { # WHAT COMMAND...
  local what="$1"
  shift
  if ! "$@" >>"$log" 2>&1; then
    cat "$log" >&2
    printf '[demo] %s failed: its output is above (and in %s).\n' "$what" "$log" >&2
    exit 1
  fi
}
printf '[demo] building the extension and starting VS Code (about a minute)...\n'
step "building the extension (npm run package)" npm run package
step "compiling the demo (npm run compile-tests)" npm run compile-tests
rm -f "$log"
exec node out/scripts/demo.js "$@"
