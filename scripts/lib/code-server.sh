# Shared by scripts/setup-test-env.sh and scripts/setup-demo.sh (sourced, not run): installs a
# Node of a given version and code-server into git-ignored folders under .cache/, each with its
# own package.json, reaching only the npm registry, and says what it does first.
# The caller sets ROOT (the repository) and SAY_PREFIX (e.g. test-setup) before sourcing it.

say() { printf '[%s] %s\n' "$SAY_PREFIX" "$*"; }
die() {
  printf '[%s] ERROR: %s\n' "$SAY_PREFIX" "$1" >&2
  shift
  for line in "$@"; do printf '[%s]   %s\n' "$SAY_PREFIX" "$line" >&2; done
  exit 1
}
rel() { printf '%s' "${1#"$ROOT"/}"; }

# name|why of the compilers and headers code-server's install builds its native modules with.
CODE_SERVER_BUILD_PACKAGES=(
  "libkrb5-dev|headers code-server's kerberos module compiles against"
  "libxkbfile-dev|headers code-server's native-keymap module compiles against"
  "libsecret-1-dev|headers code-server's secret storage module compiles against"
  "pkg-config|finds those headers for node-gyp"
  "python3|node-gyp, which compiles code-server's native modules"
  "make|node-gyp's build"
  "g++|node-gyp's compiler"
)

# ---------------------------------------------------------------------------------------
# Debian packages: only the missing ones, each said with why before anything is installed.

# missing_debian_packages "name|why"...: prints the entries whose package is not installed.
missing_debian_packages() {
  local entry status
  for entry in "$@"; do
    status="$(dpkg-query -W -f='${db:Status-Abbrev}' "${entry%%|*}" 2>/dev/null || true)"
    case "$status" in ii*) ;; *) printf '%s\n' "$entry" ;; esac
  done
}

# ensure_debian_packages "name|why"...: installs the missing ones with apt-get (as root, or with
# password-less sudo), after saying each one and why. --no-upgrade: a package already present is
# never upgraded; what apt would upgrade to satisfy a new package's dependencies is said first.
# Daemons among them are not started by the install nor enabled at boot (see no_daemons).
ensure_debian_packages() {
  local entry missing=() names=() as_root=()
  if [ "${AGENT_RUNS_SKIP_APT:-}" = "1" ]; then
    say "AGENT_RUNS_SKIP_APT=1: not checking Debian packages"
    return 0
  fi
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    for entry in "$@"; do names+=("${entry%%|*}"); done
    die "this is not a Debian-like system (no dpkg-query/apt-get), so these cannot be installed here." \
      "Needed (Debian names): ${names[*]}" \
      "Install their equivalents, then run again with AGENT_RUNS_SKIP_APT=1."
  fi
  mapfile -t missing < <(missing_debian_packages "$@")
  if [ "${#missing[@]}" -eq 0 ]; then
    for entry in "$@"; do names+=("${entry%%|*}"); done
    say "Debian packages present: ${names[*]}"
    return 0
  fi
  for entry in "${missing[@]}"; do names+=("${entry%%|*}"); done
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      die "not root and no password-less sudo, so these Debian packages cannot be installed: ${names[*]}" \
        "Run as root:  apt-get update && apt-get install --no-upgrade -y ${names[*]}" \
        "then run this again (or set AGENT_RUNS_SKIP_APT=1 if you installed them another way)."
    fi
  fi
  say "will install these Debian packages (apt-get install --no-upgrade):"
  for entry in "${missing[@]}"; do say "  ${entry%%|*}: ${entry#*|}"; done
  export DEBIAN_FRONTEND=noninteractive
  if ! "${as_root[@]}" apt-get update -qq; then
    die "apt-get update failed: Debian's package mirror is unreachable or misconfigured." "Still missing: ${names[*]}"
  fi
  local upgrades
  upgrades="$("${as_root[@]}" apt-get install -s --no-upgrade -y "${names[@]}" 2>/dev/null | sed -n 's/^Inst \([^ ]*\) \[.*/\1/p' | paste -sd ' ')"
  if [ -n "$upgrades" ]; then
    say "  apt also upgrades, because the packages above need newer versions of them: $upgrades"
  fi
  no_daemons "${as_root[@]}" apt-get install --no-upgrade -y -qq "${names[@]}" ||
    die "apt-get install failed for: ${names[*]}" "Check that Debian's package mirror is reachable (see the apt output above)."
  mapfile -t missing < <(missing_debian_packages "$@")
  if [ "${#missing[@]}" -ne 0 ]; then
    die "still missing after apt-get install: $(printf '%s\n' "${missing[@]}" | cut -d'|' -f1 | tr '\n' ' ')"
  fi
  say "installed: ${names[*]}"
}

