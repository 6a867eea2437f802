/**
 * Activation in a real extension host (code-server 4.100.3 = VS Code 1.100.3), Agent Runs
 * against an empty extension (the floor), cold starts interleaved (ours, empty, empty, ours,
 * ...) so that a change in the machine's load hits both alike.
 *
 * Cold start = a new code-server process (and so a new extension host) on a profile where the
 * packaged .vsix is already installed, opened in a new browser context. A reload of the
 * window would also give a new extension host, but code-server keeps the previous one alive
 * for its reconnection grace time (hours), so the hosts of earlier starts would compete for
 * the two cores; restarting the server is robust and costs ~2 s more per start. The
 * operating system's file cache is warm after the first start (as it is for a user opening
 * a second window).
 *
 * Timing comes from VS Code's own marks (read by the observer inside the extension host):
 * host activation = code/extHost/willLoadExtensionCode → didActivateExtension, i.e. loading
 * dist/extension.js and creating the ExtensionContext (in parallel), calling activate() and
 * its result settling. Millisecond resolution (the host uses Date.now()); medians.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startEmulator } from '../test/emulator/index';
import { assertCodeServerInstalled, createProfile, installTestHooks, installVsix, TEST_HOOKS_FILE, type Profile } from '../test/support/codeServer';
import { extensionId, paths } from '../test/support/paths';
import { makeTempDir, registerCleanup } from '../test/support/processes';
import type { Build } from './build';
import { coldStart, type ColdStart } from './codeServerRun';
import { buildBenchExtensions } from './extensions';
import { OBSERVER_MARKER_FILE, type ActivationProbe } from './probe/protocol';
import type { Report } from './report';
import { ACTIVATION_PATH_BUDGET_KB, largestInputs } from './size';
import { KB, median, spread } from './stats';

/** Host activation at most this many times the empty extension's (issue 35). */
export const ACTIVATION_FLOOR_RATIO = 1.25;

interface Variant {
  readonly label: string;
  readonly id: string;
  readonly vsix: string;
  profile?: Profile;
  readonly samples: ColdStart[];
}

interface Timing {
  readonly hostMs: number;
  readonly loadMs: number;
  readonly activateMs: number;
  readonly selfMs: number | undefined;
}

function timing(probe: ActivationProbe): Timing {
  const m = probe.marks;
  if (m.willLoadExtensionCode === undefined || m.didLoadExtensionCode === undefined || m.willActivateExtension === undefined || m.didActivateExtension === undefined) {
    throw new Error(`VS Code's activation marks for ${probe.target} are incomplete: ${JSON.stringify(m)}`);
  }
  return {
    hostMs: m.didActivateExtension - m.willLoadExtensionCode,
    loadMs: m.didLoadExtensionCode - m.willLoadExtensionCode,
    activateMs: m.didActivateExtension - m.willActivateExtension,
    selfMs: probe.selfReportedMs,
  };
}

