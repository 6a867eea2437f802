/** Code review and version request checks, like ./validate's; free text (description, focus areas) is never altered. */
import type { ListCodeReviewsQuery, ListVersionsQuery, StartCodeReviewRequest, SyncVersionRequest } from './reviewTypes';
import {
  asObject, offeredModel, optionalEmail, optionalWebhookUrl, quote, refuse, requiredTrimmed,
  type Fields, type ValidateOptions,
} from './validate';

/** A string field that may be left out; blank counts as left out. `trim` only for one-line fields. */
function optionalText(fields: Fields, name: string, trim: boolean): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw refuse(`${name} must be text.`);
  if (value.trim() === '') return undefined;
  return trim ? value.trim() : value;
}

/** A positive whole number that may be left out. */
function optionalCount(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw refuse(`${name} must be a whole number of at least 1 (got ${quote(value)}).`);
  }
  return value;
}

/** Checks and normalises a `POST /code-reviews` body. */
export function validateStartCodeReviewRequest(input: unknown, options: ValidateOptions = {}): StartCodeReviewRequest {
  const fields = asObject(input, 'code review request');
  const out: StartCodeReviewRequest = {
    appId: requiredTrimmed(fields, 'appId', 'the App ID of a verified project in the workspace'),
    fromVersion: requiredTrimmed(fields, 'fromVersion', 'the source: a branch or a version ID'),
    toVersion: requiredTrimmed(fields, 'toVersion', 'the target: a branch or a version ID'),
  };
  if (out.fromVersion === out.toVersion) {
    throw refuse(`fromVersion and toVersion are the same (${quote(out.fromVersion)}); choose two different branches or versions to compare.`);
  }
  const model = optionalText(fields, 'model', true);
  if (model !== undefined) out.model = offeredModel(model, options);
  const title = optionalText(fields, 'title', true);
  if (title !== undefined) out.title = title;
  const description = optionalText(fields, 'description', false);
  if (description !== undefined) out.description = description;
  const focusAreas = optionalText(fields, 'focusAreas', false);
  if (focusAreas !== undefined) out.focusAreas = focusAreas;
  const webhook = optionalWebhookUrl(fields, 'completionWebhookUrl');
  if (webhook) out.completionWebhookUrl = webhook;
  const email = optionalEmail(fields, 'userEmail');
  if (email) out.userEmail = email;
  return out;
}

/** Checks an id used as a path segment (`name` in messages); returns it trimmed. */
export function pathId(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw refuse(`${name} is required.`);
  const trimmed = value.trim();
  // `.` and `..` would be resolved as path segments and address another endpoint.
  if (trimmed === '.' || trimmed === '..') throw refuse(`${name} ${quote(trimmed)} is not a valid id.`);
  return trimmed;
}

/** Checks a review id used in a path; returns it trimmed. */
export function validateReviewId(reviewId: unknown): string {
  return pathId(reviewId, 'reviewId');
}

/** Checks the App ID of a list query; returns it trimmed. */
export function appIdOf(appId: unknown): string {
  return requiredTrimmed({ appId }, 'appId', 'the App ID of a verified project in the workspace');
}

/** The query of `GET /code-reviews`, in the order sent. */
export function codeReviewListQuery(appId: unknown, query: ListCodeReviewsQuery = {}): URLSearchParams {
  const params = new URLSearchParams({ appId: appIdOf(appId) });
  const limit = optionalCount(query.limit, 'limit');
  if (limit !== undefined) params.set('limit', String(limit));
  return params;
}

/** The query of `GET /code-reviews/{reviewId}` (empty when no history limit is asked for). */
export function codeReviewQuery(historyLimit: unknown): URLSearchParams {
  const params = new URLSearchParams();
  const limit = optionalCount(historyLimit, 'historyLimit');
  if (limit !== undefined) params.set('historyLimit', String(limit));
  return params;
}

/** A branch id or label (`version` of `GET /versions` and `POST /versions/sync`); returns it trimmed. */
function branchOf(fields: Fields): string {
  return requiredTrimmed(fields, 'version', 'a branch ID or label (the service lists versions one branch at a time)');
}

/**
 * The query of `GET /versions`, in the order sent. `version` (a branch) is required: version C
 * refuses the list without it, so nothing is sent without one.
 */
export function versionListQuery(appId: unknown, query: ListVersionsQuery): URLSearchParams {
  const fields = asObject(query, 'version query');
  const params = new URLSearchParams({ appId: appIdOf(appId) });
  params.set('version', branchOf(fields));
  // A cursor is opaque: sent exactly as the service gave it.
  const cursor = optionalText(fields, 'cursor', false);
  if (cursor !== undefined) params.set('cursor', cursor);
  const limit = optionalCount(fields.limit, 'limit');
  if (limit !== undefined) params.set('limit', String(limit));
  return params;
}

/** Checks and normalises a `POST /versions/sync` body. */
export function validateSyncVersionRequest(input: unknown): SyncVersionRequest {
  const fields = asObject(input, 'version sync request');
  return { appId: appIdOf(fields.appId), version: branchOf(fields) };
}

/** The query of `GET /versions/status`: both required. */
export function versionStatusQuery(appId: unknown, versionId: unknown): URLSearchParams {
  return new URLSearchParams({ appId: appIdOf(appId), versionId: pathId(versionId, 'versionId') });
}
