/**
 * Why there is no client for the service, in one sentence a person can act on: the one place
 * this is worked out (the tools, the chat, the panel and the sender's callers say it alike).
 */
import type { L10n } from '../../base/common/l10n';

export interface ClientPrerequisites {
  readonly baseUrl: string | undefined;
  readonly baseUrlProblem?: string;
  readonly signedIn: boolean;
}

export function describeNoClient(state: ClientPrerequisites, l10n: L10n): string {
  if (!state.baseUrl) {
    return state.baseUrlProblem
      ? l10n.t('The service URL in agentRuns.baseUrl cannot be used: {0} Fix it with “Agent Runs: Set Base URL”, then try again.', state.baseUrlProblem)
      : l10n.t('Agent Runs has no service URL yet: run “Agent Runs: Set Base URL” (setting agentRuns.baseUrl), then try again.');
  }
  if (!state.signedIn) {
    return l10n.t('Agent Runs has no API token for this service: run “Agent Runs: Set API Token”, then try again.');
  }
  return l10n.t('Agent Runs cannot use the service URL as configured (a plain http address the token may not be sent to was declined, or no connection could be set up; see Agent Runs: Show Logs). Check agentRuns.baseUrl and try again.');
}
