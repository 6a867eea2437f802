#!/usr/bin/env bash
# Installs what the integration (extension host) and UI (browser) tests need, on Debian 12,
# idempotently, reaching only Debian's apt and the npm registry:
#   1. Debian packages: Chromium (the browser playwright-core drives), the headers that
#      code-server's native modules compile against, ripgrep, a compiler toolchain.
#   2. code-server (pinned), into .cache/code-server with its own package.json. It is not a
#      dependency of the project: its postinstall compiles native modules for about a minute
#      and would make every `npm install` slow and fragile.
# When everything is present this takes about a second: dpkg-query plus a stamp file.
#
# Environment:
#   AGENT_RUNS_CODE_SERVER_DIR  where code-server goes (default: <repo>/.cache/code-server)
#   AGENT_RUNS_SKIP_APT=1       do not check or install Debian packages (a machine set up
#                               some other way); code-server is still installed.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
# code-server 4.100.3 is the last release that runs on Node 20 (newer ones need 22 or 24).
REQUIRED_NODE_MAJOR=20
APT_PACKAGES=(
  chromium         # the browser for UI tests and the workbench of integration tests
  fonts-liberation # so text in screenshots renders with real glyphs
  ripgrep          # stands in for @vscode/ripgrep's GitHub download (see below)
  squid            # the company proxy of the network fault scenarios (test/faults/support/squid.ts)
  openssl          # the private CA those scenarios make at test time
  libkrb5-dev      # kerberos (a code-server native module)
  libxkbfile-dev   # native-keymap
  libsecret-1-dev  # keytar-style secret storage modules
  pkg-config
  python3          # node-gyp
  make
  g++
)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${AGENT_RUNS_CODE_SERVER_DIR:-$ROOT/.cache/code-server}"
STAMP="$CACHE_DIR/.installed"

say() { printf '[test-setup] %s\n' "$*"; }
die() {
  printf '[test-setup] ERROR: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '[test-setup]   %s\n' "$line" >&2; done
  exit 1
}

# ---------------------------------------------------------------------------------------
# Node
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)"
if [ "$node_major" != "$REQUIRED_NODE_MAJOR" ]; then
  die "code-server $CODE_SERVER_VERSION needs Node $REQUIRED_NODE_MAJOR, found: $node_major." \
    "Install Node $REQUIRED_NODE_MAJOR (the extension host of VS Code 1.100 runs Node 20)."
fi

# ---------------------------------------------------------------------------------------
# Debian packages
missing_apt_packages() {
  local pkg status
  for pkg in "${APT_PACKAGES[@]}"; do
    status="$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)"
    case "$status" in ii*) ;; *) printf '%s\n' "$pkg" ;; esac
  done
}

if [ "${AGENT_RUNS_SKIP_APT:-}" = "1" ]; then
  say "AGENT_RUNS_SKIP_APT=1: not checking Debian packages"
elif ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  die "this is not a Debian-like system (no dpkg-query/apt-get), so the test tools cannot be installed." \
    "Needed (Debian names): ${APT_PACKAGES[*]}" \
    "Install their equivalents, then run again with AGENT_RUNS_SKIP_APT=1."
else
  mapfile -t missing < <(missing_apt_packages)
  if [ "${#missing[@]}" -eq 0 ]; then
    say "Debian packages present"
  else
    say "missing Debian packages: ${missing[*]}"
    as_root=()
    if [ "$(id -u)" != 0 ]; then
      if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
      else
        die "not root and no password-less sudo, so these Debian packages cannot be installed: ${missing[*]}" \
          "Run as root:  apt-get update && apt-get install -y ${missing[*]}" \
          "then run this script again."
      fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! "${as_root[@]}" apt-get update -qq; then
      die "apt-get update failed: Debian's package mirror is unreachable or misconfigured." \
        "Still missing: ${missing[*]}"
    fi
    if ! "${as_root[@]}" apt-get install -y -qq "${missing[@]}"; then
      die "apt-get install failed for: ${missing[*]}" \
        "Check that Debian's package mirror is reachable (see the apt output above)."
    fi
    mapfile -t still_missing < <(missing_apt_packages)
    if [ "${#still_missing[@]}" -ne 0 ]; then
      die "still missing after apt-get install: ${still_missing[*]}"
    fi
    say "installed: ${missing[*]}"
  fi
