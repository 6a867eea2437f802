/**
 * The emulator's domain model: what the service stores. Pure types, no runtime code.
 *
 * These are the *service's* shapes, written independently of the extension's own view in
 * `src/api/types.ts`, so that a disagreement between the two shows up in tests instead of
 * being hidden by a shared type.
 */

// ---------------------------------------------------------------- workspaces and tokens

export interface ProviderCredential {
  /** Provider key as it appears in model ids, e.g. `openai` for `openai/gpt-5`. */
  provider: string;
  /** Expired or disconnected credentials stay listed with `active: false`. */
  active: boolean;
}

export interface Member {
  email: string;
  role: 'admin' | 'member';
  credentials: ProviderCredential[];
}

export interface Project {
  appId: string;
  projectId: string;
  projectName: string;
  /** Only verified projects can be targeted through the REST API. */
  verified: boolean;
}

export interface Plan {
  id: string;
  name: string;
  apiAccess: boolean;
  /**
   * How many agent conversations of the workspace may be active (`queued` or `running`) at once
   * under `shapes: 'deployed'`; absent: the plan table's number for `id` (plans.ts).
   */
  concurrentAgents?: number;
  /** How many test runs (a group run counts once) may be active at once (deployed shapes); absent: 3 (testRuns.ts). */
  concurrentTestRuns?: number;
}

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  /** Balance used by service-hosted models; each turn costs the model's `creditsPerTurn`. */
  paidCredits: number;
  members: Member[];
  projects: Project[];
}

/** Which projects a token may target: every project of its workspace, or a list of app IDs. */
export type TokenScope = 'all' | string[];

export interface ApiToken {
  id: string;
  name: string;
  /** The secret as the caller sends it: `agr_<secret>`. */
  value: string;
  workspaceId: string;
  projects: TokenScope;
  createdAt: number;
  revokedAt?: number;
  lastUsedAt?: number;
}

// ---------------------------------------------------------------- agent runs

export type KnownRunStatus = 'queued' | 'running' | 'completed' | 'error';

/** A JSON object, as the deployed service sends tool parameters and attachments. */
export type JsonObject = Record<string, unknown>;

/**
 * A message as stored. The reference's shapes: `content` a string, `toolParameters` a JSON
 * document as a string, `attachments` strings. The deployed service's (`shapes: 'deployed'`):
 * `content` may be null (a tool call with parameters only), `toolParameters` an object,
 * `attachments` objects. A message keeps the shapes it was written with.
 */
export interface Message {
  id: string;
  sequence: number;
  role: string;
  content: string | null;
  toolName?: string;
  toolParameters?: string | JsonObject | null;
  attachments?: (string | JsonObject)[];
  createdAt: number;
}

export interface Lifecycle {
  conversationState: string;
  sandboxState: string;
  queuedTurnCount: number;
  /** `null` (deployed shapes): no lifecycle event since the run was created. */
  lastLifecycleEventAt: number | null;
}

/** A prompt waiting for its turn, or being worked on. */
export interface Turn {
  number: number;
  prompt: string;
  acceptedAt: number;
  creditsCharged: number;
  /** The prompt was stored in the history when the turn was accepted (`staleStatusAfterFollowUpMs`), not when it starts. */
  promptStored?: boolean;
}

/** What a code review compares (service-api-wider.md §2; codeReviews.ts serves `/code-reviews`). */
export interface CodeReviewInfo {
  reviewId: string;
  fromVersion: string;
  toVersion: string;
  title: string;
  description?: string | null;
  focusAreas?: string | null;
}

