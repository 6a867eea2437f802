// The Runs view's Refresh.
import type { Deps } from '../../run/deps';
import { refreshRuns } from './refreshRun';

/** The view's Refresh: reads every unfinished run now and redraws the list. */
export async function refreshCommand(deps: Deps) {
  deps.view.provider.refreshAll();
  await refreshRuns(deps, deps.ledger().active().map((r) => r.agentId));
}
