/**
 * The OpenAPI paths and schemas of code reviews and versions (service-api-wider.md §2, §7),
 * added to the document under `shapes: 'deployed'` only, in the published version served.
 * Request bodies come from the declarations codeReviews.ts validates with. `GET
 * /versions/status` and `POST /versions/sync` are listed under C only: before C the deployed
 * service's own document left them out (§7). C: review items without `id` and the conversation
 * fields, its nulls, `version` required on `GET /versions`, C's version item.
 */
import { REVIEW_PROVIDERS, START_CODE_REVIEW_BODY, SYNC_BODY } from './codeReviews';
import type { Settings } from './domain';
import { READABLE_MODEL_IDS } from './models';
import { FINDING_AUTHORS, FINDING_PRIORITIES, FINDING_STATES, FINDING_TYPES } from './reviewFindings';
import { DEPLOYED_CONVERSATION_STATES } from './shapes';
import { requestBodySchema, type JsonSchema } from './spec';
import type { WiderVersion } from './testDomain';
import { SYNC_SOURCES, VERSION_STAGES, VERSIONS_PAGE } from './versions';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const ms = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, description: `${description} (Unix milliseconds).` });
const nullableMs = (description: string): JsonSchema => ({ type: ['integer', 'null'], minimum: 0, description: `${description} (Unix milliseconds).` });
const nullableString = (description?: string): JsonSchema => (description === undefined ? { type: ['string', 'null'] } : { type: ['string', 'null'], description });
const isoOrNull: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const object = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object', required: Object.keys(properties), properties, ...(description === undefined ? {} : { description }),
});

