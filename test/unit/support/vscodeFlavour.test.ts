// Which VS Code the real-editor tiers start (test/support/paths.ts): code-server 4.100.3 on this
// process's Node by default, code-server 4.139.1 on the cached Node 24 with AGENT_RUNS_VSCODE=latest
// or a launcher's --vscode latest; and the setup script's matching option.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { codeServerInstall, minimumNode, parseVsCodeFlavour, paths, takeVsCodeFlag, VSCODE_FLAVOUR_ENV, vscodeFlavour } from '../../support/paths';

const OVERRIDES = [VSCODE_FLAVOUR_ENV, 'AGENT_RUNS_CODE_SERVER_DIR', 'AGENT_RUNS_CODE_SERVER_LATEST_DIR', 'AGENT_RUNS_NODE20_DIR', 'AGENT_RUNS_NODE24_DIR'] as const;

describe('harness: the VS Code flavour', () => {
  let saved: Record<string, string | undefined>;
  beforeEach(() => {
    saved = Object.fromEntries(OVERRIDES.map((name) => [name, process.env[name]]));
    OVERRIDES.forEach((name) => delete process.env[name]);
  });
  afterEach(() => {
    for (const name of OVERRIDES) {
      if (saved[name] === undefined) {
        delete process.env[name];
      } else {
        process.env[name] = saved[name];
      }
    }
  });

  it('is the minimum (1.100) unless latest is asked for; an unknown name is refused with the accepted ones', () => {
    assert.equal(parseVsCodeFlavour(undefined), 'minimum');
    assert.equal(parseVsCodeFlavour(''), 'minimum');
    assert.equal(parseVsCodeFlavour('1.100'), 'minimum');
    assert.equal(parseVsCodeFlavour('minimum'), 'minimum');
    assert.equal(parseVsCodeFlavour('latest'), 'latest');
    assert.equal(parseVsCodeFlavour('1.139'), 'latest');
    assert.throws(() => parseVsCodeFlavour('insiders'), /AGENT_RUNS_VSCODE \(or --vscode\) must be one of minimum, 1\.100, latest, 1\.139, not "insiders"/);
    assert.equal(vscodeFlavour(), 'minimum');
    process.env[VSCODE_FLAVOUR_ENV] = 'latest';
    assert.equal(vscodeFlavour(), 'latest');
  });

  it('--vscode is taken out of a launcher\'s arguments and set for everything it starts', () => {
    const argv = ['--grep', 'panel', '--vscode', '1.139', 'workbench'];
    assert.equal(takeVsCodeFlag(argv), 'latest');
    assert.deepEqual(argv, ['--grep', 'panel', 'workbench']);
    assert.equal(process.env[VSCODE_FLAVOUR_ENV], 'latest', 'code-server and its extension host inherit it');
    const without = ['--grep', 'x'];
    assert.equal(takeVsCodeFlag(without), 'latest', 'no flag: the environment decides');
    assert.deepEqual(without, ['--grep', 'x']);
    assert.throws(() => takeVsCodeFlag(['--vscode']), /not "<missing>"/);
  });

  it('1.100 is code-server in .cache/code-server run by Node 20 (this one if it is 20, else .cache/node20), its payload taken as is', () => {
    const install = codeServerInstall('minimum');
    assert.equal(install.node, minimumNode());
    assert.equal(minimumNode('20.19.0'), process.execPath);
    assert.equal(minimumNode('22.12.0'), path.join(paths.repoRoot, '.cache', 'node20', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'));
    process.env.AGENT_RUNS_NODE20_DIR = '/opt/n20';
    assert.equal(minimumNode('24.1.0'), path.join('/opt/n20', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'));
    assert.equal(install.entry, path.join(paths.repoRoot, '.cache', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js'));
    assert.deepEqual(install.extensionTestArgs, []);
    assert.equal(paths.codeServerEntry, install.entry, 'paths follows the flavour in force');
  });

  it('latest is code-server in .cache/code-server-latest run by the Node 24 in .cache/node24, with the smoke-test driver for extension tests', () => {
    const install = codeServerInstall('latest');
    assert.equal(install.node, path.join(paths.repoRoot, '.cache', 'node24', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'));
    assert.equal(install.entry, path.join(paths.repoRoot, '.cache', 'code-server-latest', 'node_modules', 'code-server', 'out', 'node', 'entry.js'));
    assert.deepEqual(install.extensionTestArgs, ['--vscode-option', 'enable-smoke-test-driver']);
    assert.match(install.setupCommand, /--vscode latest/);
    process.env[VSCODE_FLAVOUR_ENV] = 'latest';
    assert.equal(paths.codeServerEntry, install.entry);
    process.env.AGENT_RUNS_NODE24_DIR = '/opt/n24';
    process.env.AGENT_RUNS_CODE_SERVER_LATEST_DIR = '/opt/cs';
    assert.equal(codeServerInstall().node, path.join('/opt/n24', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node'));
    assert.equal(codeServerInstall().entry, path.join('/opt/cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js'));
  });

  it('the setup script refuses an unknown --vscode before it installs anything', () => {
    const run = spawnSync('bash', [path.join(paths.repoRoot, 'scripts', 'setup-test-env.sh'), '--vscode', 'insiders'], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /--vscode must be minimum \(code-server 4\.100\.3\), latest \(code-server 4\.139\.1\) or all, not 'insiders'/);
    assert.doesNotMatch(run.stdout, /Debian packages|install/);
  });
});
