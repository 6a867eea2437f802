/**
 * Emulator settings: how closely it copies a real deployment's habits where the reference is
 * silent, and which shapes it serves. Three presets: `reference` (the default: whole
 * histories, no Retry-After unless a fault rule gives one, only documented fields, every read
 * current), `real` (what a real deployment does and a client must cope with: capped
 * histories, Retry-After on 429/502/503, unknown fields, reads from a lagging replica, a
 * status that lags a follow-up) and `deployed` (`real`'s habits with the deployed service's
 * shapes, `shapes: 'deployed'`: see shapes.ts and service-api-wider.md §1).
 *
 * One parser serves `PATCH /__admin/settings`, `startEmulator({ settings })` and the seed,
 * so every way in accepts and rejects the same values.
 */
import type { Settings } from './domain';
import { ServiceError } from './errors';

/** What a real deployment does with `historyLimit`: 20 messages unless asked, never more than 500. */
export const REAL_HISTORY = { historyDefault: 20, historyMax: 500 } as const;

/** What the deployed service documents for `historyLimit`: 100 messages unless asked, at most 500. */
export const DEPLOYED_HISTORY = { historyDefault: 100, historyMax: 500 } as const;

/**
 * Which shapes the API serves: `reference` (service-api.md: string tool parameters and
 * attachments, 201 on a start, optional fields left out) or `deployed` (service-api-wider.md
 * §1: object parameters and attachments, six roles, nulls, 202 on a start, the 409s, code
 * review conversations, retired models on old runs). See shapes.ts.
 */
export const SHAPES = ['reference', 'deployed'] as const;
export type Shapes = (typeof SHAPES)[number];

/**
 * What a real deployment's reads do (staleReads.ts): a replica 2 s behind answers them, and for
 * 3 s after a follow-up re-opens a finished run its status still says the last turn's completion.
 */
export const REAL_STALE_READS = { staleReadMs: 2_000, staleReadEvery: 1, staleStatusAfterFollowUpMs: 3_000, notFoundAfterStartMs: null } as const;

const CURRENT_READS = { staleReadMs: null, staleReadEvery: 1, staleStatusAfterFollowUpMs: null, notFoundAfterStartMs: null } as const;

export const PRESETS = {
  reference: { historyDefault: null, historyMax: null, retryAfterSeconds: null, unknownFields: false, unknownValues: false, ...CURRENT_READS, shapes: 'reference', wideApiVersion: 'A' },
  real: { ...REAL_HISTORY, retryAfterSeconds: 5, unknownFields: true, unknownValues: false, ...REAL_STALE_READS, shapes: 'reference', wideApiVersion: 'A' },
  deployed: { ...DEPLOYED_HISTORY, retryAfterSeconds: 5, unknownFields: true, unknownValues: false, ...REAL_STALE_READS, shapes: 'deployed', wideApiVersion: 'A' },
} as const satisfies Record<string, Settings>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(value: unknown): value is PresetName {
  return typeof value === 'string' && (PRESET_NAMES as readonly string[]).includes(value);
}

/**
 * A change to the settings. `preset` is applied first, then the other keys. `historyLimit` is
 * the old single key, kept for callers written before the query parameter existed: it caps
 * every read at N whatever the client asks (`historyDefault` = `historyMax` = N; `null` lifts both).
 */
export interface SettingsPatch extends Partial<Settings> {
  preset?: PresetName;
  historyLimit?: number | null;
}

const KEYS: readonly string[] = [
  'preset', 'historyLimit', 'historyDefault', 'historyMax', 'retryAfterSeconds', 'unknownFields', 'unknownValues',
  'staleReadMs', 'staleReadEvery', 'staleStatusAfterFollowUpMs', 'notFoundAfterStartMs', 'shapes',
  'wideApiVersion',
];

/** The published versions of the wider API (service-api-wider.md): `B` adds `cursor` to a review's provider. */
export const WIDE_API_VERSIONS = ['A', 'B'] as const;

/** A settings value that cannot be applied; the message names the key. */
export class SettingsError extends Error {}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function limitOrNull(input: Record<string, unknown>, key: string): number | null | undefined {
  const value = input[key];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new SettingsError(`"${key}" must be an integer of at least 1, or null.`);
  return value;
}

