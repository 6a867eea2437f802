// How the setup scripts install Debian packages (scripts/lib/code-server.sh), with apt-get,
// dpkg-query and systemctl replaced by recorders on PATH: only the missing packages, each said
// with why before apt runs, --no-upgrade, the upgrades apt would make said first, squid not
// enabled at boot, and a clear refusal without root.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { paths } from '../../support/paths';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Every recorded command, in order, as `name args…`. */
  readonly calls: string[];
}

/** Runs ensure_debian_packages with fake tools: `installed` are present, the rest appear once apt-get installs them. */
function ensure(packages: readonly string[], options: { installed: readonly string[]; uid?: number; upgrades?: readonly string[] }): Run {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-runs-apt-'));
  try {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    const calls = path.join(dir, 'calls');
    const db = path.join(dir, 'installed');
    fs.writeFileSync(db, options.installed.map((p) => `${p}\n`).join(''));
    fs.writeFileSync(calls, '');
    const tool = (name: string, body: string): void => {
      fs.writeFileSync(path.join(bin, name), `#!/bin/bash\necho "${name} $*" >> ${calls}\n${body}\n`, { mode: 0o755 });
    };
    // dpkg-query -W -f=... NAME: "ii " when NAME is in the fake database.
    tool('dpkg-query', `grep -qx "\${@: -1}" ${db} && printf 'ii ' || exit 1`);
    const simulated = (options.upgrades ?? []).map((p) => `echo "Inst ${p} [1.0] (1.1 Debian:12.5/stable [amd64])"`).join('\n');
    tool('apt-get', `case "$*" in *" -s "*) ${simulated || ':'} ;; install*) for a in "$@"; do case "$a" in -*|install) ;; *) echo "$a" >> ${db} ;; esac; done ;; esac`);
    tool('id', `echo ${options.uid ?? 0}`);
    tool('sudo', 'exit 1');
    tool('systemctl', ':');
    tool('update-rc.d', ':');
    const script = `ROOT=${JSON.stringify(paths.repoRoot)}; SAY_PREFIX=t; . scripts/lib/code-server.sh; ensure_debian_packages "$@"`;
    const run = spawnSync('bash', ['-c', script, 'bash', ...packages], {
      cwd: paths.repoRoot, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, AGENT_RUNS_SKIP_APT: '' },
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, calls: fs.readFileSync(calls, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('dpkg-query') && !l.startsWith('id')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('setup: Debian packages', () => {
  it('says each missing package and why before apt runs, installs only those with --no-upgrade, says what apt would upgrade', () => {
    const run = ensure(['make|a build', 'squid|the proxy of the network tests', 'g++|a compiler'], { installed: ['make'], upgrades: ['perl'] });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 4), [
      '[t] will install these Debian packages (apt-get install --no-upgrade):',
      '[t]   squid: the proxy of the network tests',
      '[t]   g++: a compiler',
      '[t]   apt also upgrades, because the packages above need newer versions of them: perl',
    ]);
    assert.match(run.stdout, /\[t\] installed: squid g\+\+\n/);
    assert.deepEqual(run.calls, [
      'apt-get update -qq',
      'apt-get install -s --no-upgrade -y squid g++',
      'apt-get install --no-upgrade -y -qq squid g++',
      'systemctl disable squid.service',
      'update-rc.d squid disable',
    ], 'squid is not left enabled at boot');
  });

  it('does nothing but say so when all are present', () => {
    const run = ensure(['make|a build', 'g++|a compiler'], { installed: ['make', 'g++'] });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '[t] Debian packages present: make g++\n');
    assert.deepEqual(run.calls, []);
  });

  it('without root or password-less sudo: installs nothing and gives the command to run', () => {
    const run = ensure(['make|a build', 'g++|a compiler'], { installed: [], uid: 1000 });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /not root and no password-less sudo, so these Debian packages cannot be installed: make g\+\+/);
    assert.match(run.stderr, /Run as root: {2}apt-get update && apt-get install --no-upgrade -y make g\+\+/);
    assert.deepEqual(run.calls.filter((c) => c.startsWith('apt-get')), []);
  });
});
