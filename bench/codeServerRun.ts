/**
 * One cold start of the workbench with the observer: a fresh code-server process (so a
 * fresh extension host) on an already installed profile, a fresh browser context, then the
 * observer's report. Everything is stopped by PID before returning.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openWorkbench } from '../test/support/browser';
import { logFiles, startCodeServer, workbenchUrl, type Profile } from '../test/support/codeServer';
import type { Emulator } from '../test/emulator/index';
import { waitUntil } from '../test/support/processes';
import { SEED_TOKEN_FILE_ENV } from '../test/support/testContext';
import { PROBE_ENV, type ProbeReport } from './probe/protocol';

export interface ColdStartOptions {
  readonly profile: Profile;
  readonly target: string;
  readonly emulator: Emulator;
  /** A file for the observer's report (removed first). */
  readonly outFile: string;
  /** Seed the emulator's default token through AGENT_RUNS_SEED_TOKEN_FILE (the extension deletes the file). */
  readonly seedTokenFile?: string;
  readonly mode?: 'activation' | 'memory';
  readonly runsFile?: string;
  /** memory: write a heap snapshot at each sample into this folder. */
  readonly heapSnapshots?: string;
  readonly timeoutMs: number;
}

export interface ColdStart {
  readonly report: ProbeReport;
  /** API requests the emulator received from code-server's start to the observer's report. */
  readonly requestsUntilReport: number;
  /** ... and until the seeded token was taken (the file deleted) or the window closed. */
  readonly requestsUntilSignedIn: number;
  readonly seedTokenTaken: boolean;
  /** From starting code-server to the report. */
  readonly wallMs: number;
  /** From starting code-server to everything stopped. */
  totalMs: number;
}

function hostLogTail(profile: Profile): string {
  const lines = logFiles(profile)
    .filter((f) => /exthost\.log$/i.test(f))
    .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'));
  return lines.slice(-15).join('\n');
}

export async function coldStart(o: ColdStartOptions): Promise<ColdStart> {
  fs.rmSync(o.outFile, { force: true });
  const env: Record<string, string> = { [PROBE_ENV.out]: o.outFile, [PROBE_ENV.target]: o.target, [PROBE_ENV.mode]: o.mode ?? 'activation' };
  if (o.runsFile) {
    env[PROBE_ENV.runs] = o.runsFile;
  }
  if (o.heapSnapshots) {
    env[PROBE_ENV.heapSnapshots] = o.heapSnapshots;
  }
  if (o.seedTokenFile) {
    fs.writeFileSync(o.seedTokenFile, o.emulator.tokens.default, { mode: 0o600 });
    env[SEED_TOKEN_FILE_ENV] = o.seedTokenFile;
  }
  const started = Date.now();
  const before = o.emulator.requests.length;
  const server = await startCodeServer(o.profile, { env });
  let result: ColdStart | undefined;
  try {
    const workbench = await openWorkbench(workbenchUrl(server), 90_000);
    try {
      await waitUntil(() => fs.existsSync(o.outFile), o.timeoutMs, `the observer's report (${path.basename(o.outFile)})`, 25).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nextension host log:\n${hostLogTail(o.profile)}`);
      });
      const wallMs = Date.now() - started;
      const requestsUntilReport = o.emulator.requests.length - before;
      const report = JSON.parse(fs.readFileSync(o.outFile, 'utf8')) as ProbeReport;
      let seedTokenTaken = false;
      if (o.seedTokenFile && !report.error) {
        const seed = o.seedTokenFile;
        seedTokenTaken = await waitUntil(() => !fs.existsSync(seed), 20_000, 'the seeded token to be taken', 25).then(() => true, () => false);
      }
      result = { report, requestsUntilReport, requestsUntilSignedIn: o.emulator.requests.length - before, seedTokenTaken, wallMs, totalMs: 0 };
    } finally {
      await workbench.context.close();
    }
  } finally {
    await server.stop();
  }
  result.totalMs = Date.now() - started;
  return result;
}
