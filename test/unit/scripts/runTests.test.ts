// scripts/run-tests.js (`npm test`): tiers in order, side by side within a step, the first red
// step is the last one run, and the closing table lists every tier with its result and time.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { repoRoot } from '../../support/paths';

interface Tier { readonly name: string; readonly command: string; readonly args: readonly string[] }
interface Outcome { readonly name: string; readonly result: string; readonly seconds?: number }
interface RunTests {
  readonly PLAN: readonly (readonly Tier[])[];
  runPlan(plan: readonly (readonly Tier[])[], options: { cwd: string; out: NodeJS.WritableStream }): Promise<Outcome[]>;
  formatTable(outcomes: readonly Outcome[], totalSeconds: number): string;
}

const runTests = createRequire(__filename)(path.join(repoRoot, 'scripts', 'run-tests.js')) as RunTests;

/** A tier that writes `text` and exits with `code` after `ms`. */
function fake(name: string, code: number, text: string, ms = 0): Tier {
  return { name, command: process.execPath, args: ['-e', `setTimeout(() => { process.stdout.write(${JSON.stringify(text)}); process.exit(${code}); }, ${ms})`] };
}

async function run(plan: readonly (readonly Tier[])[]): Promise<{ outcomes: Outcome[]; printed: string }> {
  let printed = '';
  const out = new Writable({ write(chunk: Buffer, _enc, done) { printed += chunk.toString(); done(); } });
  const outcomes = await runTests.runPlan(plan, { cwd: repoRoot, out });
  return { outcomes, printed };
}

describe('npm test (scripts/run-tests.js)', function () {
  this.timeout(30_000);

  it('runs the steps in order and stops after the first red one; the table names every tier', async () => {
    const { outcomes, printed } = await run([[fake('a', 0, 'A ran\n')], [fake('b', 1, 'B ran\n')], [fake('c', 0, 'C ran\n')]]);
    assert.deepEqual(outcomes.map((o) => [o.name, o.result]), [['a', 'passed'], ['b', 'failed'], ['c', 'not run']]);
    assert.match(printed, /A ran\n[^]*B ran\n/);
    assert.doesNotMatch(printed, /C ran/);
    const table = runTests.formatTable(outcomes, 1.25);
    assert.match(table, /^tier\s+result\s+seconds$/m);
    assert.match(table, /^a\s+passed\s+\d+\.\d$/m);
    assert.match(table, /^b\s+failed\s+\d+\.\d$/m);
    assert.match(table, /^c\s+not run\s*$/m);
    assert.match(table, /^all\s+failed\s+1\.3$/m);
  });

  it('runs a step\'s tiers side by side, lets them all finish when one fails, and prints each one\'s output whole', async () => {
    const started = Date.now();
    const { outcomes, printed } = await run([[fake('slow', 0, 'slow line 1\nslow line 2\n', 2000), fake('quick red', 2, 'quick line\n', 0), fake('slow too', 0, 'also\n', 2000)], [fake('after', 0, 'after\n')]]);
    assert.ok(Date.now() - started < 4000, 'the two 2 s tiers ran side by side (one after the other takes 4 s or more)');
    assert.deepEqual(outcomes.map((o) => [o.name, o.result]), [['slow', 'passed'], ['quick red', 'failed'], ['slow too', 'passed'], ['after', 'not run']]);
    assert.match(printed, /── quick red \(failed, [\d.]+ s\) ──\nquick line\n/);
    assert.match(printed, /── slow \(passed, [\d.]+ s\) ──\nslow line 1\nslow line 2\n/);
    assert.match(runTests.formatTable(outcomes, 2), /^all\s+failed\s+2\.0$/m);
  });

  it('is green only when every tier passed', async () => {
    const { outcomes } = await run([[fake('a', 0, ''), fake('b', 0, '')], [fake('c', 0, '')]]);
    assert.deepEqual(outcomes.map((o) => o.result), ['passed', 'passed', 'passed']);
    assert.match(runTests.formatTable(outcomes, 3), /^all\s+passed\s+3\.0$/m);
  });

  it('runs the UI tier on 1.100 with the [both versions] checks only, and the whole UI tier on 1.139', () => {
    const ui = runTests.PLAN.flat().filter((t) => t.args.some((a) => a.endsWith('run-e2e.js')));
    assert.deepEqual(ui.map((t) => t.args.slice(1)), [['--grep', '\\[both versions\\]'], ['--vscode', 'latest']]);
    assert.ok(new RegExp(ui[0].args[2]).test('Test Explorer (UI) [both versions] right-click a test'));
  });
});
