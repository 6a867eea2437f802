// The fault suite's scenario registry. Every scenario is one mocha test declared with
// `scenario(category, title, body)`; when it ends (passed or not) it reports one record with
// what was measured: crashes, token leaks, duplicate POSTs and lost drafts. The launcher
// (test/faults/run.ts) adds up the records of every tier and prints the summary line, so the
// counts always come from the scenarios that actually ran, never from a constant.
//
// Records go to memory (the tiers that run in the launcher's own process) and, when
// AGENT_RUNS_FAULTS_RECORDS names a file, are appended to it as JSON lines (the extension-host
// tier, which runs in another process). Only `node:` imports: this file is loaded in the
// extension host too.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { findSecret } from './secrets';

export const RECORDS_ENV = 'AGENT_RUNS_FAULTS_RECORDS';
export const TIER_ENV = 'AGENT_RUNS_FAULTS_TIER';
/** The workbench `logLevel` payload that puts the extension's output channel at trace level. */
export const TRACE_LOG_LEVEL = 'agent-runs-team.agent-runs:trace';
/** Names a JSON file `{ userDataDir }` the launcher writes once the host tier's profile exists. */
export const PROFILE_ENV = 'AGENT_RUNS_FAULTS_PROFILE';

export type Category =
  /** 5xx, HTML, malformed/truncated/empty bodies, unknown and missing fields and values. */
  | 'responses'
  /** Timeouts, resets, refused connections, DNS failures. */
  | 'transport'
  /** The service gone for minutes, then back. */
  | 'outage'
  /** 429 with and without Retry-After. */
  | 'rate-limit'
  /** 401 after revocation while following runs. */
  | 'auth'
  /** Reload, crash, corrupt stored state. */
  | 'persistence'
  /** POSTs that may have reached the server are not repeated. */
  | 'no-duplicates'
  /** Follow-ups typed while offline or during a failure are kept. */
  | 'drafts'
  /** The token in no sink, no other origin, plain http warned about. */
  | 'secrets'
  /** Hostile content rendered inertly, the panel responsive. */
  | 'hostile'
  /** Forged or invalid webview messages ignored and logged. */
  | 'messages'
  /** Company proxies (squid, with and without authentication), noProxy, a private CA. */
  | 'network'
  /** Capped histories: no message the service still returns is lost between polls. */
  | 'histories'
  /** Reads from a lagging copy of the run: no completion taken from a stale read, no status going backwards. */
  | 'stale-reads';

export interface ScenarioRecord {
  tier: string;
  category: Category;
  title: string;
  passed: boolean;
  crashes: number;
  tokenLeaks: number;
  duplicatePosts: number;
  lostDrafts: number;
  /** Messages the service returned (or could have) that the transcript does not hold. Absent in older records. */
  lostMessages?: number;
  /** What was found, one line each (never the token itself). */
  findings: string[];
  error?: string;
  durationMs: number;
}

export interface Scenario {
  /** Something crashed: an uncaught error, a rejected promise nobody handled, a listener or callback that threw. */
  crash(what: string): void;
  /**
   * Checks one sink for the registered secrets (whole, case-insensitively, encoded, or a
   * 12-character piece of one); each sink that holds one counts as a leak.
   */
  sink(name: string, text: string | undefined | null): void;
  /** POSTs the service received beyond the ones the person asked for. */
  duplicatePosts(count: number, detail: string): void;
  /** A follow-up the person typed that cannot be found any more. */
  lostDraft(detail: string): void;
  /** Messages the service still returns that never reached the transcript. */
  lostMessages(count: number, detail: string): void;
  /** A line for the report. */
  note(text: string): void;
}

/** What a leak report says about a secret instead of the secret: what it is and where it belongs. */
export interface SecretLabel {
  /** E.g. `emulator token "default"`, `token made for the plain-http scenario`. */
  label: string;
  /** The base URL the token is for (the service that may receive it). */
  baseUrl?: string;
}

const records: ScenarioRecord[] = [];
const secrets = new Map<string, SecretLabel>();
let current: ScenarioState | undefined;

interface ScenarioState {
  record: ScenarioRecord;
  sinksChecked: number;
}

/**
 * Registers a value that must never show up in a sink (an API token), with what a leak report
 * names it by. Registering it again (a new workbench, another base URL) updates the label.
 */
export function registerSecret(value: string, about: SecretLabel): void {
  if (value.length >= 8) {
    secrets.set(value, about);
  }
}

/** The emulator's tokens (`default`, `scoped` ...), each labelled with its name and the emulator's base URL. */
export function registerEmulatorTokens(tokens: object, baseUrl: string): void {
  for (const [name, value] of Object.entries(tokens)) {
    if (typeof value === 'string') {
      registerSecret(value, { label: `emulator token "${name}"`, baseUrl });
    }
  }
}

/** A short fingerprint of a secret: tells two tokens apart in a report without revealing either. */
export function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 8);
}

/** Which secret, in words a report may carry: its label, fingerprint and base URL, never the value. */
export function describeSecret(secret: string): string {
  const about = secrets.get(secret);
  const where = about?.baseUrl ? `, the token for ${about.baseUrl}` : '';
  return `${about?.label ?? 'a value not registered as a secret'} (sha256 ${fingerprint(secret)}${where})`;
}

/** Records reported in this process so far. */
export function localRecords(): readonly ScenarioRecord[] {
  return records;
}

export function tierName(): string {
  return process.env[TIER_ENV] ?? 'node';
}

/** Called by the tiers' crash detectors (unhandled rejections, page errors ...). */
export function reportCrash(what: string): void {
  if (current) {
    current.record.crashes++;
    current.record.findings.push(`crash: ${what.split('\n')[0].slice(0, 300)}`);
  } else {
    pendingCrashes.push(what);
  }
}