export function codeServerVersion(): string {
  const file = path.join(path.dirname(paths.codeServerEntry), '..', '..', 'package.json');
  try {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Returns code-server's version. */
export async function measureActivation(report: Report, build: Build, options: { coldStarts: number }): Promise<string> {
  assertCodeServerInstalled();
  const work = makeTempDir('agent-runs-bench-activation');
  const { empty, observer } = await buildBenchExtensions(work);
  const emulator = await startEmulator({ port: 0, clock: 'manual', stepMs: 1000 });
  registerCleanup('stop the activation emulator', () => emulator.close());
  try {
    const ours: Variant = { label: 'Agent Runs', id: extensionId(), vsix: build.vsix, samples: [] };
    const floor: Variant = { label: 'empty extension', id: empty.id, vsix: empty.vsix, samples: [] };
    for (const v of [ours, floor]) {
      const profile = createProfile(path.join(work, v === ours ? 'profile-ours' : 'profile-empty'), {
        settings: { 'agentRuns.baseUrl': emulator.baseUrl },
        workspaceFiles: { [OBSERVER_MARKER_FILE]: '' },
      });
      const installed = await installVsix(profile, v.vsix, v.id);
      if (v === ours) {
        // Only for the seeded token: the activation path below leaves the test hooks out.
        installTestHooks(installed, v.vsix);
      }
      await installVsix(profile, observer.vsix, observer.id);
      v.profile = profile;
    }
    for (let i = 0; i < options.coldStarts; i++) {
      for (const v of i % 2 === 0 ? [ours, floor] : [floor, ours]) {
        const sample = await coldStart({
          profile: v.profile!,
          target: v.id,
          emulator,
          outFile: path.join(work, `report-${v === ours ? 'ours' : 'empty'}-${i}.json`),
          // Agent Runs starts with a token for the configured base URL; the floor needs none.
          ...(v === ours ? { seedTokenFile: path.join(work, 'seed-token') } : {}),
          timeoutMs: 120_000,
        });
        if (sample.report.error || !sample.report.activation) {
          throw new Error(`cold start ${i + 1} of ${v.label}: ${sample.report.error ?? 'no activation report'}`);
        }
        const t = timing(sample.report.activation);
        log(`cold start ${i + 1}/${options.coldStarts} ${v.label}: host ${t.hostMs} ms (load ${t.loadMs}, activate ${t.activateMs}), ${sample.requestsUntilReport} request(s); report after ${(sample.wallMs / 1000).toFixed(1)} s, stopped after ${(sample.totalMs / 1000).toFixed(1)} s`);
        v.samples.push(sample);
      }
    }

    const timings = (v: Variant) => v.samples.map((s) => timing(s.report.activation!));
    const oursT = timings(ours);
    const floorT = timings(floor);
    const host = oursT.map((t) => t.hostMs);
    const floorHost = floorT.map((t) => t.hostMs);
    const floorMedian = median(floorHost);
    report.add('activation', {
      name: 'Empty extension (floor): host activation',
      value: floorMedian,
      unit: 'ms',
      samples: floorHost,
      note: `median of ${floorHost.length} cold starts (${spread(floorHost, 'ms', 0)}); code loading ${median(floorT.map((t) => t.loadMs))} ms, activate() ${median(floorT.map((t) => t.activateMs))} ms; ${empty.mainBytes} bytes of JavaScript`,
    });
    report.add('activation', {
      name: 'Agent Runs: host activation',
      value: median(host),
      unit: 'ms',
      budget: { op: '<=', limit: ACTIVATION_FLOOR_RATIO * floorMedian },
      budgetText: `≤ ${ACTIVATION_FLOOR_RATIO} × floor (${ACTIVATION_FLOOR_RATIO * floorMedian} ms)`,
      samples: host,
      note: `median of ${host.length} cold starts (${spread(host, 'ms', 0)}), ${(median(host) / floorMedian).toFixed(2)} × the floor; VS Code's marks willLoadExtensionCode → didActivateExtension`,
    });
    const load = oursT.map((t) => t.loadMs);
    const act = oursT.map((t) => t.activateMs);
    report.add('activation', {
      name: 'Agent Runs: loading dist/extension.js (host mark)',
      value: median(load),
      unit: 'ms',
      samples: load,
      note: `${spread(load, 'ms', 0)}`,
    });
    report.add('activation', {
      name: 'Agent Runs: activate() call (host mark)',
      value: median(act),
      unit: 'ms',
      samples: act,
      note: `${spread(act, 'ms', 0)}`,
    });
    const sync = oursT.map((t) => t.loadMs + t.activateMs);
    const floorSync = floorT.map((t) => t.loadMs + t.activateMs);
    report.add('activation', {
      name: 'Agent Runs: code loading + activate() (as "Show Running Extensions" counts)',
      value: median(sync),
      unit: 'ms',
      samples: sync,
      note: `${spread(sync, 'ms', 0)}; the empty extension: ${median(floorSync)} ms (${spread(floorSync, 'ms', 0)}). Without the host's fixed cost (context creation) the floor is ~1 ms, so a ratio to it means little; the budget above uses the host's whole span`,
    });
    const self = oursT.map((t) => t.selfMs).filter((x): x is number => x !== undefined);
    if (self.length > 0) {
      report.add('activation', {
        name: 'Agent Runs: activate() body, self-reported (`activationMs`)',
        value: median(self),
        unit: 'ms',
        samples: self,
        note: `performance.now() inside activate(); ${spread(self, 'ms', 1)}`,
      });
    }

    // The activation path: every file of the extension in the module cache when activation was
    // over, but the test hooks that seeded the token (not in the .vsix; loaded after activation).
    const testHooks = path.join('dist', TEST_HOOKS_FILE);
    let worst = { bytes: 0, files: [] as string[] };
    for (const s of ours.samples) {
      const mods = s.report.activation!.modules.filter((m) => m.file !== testHooks);
      const bytes = mods.reduce((sum, m) => sum + m.bytes, 0);
      if (bytes >= worst.bytes) {
        worst = { bytes, files: mods.map((m) => `${m.file} (${m.bytes} B)`) };
      }
    }
    const inputs = largestInputs(build, 'dist/extension.js');
    report.add('activation', {
      name: 'JavaScript loaded on the activation path',
      value: worst.bytes / KB,
      unit: 'KB',
      budget: { op: '<', limit: ACTIVATION_PATH_BUDGET_KB },
      note: `the extension's files in the extension host's module cache right after activation (largest of the cold starts): ${worst.files.join(', ') || 'none'}${inputs ? `; largest parts of dist/extension.js (dist/meta.json): ${inputs}` : ''}`,
    });

    const during = ours.samples.map((s) => s.requestsUntilReport);
    const afterSignIn = ours.samples.map((s) => s.requestsUntilSignedIn);
    const taken = ours.samples.filter((s) => s.seedTokenTaken).length;
    report.add('activation', {
      name: 'API requests during activation (base URL + token configured)',
      value: Math.max(...during),
      unit: '',
      budget: { op: '==', limit: 0 },
      note: `most in any cold start, counted by the emulator from code-server's start to the end of activation; until the seeded token was stored: at most ${Math.max(...afterSignIn)} (token stored in ${taken} of ${ours.samples.length} starts)`,
    });
    return codeServerVersion();
  } finally {
    await emulator.close();
  }
}