/** A code review as stored (deployed shapes; `GET /code-reviews`); its conversation is the run `agentId`. */
export interface CodeReviewRecord {
  reviewId: string;
  agentId: string;
  workspaceId: string;
  appId: string;
  /** Per project, from 1. */
  sequence: number;
  /** `open`, `merged` or `closed`; only the admin API moves it (the public API has no way). */
  status: string;
  title: string;
  description: string | null;
  focusAreas: string | null;
  fromVersion: string;
  toVersion: string;
  /** The member who asked (userEmail, else the workspace's first admin). */
  requestedByEmail: string;
  /**
   * How it was made: `rest` (`POST /code-reviews`; C serves its detail and names a requester only
   * when `userEmail` was given) or `ui` (the seed and the admin route: the service's own UI).
   */
  origin: 'rest' | 'ui';
  /** A REST start's `userEmail` was given (the requester is a person the request named). */
  requesterNamed: boolean;
  /** A REST start's `title` was given (C sends `title: null` otherwise). */
  titleGiven: boolean;
  /** The versions compared: `fromVersion`/`toVersion` as sent (a branch or a version), these as resolved (unknown for an admin's free-form names). */
  fromVersionId: string | null;
  toVersionId: string | null;
  model: string;
  createdAt: number;
  /** The last change to the review itself (a merge or close); the read adds its conversation's and findings' times. */
  updatedAt: number;
  mergedAt: number | null;
  closedAt: number | null;
  mergeId: string | null;
}

/** A stored version of an app (service-api-wider.md §7); versions.ts. */
export interface VersionRecord {
  versionId: string;
  appId: string;
  /** The branch id. */
  version: string;
  branchLabel: string;
  /** Per app, from 1 (oldest). */
  number: number;
  /** Seeded versions: their stage; synced ones (`syncing`) derive it from the clock. */
  stage: string;
  syncSource: string;
  /** A and B: a sentence; C: `lastChangeAt`. */
  lastChange: string;
  /** When the branch last changed before this snapshot (Unix ms; C's numeric `lastChange`). */
  lastChangeAt: number;
  createdAt: number;
  syncedAt: number | null;
  completedAt: number | null;
  errorMessage: string | null;
  fileSha256: string;
  fileSizeBytes: number;
  /** Started by `POST /versions/sync`: the stage moves on the clock from `createdAt`. */
  syncing?: boolean;
  /** A sync told to fail (`PUT /__admin/sync-failure`): it fails one step after it started, with this error. */
  failWith?: string;
}

export interface AgentRecord {
  agentId: string;
  /** `agent`, or `code_review` for a review agent's conversation (deployed shapes; takes no follow-ups). */
  kind: string;
  /** For a `code_review` conversation: the review it works through (its `reviewId` is served). */
  review?: CodeReviewInfo;
  workspaceId: string;
  appId: string;
  projectId: string;
  projectName?: string;
  model: string;
  /** `null`: none chosen (a start without it under deployed shapes, a code review). */
  reasoningEffort: string | null;
  permission: string;
  permittedBranches: string[];
  /** Kept internally (whose credentials run the model); never in the public view. */
  userEmail?: string;
  /** The token that created the run. */
  createdByTokenId: string;
  /** The most recently supplied `completionWebhookUrl` (start or follow-up). */
  completionWebhookUrl?: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  completedAt?: number;
  lastError?: string;
  history: Message[];
  lifecycle: Lifecycle;
  /** Turns accepted but not started, oldest first. */
  pendingTurns: Turn[];
  /** Number of turns accepted so far (the initial prompt is turn 1). */
  turnCount: number;
  creditsCharged: number;
  /** Fields added with `PATCH /__admin/agents/:id` that the model does not know; `null` values are sent as `null`. */
  extraFields: Record<string, unknown>;
  /** Set when an admin forced the status: the run no longer progresses on its own. */
  halted: boolean;
}

// ---------------------------------------------------------------- test groups

export interface TestGroupRecord {
  groupId: string;
  workspaceId: string;
  appId: string;
  projectId: string;
  name: string;
  description: string | null;
  /** In the order the caller gave them. */
  testIds: string[];
  createdAt: number;
  createdByTokenId: string;
  /** Deployed shapes: the last `PUT` (absent: `createdAt`), and when `DELETE` archived it (then 404). */
  updatedAt?: number;
  archivedAt?: number;
}

// ---------------------------------------------------------------- settings and seed

