// Automations' lazy bundle (dist/automations.js): the Runs view's automation rows and Run Now,
// kept out of the activation bundle; ./contribution.ts loads it on first use.
import { isApiError } from '../api/errors';
import type { AutomationsDeps } from './contribution';
import { AutomationRows } from './rows';
import { runNow as runNowWith, type RunNowOutcome } from './runNow';

export { AutomationRows };

/** One sentence for a failure, as the rest of the extension words it. */
export function describeWith(d: Pick<AutomationsDeps, 'api'>): (e: unknown) => string {
  return (e) => (isApiError(e) ? d.api().describeApiError(e) : e instanceof Error ? e.message : String(e));
}

/** The rows of the Runs view, on `deps`. */
export function automationRows(d: AutomationsDeps, refreshTree: () => void): AutomationRows {
  return new AutomationRows({
    getClient: (o) => d.getClient(o),
    onDidChangeConnection: d.onDidChangeConnection,
    auth: d.auth,
    reportUnauthorized: (e) => d.reportUnauthorized(e),
    describe: describeWith(d),
    log: d.log,
  }, refreshTree);
}

/** `agentRuns.automations.runNow`, only while `agentRuns.automationRuns` is on. */
export async function runNow(d: AutomationsDeps, rows: AutomationRows | undefined, arg: unknown): Promise<RunNowOutcome | undefined> {
  if (!d.capabilities.has('automationRuns')) return undefined;
  return runNowWith({ sender: d.sender, describe: describeWith(d), log: d.log }, rows, arg);
}
