// @ts-check
/**
 * `npm test`: every tier in order, stopping at the first red one, then a table of each tier's
 * result and seconds (also when a tier failed, or on Ctrl+C).
 *
 *   node scripts/run-tests.js            (what `npm test` runs; .ci/run calls `npm test`)
 *
 * A plain script, not compiled TypeScript, because compiling the tests is one of its tiers.
 * Tiers in one step run side by side (their output is printed as each ends): the installs
 * wait on the network and the disk, lint and the type check on one core each. The tiers
 * after them run one at a time, since their tests wait on real time and would only slow
 * each other down (see docs/TESTING.md, "The whole suite, and CI").
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/**
 * @typedef {{ name: string, command: string, args: readonly string[] }} Tier
 * @typedef {readonly Tier[]} Step  tiers that run side by side; the next step waits for all
 * @typedef {{ name: string, result: 'passed' | 'failed' | 'not run' | 'stopped', seconds?: number }} Outcome
 */

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const node = process.execPath;

/** @param {string} name @param {string} command @param {...string} args @returns {Tier} */
const tier = (name, command, ...args) => ({ name, command, args });

/**
 * The suite. On VS Code 1.100 (the oldest the manifest accepts) the UI tier runs only the
 * checks of what differs between versions, tagged `[both versions]` in their describe titles
 * (docs/TESTING.md says why each); every UI test runs on 1.139, where most people are.
 * @type {readonly Step[]}
 */
const PLAN = [
  [
    // Debian packages and code-server 4.100.3; 1.139's installs overlap the unit tier.
    tier('setup 1.100', 'bash', 'scripts/setup-test-env.sh', '--vscode', 'minimum'),
    tier('lint', npm, 'run', '--silent', 'lint'),
    // Also writes out/ (the compiled tests): the unit tier needs no second compile.
    tier('typecheck', npm, 'run', '--silent', 'typecheck'),
    tier('package', npm, 'run', '--silent', 'package'),
  ],
  [
    tier('setup 1.139', 'bash', 'scripts/setup-test-env.sh', '--vscode', 'latest'),
    tier('unit', node, 'node_modules/mocha/bin/mocha.js', '--config', '.mocharc.unit.json'),
  ],
  [tier('integration 1.100', node, 'out/scripts/run-integration.js')],
  [tier('faults', node, 'out/test/faults/run.js')],
  [tier('UI 1.100 [both versions]', node, 'out/scripts/run-e2e.js', '--grep', '\\[both versions\\]')],
  [tier('integration 1.139', node, 'out/scripts/run-integration.js', '--vscode', 'latest')],
  [tier('UI 1.139', node, 'out/scripts/run-e2e.js', '--vscode', 'latest')],
];

/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
/** @type {NodeJS.Signals | undefined} */
let interrupted;

/**
 * Runs one tier. Alone, it shares this terminal; beside others, its output is kept and
 * written whole when it ends, so the reports do not interleave.
 * @param {Tier} t @param {boolean} alone @param {string} cwd @param {NodeJS.WritableStream} out
 * @returns {Promise<Outcome>}
 */
function runTier(t, alone, cwd, out) {
  const started = Date.now();
  return new Promise((resolve) => {
    // Its own process group, so a signal reaches the tier once, from here (see stop()).
    const child = spawn(t.command, [...t.args], { cwd, detached: true, stdio: alone && out === process.stdout ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    /** @type {Buffer[]} */
    const kept = [];
    child.stdout?.on('data', (chunk) => (alone ? out.write(chunk) : kept.push(chunk)));
    child.stderr?.on('data', (chunk) => (alone ? out.write(chunk) : kept.push(chunk)));
    /** @param {boolean} passed @param {string} [why] */
    const end = (passed, why) => {
      running.delete(child);
      const seconds = (Date.now() - started) / 1000;
      if (!alone) {
        out.write(`\n── ${t.name} (${passed ? 'passed' : 'failed'}, ${seconds.toFixed(1)} s) ──\n`);
        out.write(Buffer.concat(kept));
      }
      if (why) {
        out.write(`[test] ${t.name}: ${why}\n`);
      }
      resolve({ name: t.name, result: interrupted ? 'stopped' : passed ? 'passed' : 'failed', seconds });
    };
    child.once('error', (error) => end(false, `could not start ${t.command}: ${error.message}`));
    child.once('close', (code, signal) => end(code === 0, code === 0 ? undefined : `exit ${signal ?? code}`));
  });
}

/**
 * Runs the steps in order; a step whose tiers did not all pass is the last one run (its other
 * tiers finish: an install stopped half-way would only have to start again).
 * @param {readonly Step[]} plan @param {{ cwd?: string, out?: NodeJS.WritableStream }} [options]
 * @returns {Promise<Outcome[]>}
 */
async function runPlan(plan, options = {}) {
  const cwd = options.cwd ?? root;
  const out = options.out ?? process.stdout;
  /** @type {Outcome[]} */
  const outcomes = [];
  let red = false;
  for (const step of plan) {
    if (red || interrupted) {
      outcomes.push(...step.map((t) => /** @type {Outcome} */ ({ name: t.name, result: 'not run' })));
      continue;
    }
    if (step.length > 1) {
      out.write(`[test] side by side: ${step.map((t) => t.name).join(', ')}\n`);
    }
    const results = await Promise.all(step.map((t) => runTier(t, step.length === 1, cwd, out)));
    outcomes.push(...results);
    red = results.some((r) => r.result !== 'passed');
  }
  return outcomes;
}

/**
 * The closing table: each tier, its result and seconds, and the whole run's time.
 * @param {readonly Outcome[]} outcomes @param {number} totalSeconds @returns {string}
 */
function formatTable(outcomes, totalSeconds) {
  const width = Math.max(4, ...outcomes.map((o) => o.name.length));
  const row = (/** @type {string} */ a, /** @type {string} */ b, /** @type {string} */ c) => `${a.padEnd(width)}  ${b.padEnd(7)}  ${c.padStart(7)}`;
  const lines = [row('tier', 'result', 'seconds'), row('-'.repeat(width), '-------', '-------')];
  for (const o of outcomes) {
    lines.push(row(o.name, o.result, o.seconds === undefined ? '' : o.seconds.toFixed(1)));
  }
  const verdict = outcomes.every((o) => o.result === 'passed') ? 'passed' : 'failed';
  lines.push(row('all', verdict, totalSeconds.toFixed(1)));
  return `${lines.join('\n')}\n`;
}

/** Passes SIGINT/SIGTERM on to each running tier's process group, once. @param {NodeJS.Signals} signal */
function stop(signal) {
  interrupted ??= signal;
  for (const child of running) {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    }
  }
}

/** @param {readonly Step[]} plan */
async function main(plan) {
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const started = Date.now();
  const outcomes = await runPlan(plan);
  process.stdout.write(`\n${formatTable(outcomes, (Date.now() - started) / 1000)}`);
  const passed = outcomes.every((o) => o.result === 'passed');
  process.exitCode = interrupted ? (interrupted === 'SIGINT' ? 130 : 143) : passed ? 0 : 1;
}

if (require.main === module) {
  void main(PLAN);
}

module.exports = { PLAN, main, runPlan, formatTable };
