/**
 * What the test, test run and automation parsers share (service-api-wider.md §3–§6): tolerant
 * times, numbers and lists, the two status spellings (runs `canceled`, steps `cancelled`;
 * `rawStatus` keeps what the service wrote), the step types of both published versions, artifacts.
 */
import * as z from 'zod/mini';
import { compact, isRecord, objectsOf, optNumber } from './parse';
import type { TestArtifact, TestRunCounts, TestRunStatus, TestStepStatus, TestStepType } from './testTypes';
import { oneLine } from './sanitize';
import { isHttpUrl } from './validate';

export const optBoolean = z.catch(z.optional(z.boolean()), undefined);

/** The elements of an array that are objects and parse; anything that is not an array is empty. */
export function listOf<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T[]> {
  return z.pipe(z.optional(z.unknown()), z.transform((value): T[] => (Array.isArray(value) ? objectsOf(value, schema) : [])));
}

/** Unix milliseconds from a number, a string of digits, or an ISO date; anything else is absent. */
export const optTime = z.pipe(z.optional(z.unknown()), z.transform((value): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}));

/** A finite number (a position, an order, a count); anything else is absent. */
export const optFinite = z.pipe(optNumber, z.transform((n) => (n !== undefined && Number.isFinite(n) ? n : undefined)));

// ---------------------------------------------------------------- statuses

const RUN_STATUSES = ['queued', 'running', 'passed', 'warning', 'error', 'canceled'];
const STEP_STATUSES = ['pending', 'passed', 'warning', 'error', 'cancelled', 'skipped'];

/**
 * A status as the extension compares it, and as the service wrote it. Known values are matched
 * without regard to case or surrounding space; `cancelled`/`canceled` is spelled `spelled`;
 * anything else is kept exactly as sent. Absent: `fallback`, with no raw status.
 */
function statusOf(raw: string | undefined, known: readonly string[], spelled: string, fallback: string): { status: string; rawStatus?: string } {
  if (raw === undefined || raw.trim() === '') return { status: fallback };
  const word = raw.trim().toLowerCase();
  const status = word === 'canceled' || word === 'cancelled' ? spelled : known.includes(word) ? word : raw;
  return { status, rawStatus: raw };
}

/** A run's or group run's status: `canceled` (one l). Absent: `queued` (nothing says it runs). */
export function runStatusOf(raw: string | undefined): { status: TestRunStatus; rawStatus?: string } {
  return statusOf(raw, RUN_STATUSES, 'canceled', 'queued');
}

/** A step's status: `cancelled` (two l). Absent: `pending`. */
export function stepStatusOf(raw: string | undefined): { status: TestStepStatus; rawStatus?: string } {
  return statusOf(raw, STEP_STATUSES, 'cancelled', 'pending');
}

/** B's `stepType`, else A's `kind` (`step`/`test`/`direct` → `test`), else a component by its reference. */
export function stepTypeOf(stepType: string | undefined, kind: string | undefined, componentId: string | undefined): TestStepType | undefined {
  const given = stepType ?? kind;
  if (given === undefined || given.trim() === '') return componentId !== undefined ? 'component' : undefined;
  const word = given.trim().toLowerCase();
  if (word === 'step' || word === 'test' || word === 'direct' || word === 'instruction') return 'test';
  if (word === 'component' || word === 'component_ref' || word === 'component_reference') return 'component';
  if (word === 'condition') return 'condition';
  return given;
}

// ---------------------------------------------------------------- artifacts

const URL_KEYS = ['url', 'href', 'link', 'downloadUrl', 'signedUrl', 'publicUrl', 'src'];
const LABEL_KEYS = ['name', 'label', 'title', 'filename', 'fileName'];
const KIND_KEYS = ['kind', 'type', 'mimeType', 'contentType'];

function firstString(r: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const v = r[key];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/** The last segment of a URL's path, decoded; undefined when it has none. */
function lastSegment(url: string): string | undefined {
  const segment = new URL(url).pathname.split('/').filter((s) => s !== '').pop();
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** One artifact of undocumented shape: a URL string, or an object naming one. */
function artifactOf(item: unknown): TestArtifact | undefined {
  const r: Record<string, unknown> = typeof item === 'string' ? { url: item } : isRecord(item) ? item : {};
  const rawUrl = firstString(r, URL_KEYS);
  // Only a web link is ever offered: a `javascript:`, `file:` or `command:` one is dropped.
  const url = rawUrl !== undefined && isHttpUrl(rawUrl) ? rawUrl : undefined;
  const kind = firstString(r, KIND_KEYS);
  const label = firstString(r, LABEL_KEYS) ?? kind ?? (url !== undefined ? lastSegment(url) ?? new URL(url).host : undefined);
  if (label === undefined) return undefined;
  return compact({ label: oneLine(label, 200), url, kind: kind === undefined ? undefined : oneLine(kind, 80) });
}

/** Artifacts whatever their shape: a list, or one; those with neither a web link nor a name are dropped. */
export const artifactsSchema = z.pipe(z.optional(z.unknown()), z.transform((value): TestArtifact[] => {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return items.map(artifactOf).filter((a): a is TestArtifact => a !== undefined);
}));

/** Counts of undocumented shape: only finite numbers are kept; anything else is absent. */
export const countsSchema = z.pipe(z.optional(z.unknown()), z.transform((value): TestRunCounts | undefined => {
  if (!isRecord(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(value)) {
    if (typeof n === 'number' && Number.isFinite(n)) out[key] = n;
  }
  return out;
}));

/** Elements sorted by a number (stable; those without one keep their place after those before them). */
export function sortedBy<T>(items: T[], key: (item: T, index: number) => number): T[] {
  return items.map((item, index) => ({ item, at: key(item, index), index }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((e) => e.item);
}