export function reviewSchemas(settings: Settings, wider: WiderVersion): Record<string, JsonSchema> {
  const c = wider === 'C';
  const label = c ? nullableString('`null` when the service has no label for it.') : { type: 'string' };
  const finding = object({
    id: { type: 'string' },
    type: { type: 'string', enum: [...FINDING_TYPES] },
    title: { type: 'string' },
    description: { type: 'string' },
    priority: { type: ['string', 'null'], enum: [...FINDING_PRIORITIES, null] },
    state: { type: 'string', enum: [...FINDING_STATES], description: 'Comments and tests can be completed (in the service\'s own UI); changes are informational.' },
    createdBy: { type: 'string', enum: [...FINDING_AUTHORS] },
    createdByEmail: nullableString('The person, when `createdBy` is `user`.'),
    createdAt: ms('Recorded'),
    updatedAt: ms('Last change'),
    completedAt: nullableMs('Completed; `null` while open'),
  });
  return {
    StartCodeReviewRequest: requestBodySchema(START_CODE_REVIEW_BODY),
    CodeReviewAccepted: object({
      reviewId: { type: 'string' },
      agentId: { type: 'string', description: 'The review agent\'s conversation (`GET /agents/{agentId}`, kind `code_review`).' },
      kind: { type: 'string', enum: ['code_review'] },
      status: { type: 'string', description: '`queued` when accepted.' },
      createdAt: ms('Creation time'),
    }),
    CodeReview: object({
      ...(c ? {} : { id: { type: 'string' } }),
      sequence: { type: 'integer', minimum: 1, description: 'Per project.' },
      mergeId: nullableString(),
      status: { type: 'string', enum: ['open', 'merged', 'closed'] },
      title: c ? nullableString() : { type: 'string' },
      description: nullableString(),
      fromVersion: { type: 'string', description: c ? 'As the review was started with: a branch or a version name.' : 'A version id.' },
      toVersion: { type: 'string' },
      fromVersionLabel: label,
      toVersionLabel: label,
      requestedByName: nullableString(),
      requestedByEmail: nullableString(),
      requestedByImage: nullableString(),
      linearIssueId: nullableString(),
      linearIssueIdentifier: nullableString(),
      provider: { type: 'string', enum: [...REVIEW_PROVIDERS[c ? 'A' : settings.wideApiVersion]] },
      model: { type: 'string', enum: [...READABLE_MODEL_IDS] },
      ...(c ? {} : {
        conversationStatus: { type: 'string', enum: [...DEPLOYED_CONVERSATION_STATES], description: 'The review agent\'s `lifecycle.conversationState`.' },
        conversationErrorCode: nullableString(),
      }),
      createdAt: ms('Creation time'),
      updatedAt: nullableMs('Last change'),
      completedAt: nullableMs('When the review agent finished'),
      mergedAt: nullableMs('Merged'),
      closedAt: nullableMs('Closed'),
    }),
    CodeReviewList: object({
      open: { type: 'array', items: ref('CodeReview') },
      merged: { type: 'array', items: ref('CodeReview') },
      closed: { type: 'array', items: ref('CodeReview') },
    }, 'Newest first in each bucket; `limit` applies per bucket.'),
    CodeReviewFinding: finding,
    CodeReviewComment: object({
      id: { type: 'string' },
      parentId: nullableString('The comment this one answers.'),
      authorName: { type: 'string' },
      authorEmail: nullableString(),
      authorImage: nullableString(),
      body: nullableString('`null` when deleted.'),
      imageUrls: { type: 'array', items: { type: 'string' } },
      isDeleted: { type: 'boolean' },
      editedAt: nullableMs('Last edit'),
      createdAt: ms('Posted'),
    }),
    CodeReviewDetail: object({
      reviewId: { type: 'string' },
      review: ref('CodeReview'),
      changes: { type: 'array', items: ref('CodeReviewFinding') },
      comments: { type: 'array', items: ref('CodeReviewFinding') },
      tests: { type: 'array', items: ref('CodeReviewFinding') },
      reviewComments: { type: 'array', items: ref('CodeReviewComment') },
      agent: ref('Agent'),
    }),
    Version: object({
      versionId: { type: 'string' },
      version: { type: 'string', description: 'The branch id.' },
      versionDisplay: { type: 'string' },
      stage: { type: 'string', enum: [...VERSION_STAGES] },
      syncSource: { type: 'string', enum: [...SYNC_SOURCES] },
      lastChange: c ? ms('When the branch last changed before this snapshot') : nullableString(),
      createdAt: { type: 'string', format: 'date-time' },
      createdAtMs: ms('Creation time'),
      syncedAt: isoOrNull,
      syncedAtMs: nullableMs('Stored'),
      completedAt: isoOrNull,
      completedAtMs: nullableMs('Indexed'),
      ...(c ? {} : { errorMessage: nullableString(), fileSha256: nullableString(), fileSizeBytes: { type: ['integer', 'null'], minimum: 0 } }),
    }),
    VersionList: object({
      versions: { type: 'array', items: ref('Version') },
      nextCursor: nullableString('Pass as `cursor` for the next page; `null` on the last.'),
    }, c ? 'The branch\'s completed versions, newest sync first.' : 'Newest first.'),
    ...(c ? {
      SyncVersionRequest: requestBodySchema(SYNC_BODY),
      VersionSyncStatus: {
        type: 'object',
        required: ['ok', 'status', 'stage', 'versionId', 'version', 'appVersion', 'message'],
        properties: {
          ok: { type: 'boolean' },
          status: { type: 'string', enum: ['in_progress', 'completed', 'failed'] },
          stage: { type: 'string', enum: [...VERSION_STAGES] },
          versionId: nullableString('The version this sync created; `null` when none was (a branch the app does not have).'),
          version: { type: 'string', description: 'The canonical branch id.' },
          appVersion: { type: 'string', description: 'The same as `version`.' },
          message: { type: 'string' },
          error: { type: 'string', description: 'Why the sync failed.' },
        },
      },
    } : {}),
  };
}

const query = (name: string, description: string, schema: JsonSchema, required = false): JsonSchema => ({ name, in: 'query', required, description, schema });

/** Builders from openapi.ts (passed in, so the two modules do not import each other). */
export interface PathHelpers {
  ok(status: number, description: string, schema: string): Record<string, JsonSchema>;
  errors(statuses: readonly number[]): Record<string, JsonSchema>;
  historyLimit: JsonSchema;
}