/** Crashes seen between scenarios; charged to the next one so none is lost. */
const pendingCrashes: string[] = [];

/**
 * The finding when `text` holds a registered secret (or a telling piece of one): which one by
 * label, fingerprint and base URL, and where in the sink, never the secret itself.
 */
export function leakIn(sink: string, text: string): string | undefined {
  for (const secret of secrets.keys()) {
    const found = findSecret(text, secret);
    if (found) {
      return `token leak in ${sink}: ${describeSecret(secret)}, ${found}`;
    }
  }
  return undefined;
}

function makeScenario(state: ScenarioState): Scenario {
  const r = state.record;
  return {
    crash: (what) => {
      r.crashes++;
      r.findings.push(`crash: ${what.slice(0, 300)}`);
    },
    sink: (name, text) => {
      state.sinksChecked++;
      if (text === undefined || text === null || text === '') {
        return;
      }
      const leak = leakIn(name, text);
      if (leak !== undefined) {
        r.tokenLeaks++;
        r.findings.push(leak);
      }
    },
    duplicatePosts: (count, detail) => {
      if (count > 0) {
        r.duplicatePosts += count;
        r.findings.push(`duplicate POSTs (${count}): ${detail}`);
      }
    },
    lostDraft: (detail) => {
      r.lostDrafts++;
      r.findings.push(`lost draft: ${detail}`);
    },
    lostMessages: (count, detail) => {
      if (count > 0) {
        r.lostMessages = (r.lostMessages ?? 0) + count;
        r.findings.push(`lost messages (${count}): ${detail}`);
      }
    },
    note: (text) => {
      r.findings.push(`note: ${text}`);
    },
  };
}

function write(record: ScenarioRecord): void {
  records.push(record);
  const file = process.env[RECORDS_ENV];
  if (file) {
    fs.appendFileSync(file, `${JSON.stringify(record)}\n`);
  }
}

/**
 * Declares one counted fault scenario (a mocha `it`). The body gets a `Scenario` to report
 * what it measured; the test fails when the body throws or when any counter is above zero.
 */
export function scenario(category: Category, title: string, body: (s: Scenario) => Promise<void>, timeoutMs?: number): void {
  it(`[${category}] ${title}`, async function () {
    if (timeoutMs !== undefined) {
      this.timeout(timeoutMs);
    }
    const record: ScenarioRecord = {
      tier: tierName(),
      category,
      title,
      passed: false,
      crashes: 0,
      tokenLeaks: 0,
      duplicatePosts: 0,
      lostDrafts: 0,
      lostMessages: 0,
      findings: [],
      durationMs: 0,
    };
    const state: ScenarioState = { record, sinksChecked: 0 };
    for (const c of pendingCrashes.splice(0)) {
      record.crashes++;
      record.findings.push(`crash (before this scenario): ${c.split('\n')[0].slice(0, 300)}`);
    }
    current = state;
    const started = Date.now();
    let error: Error | undefined;
    try {
      await body(makeScenario(state));
    } catch (e) {
      error = e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e));
    } finally {
      current = undefined;
      record.durationMs = Date.now() - started;
    }
    const counted = record.crashes + record.tokenLeaks + record.duplicatePosts + record.lostDrafts + (record.lostMessages ?? 0);
    record.passed = error === undefined && counted === 0;
    if (error !== undefined) {
      record.error = error.message.split('\n').slice(0, 6).join('\n');
    }
    write(record);
    if (error !== undefined) {
      throw error;
    }
    if (counted > 0) {
      throw new Error(`scenario measured ${record.crashes} crash(es), ${record.tokenLeaks} token leak(s), ${record.duplicatePosts} duplicate POST(s), ${record.lostDrafts} lost draft(s), ${record.lostMessages ?? 0} lost message(s):\n  ${record.findings.join('\n  ')}`);
    }
  });
}

export interface Totals {
  scenarios: number;
  passed: number;
  failed: number;
  crashes: number;
  tokenLeaks: number;
  duplicatePosts: number;
  lostDrafts: number;
  lostMessages: number;
}

export function totals(all: readonly ScenarioRecord[]): Totals {
  const t: Totals = { scenarios: all.length, passed: 0, failed: 0, crashes: 0, tokenLeaks: 0, duplicatePosts: 0, lostDrafts: 0, lostMessages: 0 };
  for (const r of all) {
    if (r.passed) {
      t.passed++;
    } else {
      t.failed++;
    }
    t.crashes += r.crashes;
    t.tokenLeaks += r.tokenLeaks;
    t.duplicatePosts += r.duplicatePosts;
    t.lostDrafts += r.lostDrafts;
    t.lostMessages += r.lostMessages ?? 0;
  }
  return t;
}

export function summaryLine(t: Totals): string {
  return `faults: ${t.scenarios} scenarios, ${t.crashes} crashes, ${t.tokenLeaks} token leaks, ${t.duplicatePosts} duplicate POSTs, ${t.lostDrafts} lost drafts, ${t.lostMessages} messages lost between polls`;
}

/** Records appended to a JSON-lines file by another process. */
export function readRecords(file: string): ScenarioRecord[] {
  if (!fs.existsSync(file)) {
    return [];
  }
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ScenarioRecord);
}

/**
 * Installs process-wide crash detectors: a promise rejected with nobody to handle it, or an
 * exception nobody caught, is charged to the running scenario.
 */
export function installCrashDetectors(): () => void {
  const onRejection = (reason: unknown): void => {
    reportCrash(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  };
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('unhandledRejection', onRejection);
  };
}