fi

# ---------------------------------------------------------------------------------------
# code-server
# The stamp names everything the compiled native modules depend on: a change of code-server
# version, Node ABI or architecture reinstalls from scratch.
node_abi="$(node -p 'process.versions.modules')"
arch="$(node -p 'process.arch')"
expected_stamp="code-server@$CODE_SERVER_VERSION node-abi-$node_abi linux-$arch"
code_server_bin="$CACHE_DIR/node_modules/code-server/out/node/entry.js"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$expected_stamp" ] && [ -f "$code_server_bin" ]; then
  say "code-server $CODE_SERVER_VERSION present in ${CACHE_DIR#"$ROOT"/}"
  exit 0
fi

# Two test runs starting at once must not install into the same folder together: the
# second waits for the first, then finds the stamp.
mkdir -p "$(dirname "$CACHE_DIR")"
exec 9>"$CACHE_DIR.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
  if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$expected_stamp" ] && [ -f "$code_server_bin" ]; then
    say "code-server $CODE_SERVER_VERSION present in ${CACHE_DIR#"$ROOT"/} (installed by a concurrent run)"
    exit 0
  fi
fi

case "$arch" in
  x64) rg_target=x86_64-unknown-linux-musl ;;
  arm64) rg_target=aarch64-unknown-linux-musl ;;
  *) die "unsupported architecture for the ripgrep stand-in: $arch (supported: x64, arm64)" ;;
esac
rg_bin="$(command -v rg || true)"
[ -n "$rg_bin" ] || die "ripgrep (rg) is not on PATH; install Debian's ripgrep package."

say "installing code-server $CODE_SERVER_VERSION into ${CACHE_DIR#"$ROOT"/} (about a minute, ~300 MB)"
start_seconds=$SECONDS
rm -rf "$CACHE_DIR/node_modules" "$CACHE_DIR/package-lock.json" "$CACHE_DIR/tmp" "$STAMP"
mkdir -p "$CACHE_DIR/tmp"

# allowScripts records which packages may run install scripts (npm 11 warns about the
# others; a stricter npm would skip them).
cat >"$CACHE_DIR/package.json" <<JSON
{
  "name": "agent-runs-test-code-server",
  "private": true,
  "description": "code-server for Agent Runs' integration and UI tests; installed by scripts/setup-test-env.sh, not a project dependency.",
  "dependencies": {
    "code-server": "$CODE_SERVER_VERSION"
  },
  "allowScripts": {
    "code-server": true,
    "argon2": true
  }
}
JSON

export npm_config_unsafe_perm=true     # code-server's postinstall refuses to run as root otherwise
export npm_config_yes=true             # node-pty's postinstall runs `npx node-gyp`: no prompt
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

cd "$CACHE_DIR"
# Phase 1 without scripts: it brings code-server's files, whose lock file names the
# @vscode/ripgrep version that its postinstall will install.
if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=error; then
  die "npm install code-server@$CODE_SERVER_VERSION failed: is the npm registry reachable?"
fi

# code-server's postinstall runs `npm install` in lib/vscode and lib/vscode/extensions: give
# those projects the same allowScripts record for the native modules they compile.
node -e '
  const fs = require("fs");
  const allow = ["@parcel/watcher", "@vscode/deviceid", "@vscode/spdlog", "@vscode/ripgrep",
    "@vscode/windows-process-tree", "@vscode/windows-registry", "kerberos", "native-watchdog",
    "node-pty"];
  for (const file of ["node_modules/code-server/lib/vscode/package.json",
                      "node_modules/code-server/lib/vscode/extensions/package.json"]) {
    const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
    pkg.allowScripts = Object.fromEntries(allow.map((name) => [name, true]));
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
  }
