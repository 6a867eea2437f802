/**
 * Fault injection: rules that change how the API listener answers matching requests.
 *
 * Matching: `method` (case-insensitive) and `path`, a regular expression source tested
 * against the path relative to the base URL without the query (e.g. `^/agents/[^/]+$`).
 * Rules are tried in the order they were added; the first one with uses left applies and
 * uses one of its `times` (default 1, 0 = unlimited). Admin routes and the foreign listener
 * are never faulted.
 *
 * Whether the real handler runs (and so whether state changes, e.g. a run is created):
 * - rules that replace the response (`status`, `body`, `reset`, `html`, `redirectTo`) skip
 *   it, unless `passThrough` is set;
 * - rules that only alter the real response (`extraFields`, `dropFields`, `truncate`,
 *   `cutBody`, `headers`, `retryAfter`, `bodyDelayMs`) always run it;
 * - `delayMs` without `passThrough` holds the request first and runs the handler after the
 *   delay only if the client is still connected (a slow network before the server);
 *   with `passThrough` the handler runs at once and the response is held (a slow server
 *   after the work is done).
 * Delays are real time (they exercise the client's own timeouts), whatever the clock mode.
 *
 * When the work is done but the client gets no complete answer (a POST that created a run or
 * queued a follow-up, credits charged): `passThrough` + `delayMs` (held longer than the
 * client waits), `passThrough` + `reset` (socket destroyed, no status line), `cutBody`
 * (status line and `content-length` sent, half the body, then the socket destroyed).
 * `truncate` is different: a complete, well-framed response whose JSON is cut in half.
 *
 * `Retry-After`: `retryAfter` (seconds, or a string such as an HTTP-date, sent as is) puts it
 * on any response, error or not; `null` removes it. Without it, the setting
 * `retryAfterSeconds` adds one to every 429, 502 and 503 JSON answer (not to `html` pages:
 * those stand for a proxy in front of the service). A `retry-after` in `headers` wins over both.
 */
import { STATUS_CODES } from 'node:http';
import type { FaultRule } from './domain';
import type { ErrorCode } from './errors';
import type { Reply } from './http';

export interface ActiveFault {
  id: string;
  rule: FaultRule;
  /** Uses left; `null` for unlimited. */
  remaining: number | null;
  hits: number;
}

const NUMBER_KEYS = ['times', 'status', 'delayMs', 'bodyDelayMs', 'redirectStatus'] as const;
const BOOLEAN_KEYS = ['reset', 'html', 'truncate', 'cutBody', 'passThrough'] as const;
const STRING_KEYS = ['method', 'path', 'body', 'redirectTo'] as const;
const KNOWN_KEYS: readonly string[] = [...NUMBER_KEYS, ...BOOLEAN_KEYS, ...STRING_KEYS, 'headers', 'extraFields', 'dropFields', 'retryAfter'];
/** Statuses that get `Retry-After` from the `retryAfterSeconds` setting. */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 502, 503];
/** What a header value may hold (a CR or LF would let a rule write other headers, and Node refuses them anyway). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks a rule received as JSON; throws an Error whose message names the bad field. */
export function parseFaultRule(input: unknown): FaultRule {
  if (!isRecord(input)) throw new Error('A fault rule must be a JSON object.');
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.includes(key)) throw new Error(`Unknown fault rule field "${key}".`);
  }
  for (const key of NUMBER_KEYS) {
    const v = input[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) throw new Error(`"${key}" must be a non-negative integer.`);
  }
  for (const key of BOOLEAN_KEYS) {
    if (input[key] !== undefined && typeof input[key] !== 'boolean') throw new Error(`"${key}" must be a boolean.`);
  }
  for (const key of STRING_KEYS) {
    if (input[key] !== undefined && typeof input[key] !== 'string') throw new Error(`"${key}" must be a string.`);
  }
  const { status, redirectStatus, path, headers, extraFields, dropFields } = input;
  if (typeof status === 'number' && (status < 100 || status > 599)) throw new Error('"status" must be an HTTP status (100-599).');
  if (typeof redirectStatus === 'number' && (redirectStatus < 300 || redirectStatus > 399)) throw new Error('"redirectStatus" must be a 3xx status.');
  if (typeof path === 'string') {
    try {
      new RegExp(path);
    } catch {
      throw new Error('"path" must be a valid regular expression source.');
    }
  }
  if (headers !== undefined && (!isRecord(headers) || Object.values(headers).some((v) => typeof v !== 'string' || !HEADER_VALUE.test(v)))) {
    throw new Error('"headers" must be an object of strings (printable ASCII).');
  }
  const { retryAfter } = input;
  if (retryAfter !== undefined && retryAfter !== null) {
    const seconds = typeof retryAfter === 'number' && Number.isInteger(retryAfter) && retryAfter >= 0;
    const text = typeof retryAfter === 'string' && retryAfter.trim() !== '' && HEADER_VALUE.test(retryAfter);
    if (!seconds && !text) throw new Error('"retryAfter" must be a non-negative integer (seconds), a non-empty string (e.g. an HTTP-date) or null.');
  }
  if (retryAfter !== undefined && isRecord(headers) && Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after')) {
    throw new Error('Give "retryAfter" or a "retry-after" header, not both.');
  }
  if (extraFields !== undefined && !isRecord(extraFields)) throw new Error('"extraFields" must be an object.');
  if (dropFields !== undefined && (!Array.isArray(dropFields) || dropFields.some((v) => typeof v !== 'string'))) {
    throw new Error('"dropFields" must be an array of strings.');
  }
  return input;
}

