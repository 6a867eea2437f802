// The commands one feature runs for another (src/base/common/ownCommands.ts) exist: each is declared
// in package.json (or is the focus command VS Code makes for a declared view), and every raw
// executeCommand('agentRuns.…') in src/ goes through runOwnCommand instead.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OWN_COMMANDS } from '../../../src/base/common/ownCommands';

function findRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'base'))) return dir;
  }
  return process.cwd();
}

interface Manifest {
  contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]> };
}

describe('own commands: the edges between features through the command registry', () => {
  const root = findRoot();
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
  const declared = new Set(manifest.contributes.commands.map((c) => c.command));
  const views = new Set(Object.values(manifest.contributes.views).flat().map((v) => v.id));

  it('each is declared in package.json, or focuses a declared view', () => {
    for (const id of OWN_COMMANDS) {
      const focused = id.endsWith('.focus') && views.has(id.slice(0, -'.focus'.length));
      assert.ok(declared.has(id) || focused, `${id} is run by a feature but declared nowhere`);
    }
  });

  it('every agentRuns.* command run in src/ is one of them', () => {
    const files = fs.readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const run = new Set<string>();
    for (const f of files) {
      const text = fs.readFileSync(path.join(root, 'src', f), 'utf8');
      for (const m of text.matchAll(/(?:runOwnCommand|executeCommand)\(\s*'(agentRuns\.[\w.]+)'/g)) run.add(m[1]);
    }
    assert.ok(run.size >= 5, `found only ${run.size} commands run: the scan is broken`);
    assert.deepEqual([...run].filter((id) => !(OWN_COMMANDS as readonly string[]).includes(id)), []);
  });
});
