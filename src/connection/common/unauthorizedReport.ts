/**
 * What a feature tells the shared 401 gate beyond the error: the base URL refused, and whether it
 * shows "Set API Token" itself (the launch form does, with Retry and Edit). Stateless, so each lazy
 * bundle may carry its own copy (scripts/check-bundles.js).
 */
import { isApiError } from '../../api/errors';

export interface UnauthorizedReport {
  /** Tells the report from an error (`ApiError` has a `kind`, never this `type`). */
  readonly type: 'agentRuns.unauthorizedReport';
  /** The 401 itself (an `ApiError`); logged, never shown. */
  readonly error: unknown;
  /** Normalised base URL of the refused request. A report about another service than the current one changes nothing. */
  readonly baseUrl: string;
  /**
   * The caller shows its own message about the refused token, with a "Set API Token" action.
   * The gate then only pauses polling: it does not prompt for this base URL (now or on the
   * 401s polling gets next), so the person sees one prompt, not two.
   */
  readonly prompted: boolean;
}

/**
 * What a flow that shows its own "Set API Token" action tells the gate when the service refused
 * the token: polling pauses for `baseUrl` (where the refused request went) and the gate shows
 * no prompt of its own. Undefined for anything but a 401 the service answered.
 */
export function unauthorizedReport(error: unknown, baseUrl: string): UnauthorizedReport | undefined {
  if (!isApiError(error) || error.kind !== 'unauthorized' || error.status !== 401) return undefined;
  return { type: 'agentRuns.unauthorizedReport', error, baseUrl, prompted: true };
}