'

# @vscode/ripgrep's postinstall downloads ripgrep from GitHub, unreachable here. It first
# looks for the archive in $TMPDIR/vscode-ripgrep-cache-<package version>/; put Debian's rg
# there, under the asset name its postinstall asks for (read from the package itself).
rg_pkg_version="$(node -e '
  const lock = require("./node_modules/code-server/lib/vscode/npm-shrinkwrap.json");
  const entry = lock.packages && lock.packages["node_modules/@vscode/ripgrep"];
  if (!entry) { process.exit(1); }
  console.log(entry.version);
')" || die "cannot find @vscode/ripgrep in code-server's lib/vscode/npm-shrinkwrap.json"
rg_pack_dir="$CACHE_DIR/tmp/ripgrep-package"
mkdir -p "$rg_pack_dir"
rg_tgz="$(cd "$rg_pack_dir" && npm pack "@vscode/ripgrep@$rg_pkg_version" --silent)" ||
  die "npm pack @vscode/ripgrep@$rg_pkg_version failed"
tar -xzf "$rg_pack_dir/$rg_tgz" -C "$rg_pack_dir" package/lib/postinstall.js package/lib/download.js
rg_asset_version="$(sed -n "s/^const VERSION = '\(v[^']*\)';.*/\1/p" "$rg_pack_dir/package/lib/postinstall.js")"
[ -n "$rg_asset_version" ] || die "cannot read the asset VERSION from @vscode/ripgrep@$rg_pkg_version's postinstall.js"
grep -q 'vscode-ripgrep-cache-${packageVersion}' "$rg_pack_dir/package/lib/download.js" ||
  die "@vscode/ripgrep@$rg_pkg_version no longer uses the download cache this script relies on"
rg_cache="$CACHE_DIR/tmp/vscode-ripgrep-cache-$rg_pkg_version"
mkdir -p "$rg_cache" "$CACHE_DIR/tmp/rg-root"
cp "$rg_bin" "$CACHE_DIR/tmp/rg-root/rg"
tar -czf "$rg_cache/ripgrep-$rg_asset_version-$rg_target.tar.gz" -C "$CACHE_DIR/tmp/rg-root" rg
say "ripgrep stand-in: @vscode/ripgrep $rg_pkg_version, asset $rg_asset_version-$rg_target, from $rg_bin"

# Phase 2: the install scripts (code-server's postinstall installs VS Code's own modules
# and compiles the native ones).
export TMPDIR="$CACHE_DIR/tmp"
if ! npm rebuild --foreground-scripts --loglevel=error >"$CACHE_DIR/tmp/install.log" 2>&1; then
  tail -n 60 "$CACHE_DIR/tmp/install.log" >&2
  die "code-server's install scripts failed (full log: ${CACHE_DIR#"$ROOT"/}/tmp/install.log)." \
    "Usual causes: a missing Debian package above, or the npm registry unreachable."
fi

# XDG_CONFIG_HOME: code-server writes a default config file there on first start.
version_line="$(XDG_CONFIG_HOME="$CACHE_DIR/tmp/xdg" node "$code_server_bin" --version 2>/dev/null |
  grep -E '^[0-9]+\.[0-9]+\.[0-9]+ ' | head -n 1 || true)"
case "$version_line" in
  "$CODE_SERVER_VERSION "*) ;;
  *) die "code-server does not start after install (it printed: '$version_line'); see ${CACHE_DIR#"$ROOT"/}/tmp/install.log" ;;
esac
printf '%s' "$expected_stamp" >"$STAMP"
rm -rf "$CACHE_DIR/tmp/rg-root" "$CACHE_DIR/tmp/xdg" "$rg_pack_dir"
say "code-server $CODE_SERVER_VERSION installed in $((SECONDS - start_seconds)) s"
