#!/usr/bin/env bash
# Installs what the integration (extension host), UI (browser) and fault tests need, on Debian
# 12, idempotently, reaching only Debian's apt and the npm registry, and says what and why
# before installing anything:
#   1. Debian packages, only the missing ones (apt-get install --no-upgrade; a daemon among
#      them is neither started nor enabled at boot): Chromium, squid, the headers and compilers
#      code-server's native modules build with, ripgrep.
#   2. code-server 4.100.3 (VS Code 1.100, the oldest version the manifest accepts) into
#      .cache/code-server, run by Node 20: the machine's Node if it is 20, else Node 20 from the
#      npm package node-linux-<arch> in .cache/node20.
#   3. With --vscode latest or all, code-server 4.139.1 (VS Code 1.139) into
#      .cache/code-server-latest, run by Node 24 in .cache/node24 (`npm run test:latest`).
# With --vscode all the two code-servers install at the same time (each in its own folder).
# When everything is present this takes about a second: dpkg-query plus stamp files.
#
#   bash scripts/setup-test-env.sh [--vscode minimum|latest|all]     (default: minimum)
#
# Environment:
#   AGENT_RUNS_CODE_SERVER_DIR         where code-server 4.100.3 goes (default: <repo>/.cache/code-server)
#   AGENT_RUNS_CODE_SERVER_LATEST_DIR  where code-server 4.139.1 goes (default: <repo>/.cache/code-server-latest)
#   AGENT_RUNS_NODE20_DIR              where Node 20 goes when the machine's is not 20 (default: <repo>/.cache/node20)
#   AGENT_RUNS_NODE24_DIR              where Node 24 goes (default: <repo>/.cache/node24)
#   AGENT_RUNS_SKIP_APT=1              do not check or install Debian packages (a machine set up
#                                      some other way); code-server is still installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SAY_PREFIX=test-setup
# shellcheck source=lib/code-server.sh
. "$ROOT/scripts/lib/code-server.sh"

CODE_SERVER_VERSION=4.100.3
# code-server 4.100.3 is the last release that runs on Node 20 (newer ones need 22 or 24).
NODE20_VERSION=20.20.2
CODE_SERVER_LATEST_VERSION=4.139.1
NODE24_VERSION=24.21.0
# name|why: said before anything is installed.
DEBIAN_PACKAGES=(
  'chromium|the browser that drives the UI tests and shows the workbench of the integration tests'
  'fonts-liberation|real glyphs for text in test screenshots'
  "squid|the company proxy of the network fault tests (they start their own; it is not enabled at boot)"
  'openssl|the private certificate authority the network fault tests make'
  "ripgrep|stands in for @vscode/ripgrep's download from GitHub when code-server 4.100 installs"
  "${CODE_SERVER_BUILD_PACKAGES[@]}"
)

CODE_SERVER_DIR="${AGENT_RUNS_CODE_SERVER_DIR:-$ROOT/.cache/code-server}"
CODE_SERVER_LATEST_DIR="${AGENT_RUNS_CODE_SERVER_LATEST_DIR:-$ROOT/.cache/code-server-latest}"
NODE20_DIR="${AGENT_RUNS_NODE20_DIR:-$ROOT/.cache/node20}"
NODE24_DIR="${AGENT_RUNS_NODE24_DIR:-$ROOT/.cache/node24}"

flavours=minimum
while [ "$#" -gt 0 ]; do
  case "$1" in
    --vscode) flavours="${2:-}"; shift 2 || shift ;;
    --vscode=*) flavours="${1#--vscode=}"; shift ;;
    *) die "unknown argument: $1" "usage: bash scripts/setup-test-env.sh [--vscode minimum|latest|all]" ;;
  esac
done
case "$flavours" in
  minimum | latest | all) ;;
  *) die "--vscode must be minimum (code-server $CODE_SERVER_VERSION), latest (code-server $CODE_SERVER_LATEST_VERSION) or all, not '$flavours'" ;;
esac

# The project's own engines range (package.json: node >=20.19); code-server brings its own Node below.
node_version="$(node -p 'process.versions.node' 2>/dev/null || echo none)"
node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > 20 || (major === 20 && minor >= 19) ? 0 : 1);
' 2>/dev/null || die "Node >=20.19 is needed (package.json engines), found: $node_version."

ensure_debian_packages "${DEBIAN_PACKAGES[@]}"

# What the steps below will install, one line each, before they start.
if [ "$flavours" != latest ]; then
  if [ "${node_version%%.*}" != 20 ] && ! cached_node_complete "$NODE20_VERSION" "$NODE20_DIR"; then
    say "will install Node $NODE20_VERSION into $(rel "$NODE20_DIR") (~30 MB): code-server $CODE_SERVER_VERSION runs on Node 20; this machine has $node_version"
  fi
  [ -f "$CODE_SERVER_DIR/.installed" ] ||
    say "will install code-server $CODE_SERVER_VERSION into $(rel "$CODE_SERVER_DIR") (~300 MB, a few minutes): VS Code 1.100, the oldest the extension supports, for the integration, UI and fault tests"
fi
if [ "$flavours" != minimum ]; then
  cached_node_complete "$NODE24_VERSION" "$NODE24_DIR" ||
    say "will install Node $NODE24_VERSION into $(rel "$NODE24_DIR") (~30 MB): code-server $CODE_SERVER_LATEST_VERSION runs on Node 24"
  [ -f "$CODE_SERVER_LATEST_DIR/.installed" ] ||
    say "will install code-server $CODE_SERVER_LATEST_VERSION into $(rel "$CODE_SERVER_LATEST_DIR") (~700 MB, several minutes): today's VS Code 1.139, for the tests that run there too"
fi

# code-server 4.100.3 runs on Node 20: the machine's when it is 20 (test/support/paths.ts picks
# the same one), else the cached one.
minimum() {
  if [ "${node_version%%.*}" = 20 ]; then
    install_code_server "$CODE_SERVER_VERSION" "$CODE_SERVER_DIR" "$(command -v node)"
  else
    install_cached_node "$NODE20_VERSION" "$NODE20_DIR" "code-server $CODE_SERVER_VERSION runs on Node 20; this machine has $node_version"
    install_code_server "$CODE_SERVER_VERSION" "$CODE_SERVER_DIR" "$(cached_node_bin "$NODE20_DIR")" "$(cached_node_home "$NODE20_DIR")"
  fi
}
latest() {
  install_cached_node "$NODE24_VERSION" "$NODE24_DIR" "code-server $CODE_SERVER_LATEST_VERSION runs on Node 24"
  install_code_server "$CODE_SERVER_LATEST_VERSION" "$CODE_SERVER_LATEST_DIR" "$(cached_node_bin "$NODE24_DIR")" "$(cached_node_home "$NODE24_DIR")"
}

case "$flavours" in
  minimum) minimum ;;
  latest) latest ;;
  all)
    # Different folders, stamps and locks: the two installs do not share anything but the
    # npm cache, which npm keeps safe for concurrent use. Each says what it does as it goes.
    minimum &
    minimum_pid=$!
    latest &
    latest_pid=$!
    status=0
    wait "$minimum_pid" || status=1
    wait "$latest_pid" || status=1
    [ "$status" = 0 ] || die "a code-server install failed (see above)"
    ;;
esac
