/**
 * Sizes of what ships, read from the production build `npm run package` just made:
 * dist/extension.js (what activation loads), dist/api.js (loaded on first use), the webview
 * bundle and the .vsix.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { TEST_HOOKS_FILE } from '../test/support/codeServer';
import type { Build } from './build';
import type { Report } from './report';
import { KB } from './stats';

export const VSIX_BUDGET_KB = 400;
export const ACTIVATION_PATH_BUDGET_KB = 100;

function size(file: string): number {
  return fs.statSync(file).size;
}

function gzipKb(file: string): string {
  return (gzipSync(fs.readFileSync(file), { level: 9 }).length / KB).toFixed(1);
}

export function measureSizes(report: Report, build: Build): void {
  const dist = build.dist;
  const main = path.join(dist, 'extension.js');
  const webview = path.join(dist, 'webview', 'main.js');
  report.add('size', {
    name: '`dist/extension.js` (minified)',
    value: size(main) / KB,
    unit: 'KB',
    note: `${size(main)} bytes, ${gzipKb(main)} KB gzipped; the activation-path budget is under Activation`,
  });
  // The chunks dist/extension.js requires on first use (dist/api.js, ...); not the test hooks, which do not ship.
  const lazy = fs.readdirSync(dist).filter((f) => f.endsWith('.js') && f !== 'extension.js' && f !== TEST_HOOKS_FILE).sort();
  for (const name of lazy) {
    const file = path.join(dist, name);
    report.add('size', {
      name: `\`dist/${name}\` (minified, loaded on first use)`,
      value: size(file) / KB,
      unit: 'KB',
      note: `${size(file)} bytes, ${gzipKb(file)} KB gzipped`,
    });
  }
  report.add('size', {
    name: '`dist/webview/main.js` (webview bundle)',
    value: size(webview) / KB,
    unit: 'KB',
    note: `${size(webview)} bytes, ${gzipKb(webview)} KB gzipped`,
  });
  report.add('size', {
    name: '`dist/agent-runs.vsix`',
    value: size(build.vsix) / KB,
    unit: 'KB',
    budget: { op: '<', limit: VSIX_BUDGET_KB },
    note: `${size(build.vsix)} bytes`,
  });
  // A zip stores its file names uncompressed: the name alone shows whether the test hooks shipped.
  const hooks = `extension/dist/${TEST_HOOKS_FILE}`;
  report.add('size', {
    name: 'Test hooks in `dist/agent-runs.vsix`',
    value: fs.readFileSync(build.vsix).includes(hooks) ? 1 : 0,
    unit: '',
    budget: { op: '==', limit: 0 },
    note: `${hooks}: the test harness installs it (.vscodeignore leaves it out)`,
  });
}

interface Metafile {
  readonly outputs: Readonly<Record<string, { readonly inputs: Readonly<Record<string, { readonly bytesInOutput: number }>> }>>;
}

/** The largest source files (or packages) in a built chunk, from esbuild's dist/meta.json, for diagnosis. */
export function largestInputs(build: Build, output: string, count = 6): string | undefined {
  const file = path.join(build.dist, 'meta.json');
  if (!fs.existsSync(file)) {
    return undefined;
  }
  const meta = JSON.parse(fs.readFileSync(file, 'utf8')) as Metafile;
  const inputs = meta.outputs[output]?.inputs;
  if (!inputs) {
    return undefined;
  }
  const groups = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const parts = input.split('/');
    const key = parts[0] === 'node_modules' ? parts.slice(0, parts[1]?.startsWith('@') ? 3 : 2).join('/') : input;
    groups.set(key, (groups.get(key) ?? 0) + bytesInOutput);
  }
  return [...groups.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `${name} ${(bytes / KB).toFixed(1)} KB`)
    .join(', ');
}