export function reviewPaths(h: PathHelpers, wider: WiderVersion): Record<string, JsonSchema> {
  const c = wider === 'C';
  const appId = query('appId', 'App ID of a verified project in the token\'s workspace and scope.', { type: 'string', minLength: 1 }, true);
  const paths: Record<string, JsonSchema> = {
    '/code-reviews': {
      post: {
        operationId: 'startCodeReview',
        tags: ['code-reviews'],
        summary: 'Start a code review',
        description: c
          ? 'Compares a source with a target, each a branch (its newest completed version) or a completed version; a review agent works through them in a conversation of kind `code_review`. A branch never synced: 400 `version_not_synced`.'
          : 'Compares two completed versions of the app; a review agent works through them in a conversation of kind `code_review`.',
        requestBody: { required: true, content: { 'application/json': { schema: ref('StartCodeReviewRequest') } } },
        responses: { ...h.ok(202, 'Review accepted and queued.', 'CodeReviewAccepted'), ...h.errors([400, 401, 402, 403, 409, 413, 415]) },
      },
      get: {
        operationId: 'listCodeReviews',
        tags: ['code-reviews'],
        summary: 'List the app\'s code reviews by status',
        parameters: [appId, query('limit', 'Most items per bucket.', { type: 'integer', minimum: 1 })],
        responses: { ...h.ok(200, 'Open, merged and closed reviews.', 'CodeReviewList'), ...h.errors([400, 401, 402, 403]) },
      },
    },
    '/code-reviews/{reviewId}': {
      get: {
        operationId: 'getCodeReview',
        tags: ['code-reviews'],
        summary: c ? 'Read a code review created over the REST API' : 'Read a code review',
        parameters: [{ name: 'reviewId', in: 'path', required: true, schema: { type: 'string', minLength: 1 } }, h.historyLimit],
        responses: { ...h.ok(200, 'The review, what it recorded and its agent.', 'CodeReviewDetail'), ...h.errors([400, 401, 402, 404]) },
      },
    },
    '/versions': {
      get: {
        operationId: 'listVersions',
        tags: ['versions'],
        summary: 'List the app\'s versions',
        parameters: [
          appId,
          query('version', c ? 'A branch id or label; only its completed versions are listed.' : 'A branch id or label.', { type: 'string', ...(c ? { minLength: 1 } : {}) }, c),
          query('cursor', '`nextCursor` of the previous page.', { type: 'string' }),
          query('limit', 'Versions per page.', { type: 'integer', minimum: 1, maximum: VERSIONS_PAGE.max, default: VERSIONS_PAGE.default }),
          query('syncedAfter', 'Only versions synced after this time (Unix milliseconds or ISO 8601).', { type: 'string' }),
          query('syncedBefore', 'Only versions synced before this time (Unix milliseconds or ISO 8601).', { type: 'string' }),
        ],
        responses: { ...h.ok(200, 'A page of versions, newest first.', 'VersionList'), ...h.errors([400, 401, 402, 403]) },
      },
    },
  };
  if (c) {
    paths['/versions/status'] = {
      get: {
        operationId: 'getVersionStatus',
        tags: ['versions'],
        summary: 'Read the state of a version\'s sync',
        parameters: [appId, query('versionId', 'The version a sync created.', { type: 'string', minLength: 1 }, true)],
        responses: { ...h.ok(200, 'Where the sync is.', 'VersionSyncStatus'), ...h.errors([400, 401, 402, 403]) },
      },
    };
    paths['/versions/sync'] = {
      post: {
        operationId: 'syncVersion',
        tags: ['versions'],
        summary: 'Sync a branch: store a new version of it',
        description: 'Waits briefly: 200 when the sync completed or failed in that time, 202 while it runs (poll `GET /versions/status`).',
        requestBody: { required: true, content: { 'application/json': { schema: ref('SyncVersionRequest') } } },
        responses: { ...h.ok(200, 'The sync ended: completed or failed.', 'VersionSyncStatus'), ...h.ok(202, 'The sync runs.', 'VersionSyncStatus'), ...h.errors([400, 401, 402, 403, 413, 415]) },
      },
    };
  }
  return paths;
}
