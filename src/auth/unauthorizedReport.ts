/**
 * What a feature hands to the shared 401 gate (`Deps.reportUnauthorized`, `UnauthorizedGate`)
 * when it knows more than the bare error: the base URL the refused request went to, and that
 * it shows the token problem itself, with its own "Set API Token" action (the launch flow's
 * failure message keeps the form and offers Retry and Edit, which the gate's prompt cannot).
 *
 * Types only, on purpose: each bundle (dist/launch.js, dist/testGroups.js, ...) builds the
 * object literal itself, so no module is shared between bundles (see scripts/check-bundles.js);
 * the gate recognises it with `isUnauthorizedReport` (src/auth/unauthorizedState.ts).
 */
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
