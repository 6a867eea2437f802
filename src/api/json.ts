/**
 * JSON values as the service sends them, kept whatever their shape. Pure, no `vscode`.
 */
import type { JsonValue } from './types';

/** Deeper than this, a value is cut (kept as the string `"…"`): no service nests that far. */
const MAX_DEPTH = 32;

/**
 * A JSON copy of `v`, or `undefined` when `v` is not a JSON value (`undefined`, a function, a
 * non-finite number). Object keys keep their order; `undefined` members are dropped as
 * `JSON.stringify` would.
 */
export function asJson(v: unknown, depth = 0): JsonValue | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'object') return undefined;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const item of v) out.push(asJson(item, depth + 1) ?? null);
    return out;
  }
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(v)) {
    const value = asJson(item, depth + 1);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Tool parameters as kept: any JSON value but `null`. */
export function toolParametersOf(v: unknown): JsonValue | undefined {
  const json = asJson(v);
  return json === null ? undefined : json;
}

/** Attachments as kept: a list without `null`s; a lone object or string as a one-element list. */
export function attachmentsOf(v: unknown): JsonValue[] | undefined {
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const item of v) {
      const json = asJson(item);
      if (json !== null && json !== undefined) out.push(json);
    }
    return out;
  }
  if (typeof v === 'string' || (typeof v === 'object' && v !== null)) {
    const json = asJson(v);
    return json === undefined ? undefined : [json];
  }
  return undefined;
}

/** Deep equality of two JSON values (object key order ignored). */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson(a[k], b[k]));
}

/** Characters a value takes as compact JSON (a string counts its own length). */
export function jsonLength(v: JsonValue | undefined): number {
  if (v === undefined) return 0;
  if (typeof v === 'string') return v.length;
  return JSON.stringify(v).length;
}
