#!/usr/bin/env bash
# Installs what `npm run demo` needs and nothing for the tests, saying each item and why
# before installing it: code-server 4.139.1 (today's VS Code, served to your own browser) into
# .cache/code-server-latest, and the Node 24 it runs on into .cache/node24 (the machine's Node,
# >=20.19, is left alone). code-server's install compiles a few native modules: the compilers
# and headers for that are the only Debian packages it may install, and only those missing.
# Nothing when all is present (about a second).
#
#   bash scripts/setup-demo.sh
#
# Environment: AGENT_RUNS_CODE_SERVER_LATEST_DIR, AGENT_RUNS_NODE24_DIR, AGENT_RUNS_SKIP_APT=1
# (as for scripts/setup-test-env.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAY_PREFIX=demo-setup
# shellcheck source=lib/code-server.sh
. "$ROOT/scripts/lib/code-server.sh"

# The same versions as scripts/setup-test-env.sh's latest: the demo reuses the tests' install.
CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.21.0
CODE_SERVER_DIR="${AGENT_RUNS_CODE_SERVER_LATEST_DIR:-$ROOT/.cache/code-server-latest}"
NODE24_DIR="${AGENT_RUNS_NODE24_DIR:-$ROOT/.cache/node24}"
node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1);
' 2>/dev/null || die "Node >=20.19 is needed (package.json engines), found: $(node --version 2>/dev/null || echo none)."

node24_ready=0
cached_node_complete "$NODE24_VERSION" "$NODE24_DIR" && node24_ready=1
if [ "$node24_ready" = 1 ] && code_server_complete "$CODE_SERVER_DIR" "$CODE_SERVER_VERSION" "$(cached_node_bin "$NODE24_DIR")"; then
  exit 0 # all present: say nothing, the demo's own lines follow
fi
[ "$node24_ready" = 1 ] ||
  say "will install Node $NODE24_VERSION into $(rel "$NODE24_DIR") (~30 MB, npm registry): code-server $CODE_SERVER_VERSION runs on Node 24"
say "will install code-server $CODE_SERVER_VERSION into $(rel "$CODE_SERVER_DIR") (~700 MB, several minutes the first time): the VS Code the demo serves"
ensure_debian_packages "${CODE_SERVER_BUILD_PACKAGES[@]}"
install_cached_node "$NODE24_VERSION" "$NODE24_DIR" "code-server $CODE_SERVER_VERSION runs on Node 24"
install_code_server "$CODE_SERVER_VERSION" "$CODE_SERVER_DIR" "$(cached_node_bin "$NODE24_DIR")" "$(cached_node_home "$NODE24_DIR")"
