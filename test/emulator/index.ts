/**
 * A faithful local implementation of the service's published reference, for every test tier,
 * the benchmark and the demo. Start it with `startEmulator()`; see README.md in this folder.
 */
import { createAdminHandler } from './admin';
import { Scheduler } from './clock';
import { AppTestService } from './appTests';
import { CodeReviewService } from './codeReviews';
import type { DemoTokens, FaultRule, LoggedRequest, Seed, WebhookDelivery } from './domain';
import { FaultStore } from './faults';
import { buildOpenApi } from './openapi';
import { DEMO_TOKENS, defaultSeed } from './seed';
import { ApiServer, closeServer, Delays, ForeignServer, RequestLog } from './server';
import { AgentService, newId } from './service';
import {
  applySettingsPatch, isPresetName, parseSettingsPatch, PRESET_NAMES, PRESETS, SettingsError, type PresetName, type SettingsPatch,
} from './settings';
import { ADMIN_PATH, BASE_PATH } from './spec';
import { EmulatorState } from './state';
import { DEFAULT_WIDER, isWiderVersion, WIDER_VERSIONS, type WiderVersion } from './testDomain';
import { TestRunService } from './testRuns';
import { WebhookDispatcher } from './webhooks';

export type * from './domain';
export { EmulatorState } from './state';
export { DEMO_TOKENS, SEED, TOKEN_PREFIX, defaultSeed } from './seed';
export { MODELS, MODEL_IDS, RETIRED_MODELS, READABLE_MODEL_IDS, findModel, type ModelInfo, type ModelKind } from './models';
export { BASE_PATH, ADMIN_PATH } from './spec';
export { MANUAL_EPOCH } from './clock';
export { DIRECTIVES } from './runs';
export { WEBHOOK_RETRY_STEPS } from './webhooks';
export {
  PRESETS, PRESET_NAMES, REAL_HISTORY, REAL_STALE_READS, DEPLOYED_HISTORY, SHAPES, WIDE_API_VERSIONS, type PresetName, type SettingsPatch, type Shapes,
} from './settings';
export { CODE_REVIEW_KIND, DEPLOYED_CONVERSATION_STATES, DEPLOYED_ROLES, DEPLOYED_SANDBOX_STATES, KINDS } from './shapes';
export { PLAN_CONCURRENT_AGENTS, DEFAULT_CONCURRENT_AGENTS, concurrentAgentLimit } from './plans';
export { CONFLICT_REASONS } from './errors';
export { RETIRED_MODEL_RUN } from './deployedSeed';
export { UNKNOWN_FIELDS, UNKNOWN_VALUES } from './habits';
export { REVIEW_STATUSES, REVIEW_PROVIDERS, DEFAULT_REVIEW_MODEL, reviewProvider } from './codeReviews';
export { SEEDED_REVIEWS } from './reviewSeed';
export { FINDING_AUTHORS, FINDING_PRIORITIES, FINDING_STATES, FINDING_TYPES, REVIEW_AGENT_NAME, REVIEW_TEAMMATE } from './reviewFindings';
export { NEVER_SYNCED_BRANCH, SYNC_STEPS, VERSION_BRANCHES, VERSION_STAGES, VERSIONS_PAGE, SYNC_SOURCES } from './versions';
export { DEFAULT_WIDER, WIDER_VERSIONS, type WiderVersion } from './testDomain';
export { SEEDED_TESTS } from './testSeed';
export { STEP_MARKERS, STEP_STATUSES, TEST_RUN_STATUSES, ARTIFACTS_ORIGIN } from './testRunSteps';
export { DEFAULT_CONCURRENT_TEST_RUNS, LIVE_BRANCH } from './testRuns';
export { DEFAULT_TEST_RUN_MODEL } from './testRunViews';
export { AUTOMATION_RUN_STEPS } from './appTests';
export { TEST_REASONS, VERSION_REASONS } from './errors';

/** Parts of the default data to replace; `settings` is a patch over the preset (see settings.ts). */
export type SeedOverrides = Partial<Omit<Seed, 'settings'>> & { settings?: SettingsPatch };

export interface EmulatorOptions {
  /** Default 0 (ephemeral); the host is always 127.0.0.1. */
  port?: number;
  /** Default `real`. `manual`: time only moves on `advance(ms)`. */
  clock?: 'real' | 'manual';
  /** Emulator time between two steps of a run (and the unit of webhook backoff); default 1000. */
  stepMs?: number;
  /** Overrides parts of the default data (each given key replaces the default's). */
  seed?: SeedOverrides;
  /**
   * Default `reference` (whole histories, Retry-After only when a fault rule gives one, only
   * documented fields, every read current). `real`: a real deployment's habits (history 20 by
   * default, 500 at most; Retry-After 5 on 429/502/503; unknown fields; stale reads).
   * `deployed`: those habits (history 100 by default, 500 at most) with the deployed service's
   * shapes (`shapes: 'deployed'`). See settings.ts.
   */
  preset?: PresetName;
  /** Changes to the preset's settings, e.g. `{ historyDefault: 20, historyMax: 500 }`; `reset()` comes back to them. */
  settings?: SettingsPatch;
  /**
   * Which published version of the wider API (service-api-wider.md §2–§7) the deployed shapes serve
   * where versions differ: `C` (the default, the newest: `GET /versions` needs a branch, review items
   * without `id`, wrapped test users, C's nulls), `B` (graphs, `isComponent`, group list, edit and
   * delete) or `A` (flat steps, `membershipId`, no group list or edits). `PUT /__admin/wider` changes
   * it; `reset()` comes back to this.
   */
  wider?: WiderVersion;
  /** Default true. When false, prints one line per API request (never headers or bodies). */
  quiet?: boolean;
}

