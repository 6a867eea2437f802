/** What a failed `POST /test-groups` offers; it is never sent again on its own, only on a button the person presses. */
import { isApiError } from '../../api/errors';
export { unauthorizedReport } from '../../connection/common/unauthorizedReport';

export type CreateFailureAction = 'setToken' | 'retry' | 'edit' | 'showLogs';

/** Failures after which the same request may well succeed: Retry comes first. */
const TRANSIENT: ReadonlySet<string> = new Set(['network', 'timeout', 'server', 'rate_limited', 'invalid_response']);
/** Failures whose cause is in the log. */
const LOGGED: ReadonlySet<string> = new Set(['network', 'timeout', 'server', 'invalid_response']);

/**
 * The failure message's buttons, in order (none when cancelled): a refused request cannot succeed
 * unchanged, so Edit comes first after a 4xx and alone after a local refusal.
 */
export function createFailureActions(error: unknown): readonly CreateFailureAction[] | undefined {
  if (!isApiError(error)) return ['retry', 'edit'];
  if (error.kind === 'aborted') return undefined;
  if (error.kind === 'unauthorized') return ['setToken', 'retry', 'edit'];
  if (error.kind === 'invalid_input') return ['edit'];
  const actions: CreateFailureAction[] = TRANSIENT.has(error.kind) ? ['retry', 'edit'] : ['edit', 'retry'];
  if (LOGGED.has(error.kind)) actions.push('showLogs');
  return actions;
}