export class FaultStore {
  private rules: ActiveFault[] = [];
  private nextId = 1;

  add(rule: FaultRule): ActiveFault {
    const parsed = parseFaultRule(rule);
    const times = parsed.times ?? 1;
    const fault: ActiveFault = { id: `fault_${this.nextId++}`, rule: structuredClone(parsed), remaining: times === 0 ? null : times, hits: 0 };
    this.rules.push(fault);
    return fault;
  }

  /** The first rule matching the request, with one use consumed; exhausted rules are dropped. */
  take(method: string, relativePath: string): ActiveFault | undefined {
    const fault = this.rules.find((f) => matches(f.rule, method, relativePath));
    if (fault === undefined) return undefined;
    fault.hits += 1;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.rules = this.rules.filter((f) => f !== fault);
    }
    return fault;
  }

  list(): readonly ActiveFault[] {
    return this.rules;
  }

  clear(): void {
    this.rules = [];
  }

  /** Clears the rules and restarts their numbering (`fault_1`, ...). */
  reset(): void {
    this.clear();
    this.nextId = 1;
  }
}

function matches(rule: FaultRule, method: string, relativePath: string): boolean {
  if (rule.method !== undefined && rule.method.toUpperCase() !== method.toUpperCase()) return false;
  return rule.path === undefined || new RegExp(rule.path).test(relativePath);
}

/** Whether the rule replaces the whole response (and so skips the handler without `passThrough`). */
export function replacesResponse(rule: FaultRule): boolean {
  return rule.status !== undefined || rule.body !== undefined || rule.reset === true || rule.html === true || rule.redirectTo !== undefined;
}

/** A JSON error body for an injected status without an explicit `body`. */
export function injectedErrorBody(status: number): { error: string; code: ErrorCode | 'injected_fault' } {
  if (status === 429) return { error: 'Too many requests. Slow down and retry later.', code: 'rate_limited' };
  if (status === 503) return { error: 'The service is temporarily unavailable.', code: 'service_unavailable' };
  if (status >= 500) return { error: 'Internal server error.', code: 'internal_error' };
  return { error: `Injected error (HTTP ${status}).`, code: 'injected_fault' };
}

/** Sets or removes `Retry-After` as the rule says, else as the `retryAfterSeconds` setting says. */
export function applyRetryAfter(reply: Reply, rule: FaultRule, retryAfterSeconds: number | null): Reply {
  const headers = { ...reply.headers };
  if (rule.retryAfter === null) delete headers['retry-after'];
  else if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
  else if (retryAfterSeconds !== null && rule.html !== true && RETRY_AFTER_STATUSES.includes(reply.status)) {
    headers['retry-after'] ??= String(retryAfterSeconds);
  }
  return { ...reply, headers };
}

export function htmlErrorPage(status: number): string {
  const title = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
  return [
    '<!DOCTYPE html>',
    `<html><head><title>${title}</title></head>`,
    `<body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`,
    '',
  ].join('\n');
}

/** Removes a field; dotted paths go into objects and through every element of arrays (`history.toolName`). */
function dropPath(value: unknown, segments: readonly string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) dropPath(item, segments);
    return;
  }
  if (!isRecord(value) || segments.length === 0) return;
  const [head, ...rest] = segments;
  if (rest.length === 0) delete value[head];
  else dropPath(value[head], rest);
}

/** Applies `dropFields` then merges `extraFields` (top level, overriding) into a JSON object. */
export function alterJson(value: unknown, rule: FaultRule): unknown {
  if (!isRecord(value)) return value;
  const copy = structuredClone(value);
  for (const path of rule.dropFields ?? []) dropPath(copy, path.split('.'));
  return { ...copy, ...(rule.extraFields ?? {}) };
}