export interface Emulator {
  /** `http://127.0.0.1:PORT/api/public/v1` */
  readonly baseUrl: string;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/__admin` */
  readonly adminUrl: string;
  /** A second listener, target of cross-origin redirects; logs requests and answers 200 `{"ok":true}`. */
  readonly foreignOrigin: string;
  readonly tokens: DemoTokens;
  /** Every request to the API listener (admin routes excluded) and to the foreign one, in order. */
  readonly requests: ReadonlyArray<LoggedRequest>;
  readonly foreignRequests: ReadonlyArray<LoggedRequest>;
  readonly webhookDeliveries: ReadonlyArray<WebhookDelivery>;
  readonly state: EmulatorState;
  inject(rule: FaultRule): void;
  clearFaults(): void;
  /**
   * Ends every `delayMs` and `bodyDelayMs` hold now, as if its time had passed: a test holds a
   * request for longer than it needs, then lets it go once it has seen what happens meanwhile.
   */
  releaseHeld(): void;
  /** Moves the clock and runs every step and webhook attempt that falls due (awaited). */
  advance(ms: number): Promise<void>;
  /** Back to the seed; clears logs, faults, deliveries and scheduled work; a manual clock restarts at its epoch. */
  reset(): void;
  /** Closes both listeners, all timers and pending webhook deliveries. */
  close(): Promise<void>;
}

/** The preset, then the seed's settings, then `settings`; a bad value is a RangeError naming it. */
function resolveSettings(options: EmulatorOptions): Seed['settings'] {
  const preset: unknown = options.preset ?? 'reference';
  if (!isPresetName(preset)) throw new RangeError(`Unknown preset "${String(preset)}"; known: ${PRESET_NAMES.join(', ')}.`);
  let settings: Seed['settings'] = { ...PRESETS[preset] };
  try {
    for (const patch of [options.seed?.settings, options.settings]) {
      if (patch !== undefined) settings = applySettingsPatch(settings, parseSettingsPatch(patch));
    }
  } catch (error) {
    if (error instanceof SettingsError) throw new RangeError(error.message);
    throw error;
  }
  return settings;
}

function resolveSeed(options: EmulatorOptions): Seed {
  const base = defaultSeed();
  const overrides = options.seed;
  return {
    workspaces: overrides?.workspaces ?? base.workspaces,
    tokens: overrides?.tokens ?? base.tokens,
    settings: resolveSettings(options),
  };
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const stepMs = options.stepMs ?? 1000;
  if (!Number.isFinite(stepMs) || stepMs <= 0) throw new RangeError('stepMs must be a positive number');
  const quiet = options.quiet ?? true;
  const seed = resolveSeed(options);
  const wider: unknown = options.wider ?? DEFAULT_WIDER;
  if (!isWiderVersion(wider)) throw new RangeError(`Unknown wider version "${String(wider)}"; known: ${WIDER_VERSIONS.join(', ')}.`);

  const scheduler = new Scheduler(options.clock ?? 'real', (error) => console.error('[emulator] scheduled task failed', error));
  const state = new EmulatorState();
  state.load(seed, scheduler.now());
  state.wider = wider;
  const webhooks = new WebhookDispatcher(scheduler, stepMs, () => newId('whd'));
  const service = new AgentService(state, scheduler, webhooks, stepMs);
  const reviews = new CodeReviewService(state, service, scheduler, stepMs);
  const tests = new AppTestService(state, scheduler, stepMs);
  const testRuns = new TestRunService(state, scheduler, stepMs);
  const faults = new FaultStore();
  const log = new RequestLog();
  const delays = new Delays();

  service.seedDeployedRuns();
  const reset = (): void => {
    reviews.releaseSyncWaits();
    scheduler.reset();
    service.reset();
    testRuns.reset();
    webhooks.reset();
    faults.reset();
    log.clear();
    state.load(seed, scheduler.now());
    state.wider = wider;
    service.seedDeployedRuns();
  };

  const foreign = new ForeignServer(log, () => scheduler.now());
  let baseUrl = '';
  const api = new ApiServer({
    service,
    reviews,
    tests,
    testRuns,
    faults,
    scheduler,
    log,
    delays,
    quiet,
    settings: state.settings,
    openapi: () => buildOpenApi(baseUrl, state.settings, state.wider),
    foreignOrigin: () => foreign.origin,
    admin: createAdminHandler({ state, service, reviews, testRuns, faults, log, webhooks, scheduler, reset }),
  });

  await foreign.listen(0);
  try {
    await api.listen(options.port ?? 0);
  } catch (error) {
    await closeServer(foreign.server);
    throw error;
  }
  baseUrl = `${api.origin}${BASE_PATH}`;

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    origin: api.origin,
    adminUrl: `${api.origin}${ADMIN_PATH}`,
    foreignOrigin: foreign.origin,
    tokens: { ...DEMO_TOKENS },
    requests: log.all,
    foreignRequests: log.foreign,
    webhookDeliveries: webhooks.deliveries,
    state,
    inject: (rule) => {
      faults.add(rule);
    },
    clearFaults: () => faults.clear(),
    releaseHeld: () => delays.finishAll(),
    advance: (ms) => scheduler.advance(ms),
    reset,
    close: () => {
      closing ??= (async () => {
        delays.cancelAll();
        reviews.releaseSyncWaits();
        webhooks.abortAll();
        await scheduler.close();
        await Promise.all([closeServer(api.server), closeServer(foreign.server)]);
      })();
      return closing;
    },
  };
}
