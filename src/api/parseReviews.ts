/**
 * Parsing of code reviews and versions (service-api-wider.md §2, §7), as tolerant as ./parse, in
 * all three published versions: C's list items without `id` are kept, `lastChange` is a number
 * or text, `appVersion` stands for `version`, times are ISO strings or milliseconds.
 */
import * as z from 'zod/mini';
import {
  agentSchema, compact, invalidResponse, isRecord, objectsOf, optNumber, optString, optStringList, requiredId, run,
} from './parse';
import type {
  AppVersion, CodeReviewDetail, CodeReviewListItem, CodeReviewLists, CodeReviewStarted, ReviewComment, ReviewItem,
  VersionPage, VersionSync,
} from './reviewTypes';
import type { Agent } from './types';

const optBoolean = z.catch(z.optional(z.boolean()), undefined);

/** The elements of an array that are objects and parse; anything that is not an array is empty. */
function listOf<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T[]> {
  return z.pipe(z.optional(z.unknown()), z.transform((value): T[] => (Array.isArray(value) ? objectsOf(value, schema) : [])));
}

/** One object parsed by `schema`, or absent when it is not an object or does not parse. */
function oneOf<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T | undefined> {
  return z.pipe(z.optional(z.unknown()), z.transform((value): T | undefined => {
    if (!isRecord(value)) return undefined;
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  }));
}

/** `lastChange`: a number since version C, text before; anything else is absent. */
const optChange = z.pipe(z.optional(z.unknown()), z.transform((value): number | string | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  return typeof value === 'string' ? value : undefined;
}));

/** Unix milliseconds from a number, a string of digits, or an ISO date; anything else is absent. */
const optTime = z.pipe(z.optional(z.unknown()), z.transform((value): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}));

const listItemSchema = z.pipe(
  z.object({
    // Version C lists reviews without it.
    id: optString,
    sequence: optNumber,
    mergeId: optString,
    status: optString,
    title: optString,
    description: optString,
    fromVersion: optString,
    toVersion: optString,
    fromVersionLabel: optString,
    toVersionLabel: optString,
    requestedByName: optString,
    requestedByEmail: optString,
    requestedByImage: optString,
    linearIssueId: optString,
    linearIssueIdentifier: optString,
    provider: optString,
    model: optString,
    conversationStatus: optString,
    conversationErrorCode: optString,
    createdAt: optNumber,
    updatedAt: optNumber,
    completedAt: optNumber,
    mergedAt: optNumber,
    closedAt: optNumber,
  }),
  z.transform((r): CodeReviewListItem => compact({ ...r, id: r.id === '' ? undefined : r.id })),
);

const listsSchema = z.object({
  open: listOf(listItemSchema),
  merged: listOf(listItemSchema),
  closed: listOf(listItemSchema),
});

const reviewItemSchema = z.pipe(
  z.object({
    id: requiredId,
    type: optString,
    title: optString,
    description: optString,
    priority: optString,
    state: optString,
    createdBy: optString,
    createdByEmail: optString,
    createdAt: optNumber,
    updatedAt: optNumber,
    completedAt: optNumber,
  }),
  z.transform((i): ReviewItem => compact(i)),
);

const reviewCommentSchema = z.pipe(
  z.object({
    id: requiredId,
    parentId: optString,
    authorName: optString,
    authorEmail: optString,
    authorImage: optString,
    body: optString,
    imageUrls: optStringList,
    isDeleted: optBoolean,
    editedAt: optNumber,
    createdAt: optNumber,
  }),
  z.transform((c): ReviewComment => compact(c)),
);

const detailSchema = z.object({
  reviewId: optString,
  review: oneOf(listItemSchema),
  changes: listOf(reviewItemSchema),
  comments: listOf(reviewItemSchema),
  tests: listOf(reviewItemSchema),
  reviewComments: listOf(reviewCommentSchema),
  agent: oneOf<Agent>(agentSchema),
});

const startedSchema = z.pipe(
  z.object({ reviewId: requiredId, agentId: requiredId, kind: optString, status: optString, createdAt: optNumber }),
  // The service answers 202 with `queued`; a response without a status is taken at its word.
  z.transform((r): CodeReviewStarted => compact({ ...r, status: r.status ?? 'queued' })),
);

const versionSchema = z.pipe(
  z.object({
    versionId: requiredId,
    version: optString,
    appVersion: optString,
    versionDisplay: optString,
    stage: optString,
    syncSource: optString,
    lastChange: optChange,
    createdAt: optTime,
    createdAtMs: optTime,
    syncedAt: optTime,
    syncedAtMs: optTime,
    completedAt: optTime,
    completedAtMs: optTime,
    errorMessage: optString,
    fileSha256: optString,
    fileSizeBytes: optNumber,
  }),
  z.transform(({ createdAtMs, syncedAtMs, completedAtMs, appVersion, ...v }): AppVersion => compact({
    ...v,
    version: v.version ?? appVersion,
    createdAt: createdAtMs ?? v.createdAt,
    syncedAt: syncedAtMs ?? v.syncedAt,
    completedAt: completedAtMs ?? v.completedAt,
  })),
);

const syncSchema = z.pipe(
  z.object({
    ok: optBoolean,
    status: optString,
    stage: optString,
    versionId: optString,
    version: optString,
    appVersion: optString,
    message: optString,
    error: optString,
  }),
  z.transform(({ appVersion, ...s }): VersionSync => compact({
    ...s,
    versionId: s.versionId === '' ? undefined : s.versionId,
    version: s.version ?? appVersion,
  })),
);

const versionPageSchema = z.pipe(
  z.object({ versions: listOf(versionSchema), nextCursor: optString }),
  // An empty cursor would ask for the first page again.
  z.transform((p): VersionPage => compact({ versions: p.versions, nextCursor: p.nextCursor === '' ? undefined : p.nextCursor })),
);

// ---------------------------------------------------------------- entry points

/** Parses a `GET /code-reviews` response. A missing or malformed list is empty. */
export function parseCodeReviewLists(json: unknown): CodeReviewLists {
  return run(listsSchema, json, 'code review list');
}

/**
 * Parses a `GET /code-reviews/{reviewId}` response. The review's id is `reviewId`, else the
 * `review`'s `id`; without either the response is refused.
 */
export function parseCodeReviewDetail(json: unknown): CodeReviewDetail {
  const d = run(detailSchema, json, 'code review');
  const reviewId = d.reviewId !== undefined && d.reviewId !== '' ? d.reviewId : d.review?.id;
  if (reviewId === undefined) throw invalidResponse('The code review had no reviewId.');
  return compact({
    reviewId,
    review: d.review ?? {},
    changes: d.changes,
    comments: d.comments,
    tests: d.tests,
    reviewComments: d.reviewComments,
    agent: d.agent,
  });
}

/** Parses a `POST /code-reviews` response. */
export function parseCodeReviewStarted(json: unknown): CodeReviewStarted {
  return run(startedSchema, json, 'code review start response');
}

/**
 * Parses a `POST /versions/sync` or `GET /versions/status` response; `httpStatus` and
 * `retryAfterMs` are the answer's, as the client saw them.
 */
export function parseVersionSync(json: unknown, answer: { httpStatus?: number; retryAfterMs?: number } = {}): VersionSync {
  return compact({ ...run(syncSchema, json, 'version sync'), httpStatus: answer.httpStatus, retryAfterMs: answer.retryAfterMs });
}

/** Parses a `GET /versions` response. */
export function parseVersionPage(json: unknown): VersionPage {
  return run(versionPageSchema, json, 'version list');
}