/** Checks a patch received as JSON (or passed to `startEmulator`); throws SettingsError. */
export function parseSettingsPatch(input: unknown): SettingsPatch {
  if (!isRecord(input)) throw new SettingsError('Settings must be a JSON object.');
  for (const key of Object.keys(input)) {
    if (!KEYS.includes(key)) throw new SettingsError(`Unknown setting "${key}"; known: ${KEYS.join(', ')}.`);
  }
  const patch: SettingsPatch = {};
  if (input.preset !== undefined) {
    if (!isPresetName(input.preset)) throw new SettingsError(`"preset" must be one of: ${PRESET_NAMES.join(', ')}.`);
    patch.preset = input.preset;
  }
  for (const key of ['historyLimit', 'historyDefault', 'historyMax', 'staleReadMs', 'staleStatusAfterFollowUpMs', 'notFoundAfterStartMs'] as const) {
    const value = limitOrNull(input, key);
    if (value !== undefined) patch[key] = value;
  }
  if ('historyLimit' in patch && ('historyDefault' in patch || 'historyMax' in patch)) {
    throw new SettingsError('"historyLimit" is the old key for historyDefault and historyMax together; send either it or them.');
  }
  const retryAfter = input.retryAfterSeconds;
  if (retryAfter !== undefined) {
    if (retryAfter !== null && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)) {
      throw new SettingsError('"retryAfterSeconds" must be a non-negative integer, or null.');
    }
    patch.retryAfterSeconds = retryAfter;
  }
  for (const key of ['unknownFields', 'unknownValues'] as const) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new SettingsError(`"${key}" must be a boolean.`);
    patch[key] = value;
  }
  const every = input.staleReadEvery;
  if (every !== undefined) {
    if (typeof every !== 'number' || !Number.isInteger(every) || every < 1) throw new SettingsError('"staleReadEvery" must be an integer of at least 1.');
    patch.staleReadEvery = every;
  }
  const shapes = input.shapes;
  if (shapes !== undefined) {
    if (!isShapes(shapes)) throw new SettingsError(`"shapes" must be one of: ${SHAPES.join(', ')}.`);
    patch.shapes = shapes;
  }
  const wide = input.wideApiVersion;
  if (wide !== undefined) {
    if (wide !== 'A' && wide !== 'B') throw new SettingsError(`"wideApiVersion" must be one of: ${WIDE_API_VERSIONS.join(', ')}.`);
    patch.wideApiVersion = wide;
  }
  return patch;
}

export function isShapes(value: unknown): value is Shapes {
  return typeof value === 'string' && (SHAPES as readonly string[]).includes(value);
}

/** The settings after a patch (the base is not changed); throws SettingsError when the result is inconsistent. */
export function applySettingsPatch(base: Settings, patch: SettingsPatch): Settings {
  const next: Settings = { ...(patch.preset === undefined ? base : PRESETS[patch.preset]) };
  if (patch.historyLimit !== undefined) {
    next.historyDefault = patch.historyLimit;
    next.historyMax = patch.historyLimit;
  }
  if (patch.historyDefault !== undefined) next.historyDefault = patch.historyDefault;
  if (patch.historyMax !== undefined) next.historyMax = patch.historyMax;
  if (patch.retryAfterSeconds !== undefined) next.retryAfterSeconds = patch.retryAfterSeconds;
  if (patch.unknownFields !== undefined) next.unknownFields = patch.unknownFields;
  if (patch.unknownValues !== undefined) next.unknownValues = patch.unknownValues;
  if (patch.staleReadMs !== undefined) next.staleReadMs = patch.staleReadMs;
  if (patch.staleReadEvery !== undefined) next.staleReadEvery = patch.staleReadEvery;
  if (patch.staleStatusAfterFollowUpMs !== undefined) next.staleStatusAfterFollowUpMs = patch.staleStatusAfterFollowUpMs;
  if (patch.notFoundAfterStartMs !== undefined) next.notFoundAfterStartMs = patch.notFoundAfterStartMs;
  if (patch.shapes !== undefined) next.shapes = patch.shapes;
  if (patch.wideApiVersion !== undefined) next.wideApiVersion = patch.wideApiVersion;
  // A default above the maximum would be clamped on every read: almost surely a mistake.
  if (next.historyDefault !== null && next.historyMax !== null && next.historyDefault > next.historyMax) {
    throw new SettingsError(`"historyDefault" (${next.historyDefault}) must not exceed "historyMax" (${next.historyMax}).`);
  }
  return next;
}

/** How many messages a read returns when the client does not ask: the default, else the maximum, else all (`null`). */
export function effectiveHistoryDefault(settings: Settings): number | null {
  return settings.historyDefault ?? settings.historyMax;
}

/** How many of the most recent messages a read returns for a requested limit (already checked ≥ 1); `null`: all. */
export function historyLimitFor(settings: Settings, requested: number | undefined): number | null {
  const wanted = requested ?? effectiveHistoryDefault(settings);
  if (wanted === null) return null;
  // Above the maximum is clamped, not refused: a client cannot tell from the answer alone.
  return settings.historyMax === null ? wanted : Math.min(wanted, settings.historyMax);
}

/**
 * The `historyLimit` query parameter: absent, or one decimal integer of at least 1.
 * Anything else is a 400 `invalid_request` naming it, as a bad body field would be.
 */
export function parseHistoryLimit(query: URLSearchParams): number | undefined {
  const values = query.getAll('historyLimit');
  if (values.length === 0) return undefined;
  if (values.length > 1) throw ServiceError.invalid('historyLimit', '`historyLimit` must be given at most once.');
  const text = values[0];
  // Digits only: `2.0`, `1e3`, `-1`, ` 5` are refused; a huge number is just above any maximum.
  const value = /^[0-9]+$/.test(text) ? Math.min(Number(text), Number.MAX_SAFE_INTEGER) : NaN;
  if (Number.isNaN(value) || value < 1) {
    throw ServiceError.invalid('historyLimit', `\`historyLimit\` must be an integer of at least 1, got "${text.slice(0, 40)}".`);
  }
  return value;
}