# no_daemons COMMAND...: runs an apt install so that a daemon it brings (squid: the tests start
# their own, on 127.0.0.1 with their own config) is neither started now nor enabled at boot.
no_daemons() {
  local policy=/usr/sbin/policy-rc.d placed=0 status=0 sudo_prefix=()
  [ "$1" = sudo ] && sudo_prefix=(sudo -n)
  if [ ! -e "$policy" ]; then
    # invoke-rc.d asks this file whether a package's install may start its service: 101 = no.
    printf '#!/bin/sh\n# Placed by Agent Runs'"'"' setup for the length of one apt-get install.\nexit 101\n' |
      "${sudo_prefix[@]}" tee "$policy" >/dev/null && "${sudo_prefix[@]}" chmod 755 "$policy" && placed=1
  fi
  "$@" || status=$?
  [ "$placed" = 1 ] && "${sudo_prefix[@]}" rm -f "$policy"
  if dpkg-query -W -f='${db:Status-Abbrev}' squid 2>/dev/null | grep -q '^ii'; then
    # What the package enabled at boot: off again (systemd links and SysV rc links).
    if command -v systemctl >/dev/null 2>&1; then "${sudo_prefix[@]}" systemctl disable squid.service >/dev/null 2>&1 || true; fi
    if command -v update-rc.d >/dev/null 2>&1; then "${sudo_prefix[@]}" update-rc.d squid disable >/dev/null 2>&1 || true; fi
  fi
  return "$status"
}

# ---------------------------------------------------------------------------------------
# A Node of an exact version, from the npm registry (node-linux-<arch>: Node's own release
# binaries with include/node, the headers native modules compile against, so no download from
# nodejs.org). The machine's Node is left alone.
case "$(uname -m)" in
  x86_64 | amd64) node_arch=x64 ;;
  aarch64 | arm64) node_arch=arm64 ;;
  *) node_arch="unsupported-$(uname -m)" ;;
esac
NODE_PACKAGE="node-linux-$node_arch"
# What node-gyp reads from a --nodedir: without them it would download headers from nodejs.org.
NODE_HEADERS=(include/node/node.h include/node/node_api.h include/node/common.gypi include/node/config.gypi)

cached_node_home() { printf '%s' "$1/node_modules/$NODE_PACKAGE"; } # DIR
cached_node_bin() { printf '%s' "$1/node_modules/$NODE_PACKAGE/bin/node"; } # DIR

cached_node_complete() { # VERSION DIR
  local header home
  home="$(cached_node_home "$2")"
  [ -f "$2/.installed" ] && [ "$(cat "$2/.installed")" = "$NODE_PACKAGE@$1" ] || return 1
  [ "$("$(cached_node_bin "$2")" --version 2>/dev/null || true)" = "v$1" ] || return 1
  for header in "${NODE_HEADERS[@]}"; do [ -f "$home/$header" ] || return 1; done
}

# install_cached_node VERSION DIR WHY. A subshell: its cd, exports and lock stay inside.
install_cached_node() (
  version="$1" dir="$2" why="$3"
  if cached_node_complete "$version" "$dir"; then
    say "Node $version present in $(rel "$dir")"
    exit 0
  fi
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  if command -v flock >/dev/null 2>&1; then
    flock 9
    if cached_node_complete "$version" "$dir"; then
      say "Node $version present in $(rel "$dir") (installed by a concurrent run)"
      exit 0
    fi
  fi
  case "$node_arch" in
    x64 | arm64) ;;
    *) die "no Node $version package for this machine ($(uname -m)); supported: x86_64, aarch64" ;;
  esac
  say "installing Node $version ($NODE_PACKAGE from the npm registry, ~30 MB) into $(rel "$dir"): $why"
  rm -rf "$dir/node_modules" "$dir/package-lock.json" "$dir/.installed"
  mkdir -p "$dir"
  cat >"$dir/package.json" <<JSON
{
  "name": "agent-runs-node-${version%%.*}",
  "private": true,
  "description": "Node $version for Agent Runs' demo and tests ($why); installed by scripts/lib/code-server.sh. The machine's Node is not replaced.",
  "dependencies": {
    "$NODE_PACKAGE": "$version"
  }
}
JSON
  cd "$dir"
  # The package has no install script; --ignore-scripts says so.
  if ! npm install --ignore-scripts --no-audit --no-fund --loglevel=error; then
    die "npm install $NODE_PACKAGE@$version failed: is the npm registry reachable?"
  fi
  node_bin="$(cached_node_bin "$dir")"
  printed="$("$node_bin" --version 2>&1 || true)"
  [ "$printed" = "v$version" ] || die "$(rel "$node_bin") does not run (it printed: '$printed')"
  for header in "${NODE_HEADERS[@]}"; do
    [ -f "$(cached_node_home "$dir")/$header" ] ||
      die "$NODE_PACKAGE@$version has no $header: code-server's native modules could not compile offline" \
        "(node-gyp would download the headers from nodejs.org, unreachable here)."
  done
  printf '%s' "$NODE_PACKAGE@$version" >"$dir/.installed"
  say "Node $version installed in $(rel "$dir")"
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
  "name": "agent-runs-code-server",
  "private": true,
  "description": "code-server for Agent Runs' demo and tests; installed by scripts/lib/code-server.sh, not a project dependency.",
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