/** See settings.ts; `PATCH /__admin/settings` and `startEmulator({ preset, settings })` change them. */
export interface Settings {
  /**
   * Messages `GET /agents/{id}` returns (the most recent ones) when the request has no
   * `historyLimit`; `null`: as many as `historyMax` allows.
   */
  historyDefault: number | null;
  /** The largest `historyLimit` served; a larger request is clamped to it. `null`: no maximum (the whole history). */
  historyMax: number | null;
  /** When a number, every 429, 502 and 503 JSON answer carries `Retry-After` with it unless its fault rule says otherwise. */
  retryAfterSeconds: number | null;
  /** Agent objects, their messages and lifecycle, start and follow-up answers carry fields the reference does not list. */
  unknownFields: boolean;
  /** Runs use `role`, `conversationState` and `sandboxState` values the emulator does not otherwise send (see habits.ts). */
  unknownValues: boolean;
  /**
   * When a number, `GET /agents/{id}` may be answered by a replica that shows the run as it was
   * this many ms (emulator clock) ago (see staleReads.ts); `null`: every read is current.
   */
  staleReadMs: number | null;
  /** With `staleReadMs`, which reads the lagging replica answers: every one (1), or every N-th (the others are current). */
  staleReadEvery: number;
  /**
   * When a number, for this many ms (emulator clock) after a follow-up re-opens a finished run,
   * reads show its prompt in the history but still the previous turn's completion (see staleReads.ts).
   */
  staleStatusAfterFollowUpMs: number | null;
  /**
   * When a number, for this many ms (emulator clock) after a run is created, `GET /agents/{id}`
   * answers 404 `agent_not_found`: a replica that has not seen the new run yet. POSTs and the
   * admin view see it at once.
   */
  notFoundAfterStartMs: number | null;
  /** The shapes served: the reference's or the deployed service's (see settings.ts and shapes.ts). */
  shapes: 'reference' | 'deployed';
  /**
   * Which published version of the wider API the deployed shapes follow where A and B differ
   * (service-api-wider.md): `B` adds `cursor` to a code review's `provider`.
   */
  wideApiVersion: 'A' | 'B';
}

export interface TokenSeed {
  id: string;
  name: string;
  value: string;
  workspaceId: string;
  projects: TokenScope;
  revoked?: boolean;
}

export interface Seed {
  workspaces: Workspace[];
  tokens: TokenSeed[];
  settings: Settings;
}

/** Ready-made token values of the default seed. */
export interface DemoTokens {
  /** Workspace with API access and paid credits; all projects. */
  default: string;
  /** Same workspace, scoped to some projects only. */
  scoped: string;
  /** Workspace whose plan lacks API access. */
  noApiAccess: string;
  /** Workspace with API access but no paid credits. */
  noCredits: string;
  /** Already revoked. */
  revoked: string;
}

// ---------------------------------------------------------------- observability

export interface LoggedRequest {
  /** Emulator clock time when the request arrived (Unix ms). */
  at: number;
  /** Origin of the listener that received it (API or foreign). */
  origin: string;
  method: string;
  /** Full path including the query string. */
  path: string;
  /** Lower-cased header names; values as received (repeated headers joined with `, `). */
  headers: Record<string, string>;
  body: string;
  /** Status sent; absent while pending or when the connection was destroyed. */
  status?: number;
  /** Id of the fault rule applied to this request, if any. */
  fault?: string;
}

export interface WebhookAttempt {
  attempt: number;
  /** Emulator clock time of the attempt. */
  at: number;
  status?: number;
  error?: string;
  /** Real time the attempt took. */
  durationMs: number;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed' | 'refused';

export interface WebhookDelivery {
  id: string;
  agentId: string;
  event: string;
  url: string;
  createdAt: number;
  /** The exact JSON body posted. */
  body: string;
  state: WebhookDeliveryState;
  attempts: WebhookAttempt[];
  nextAttemptAt?: number;
  /** Why a delivery was refused without an attempt (non-loopback host, bad scheme). */
  refusedReason?: string;
}

// ---------------------------------------------------------------- faults

export interface FaultRule {
  method?: string;
  /** Regular expression source matched against the path relative to the base URL (no query). */
  path?: string;
  /** How many matching requests it applies to; default 1; 0 = unlimited. */
  times?: number;
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  bodyDelayMs?: number;
  reset?: boolean;
  html?: boolean;
  truncate?: boolean;
  redirectTo?: 'foreign' | (string & {});
  redirectStatus?: number;
  extraFields?: Record<string, unknown>;
  dropFields?: string[];
  passThrough?: boolean;
  /** `Retry-After` on the response: seconds, or a string sent as is (an HTTP-date); `null` removes it. */
  retryAfter?: number | string | null;
  /** Sends the headers (with the full `content-length`) and half the body, then destroys the socket. */
  cutBody?: boolean;
}
