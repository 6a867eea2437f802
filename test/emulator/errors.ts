/**
 * Error codes of the emulated service and the one exception type handlers throw.
 *
 * The documented codes keep the documented status. The others are the emulator's choices
 * for cases the reference leaves "not shown" (see README.md in this folder).
 */

export const ERROR_CODES = {
  // documented
  api_access_required: 402,
  insufficient_paid_credits: 402,
  user_email_required: 400,
  user_not_workspace_member: 403,
  missing_provider_credentials: 403,
  // the emulator's choices for undocumented cases
  invalid_request: 400,
  project_not_verified: 403,
  app_outside_token_scope: 403,
  app_not_found: 404,
  agent_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal_error: 500,
  // the deployed service's 409s (shapes: 'deployed' only; see DEPLOYED_ONLY_CODES)
  concurrency_limit: 409,
  follow_ups_not_supported: 409,
  // the app's tests, runs, groups and automations (deployed shapes only)
  test_not_found: 404,
  test_run_not_found: 404,
  test_group_not_found: 404,
  automation_not_found: 404,
  automation_not_runnable: 409,
  test_user_not_found: 404,
  // only sent through fault injection (see faults.ts)
  rate_limited: 429,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes only the deployed shapes send: the reference profile's OpenAPI document does not list them. */
export const DEPLOYED_ONLY_CODES: readonly ErrorCode[] = [
  'concurrency_limit', 'follow_ups_not_supported', 'test_not_found', 'test_run_not_found', 'test_group_not_found', 'automation_not_found', 'automation_not_runnable',
  'test_user_not_found',
];

/** `reason` values sent with the 409s (deployed shapes). */
export const CONFLICT_REASONS = {
  /** `concurrency_limit`: the workspace has as many active conversations as its plan allows. */
  concurrentAgentLimit: 'workspace_concurrent_agent_limit_reached',
  /** `follow_ups_not_supported`: the conversation's kind (a code review) takes no follow-ups. */
  codeReviewConversation: 'conversation_kind_code_review',
  /** `concurrency_limit` on `POST /test-runs` and `POST /test-group-runs`: as many active test runs as the workspace allows. */
  concurrentTestRunLimit: 'workspace_concurrent_test_run_limit_reached',
  /** `automation_not_runnable`: its trigger is not `manual`. */
  triggerNotManual: 'trigger_not_manual',
  /** `automation_not_runnable`: it is disabled. */
  automationDisabled: 'automation_disabled',
  /** `automation_not_runnable`: a run it queued has not finished. */
  automationRunInProgress: 'automation_run_in_progress',
} as const;

/** `reason` values of 400s about the app's tests (deployed shapes). */
export const TEST_REASONS = {
  /** `POST /test-runs` of a component: components never run on their own. */
  component: 'test_is_component',
  /** `PUT /test-groups/{id}` naming tests the app does not have. */
  unknownTests: 'unknown_test_ids',
  /** `POST /test-group-runs` of a group without a runnable test. */
  nothingToRun: 'group_has_no_runnable_tests',
  /** `branchId` names no branch of the app (nor `live`). */
  unknownBranch: 'unknown_branch',
} as const;

/** `reason` values of 400s about versions (deployed shapes). */
export const VERSION_REASONS = {
  /** A review (C: a branch named) or a test run on a branch without a completed version: sync it first. */
  notSynced: 'version_not_synced',
} as const;

/** `reason` values sent with the plan checks (402). */
export const PLAN_REASONS = {
  noApiAccess: 'plan_without_api_access',
  lowCredits: 'paid_credit_balance_below_turn_cost',
} as const;

export interface ErrorBody {
  error: string;
  code?: string;
  reason?: string;
  /** For `invalid_request`: the request field at fault. */
  field?: string;
}

/** Thrown by handlers; the server turns it into `{error, code?, reason?, field?}` with `status`. */
export class ServiceError extends Error {
  readonly status: number;
  readonly code?: ErrorCode;
  readonly reason?: string;
  readonly field?: string;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, extra: { code?: ErrorCode; reason?: string; field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.code = extra.code;
    this.reason = extra.reason;
    this.field = extra.field;
    this.headers = extra.headers ?? {};
  }

  /** An error whose status follows from its code. */
  static of(code: ErrorCode, message: string, extra: { reason?: string; field?: string; headers?: Record<string, string> } = {}): ServiceError {
    return new ServiceError(ERROR_CODES[code], message, { ...extra, code });
  }

  static unauthorized(message: string): ServiceError {
    return new ServiceError(401, message, { headers: { 'www-authenticate': 'Bearer realm="agent-runs", error="invalid_token"' } });
  }

  static invalid(field: string | undefined, message: string): ServiceError {
    return ServiceError.of('invalid_request', message, field === undefined ? {} : { field });
  }

  body(): ErrorBody {
    const body: ErrorBody = { error: this.message };
    if (this.code !== undefined) body.code = this.code;
    if (this.reason !== undefined) body.reason = this.reason;
    if (this.field !== undefined) body.field = this.field;
    return body;
  }
}
