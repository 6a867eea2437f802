// "Track Run by ID…": a run started elsewhere, read and added to the list.
import * as vscode from 'vscode';
import type { Deps } from '../../run/deps';
import { extractAgentId } from '../common/agentId';

/**
 * Adds a run started elsewhere (the service has no list endpoint), read once to make sure it
 * exists on this service; takes an agent ID argument or asks for one.
 */
export async function trackRunCommand(deps: Deps, arg?: unknown): Promise<boolean | undefined> {
  const given = typeof arg === 'string' ? extractAgentId(arg) : undefined;
  const agentId = given ?? (await askForId());
  if (!agentId) {
    return undefined;
  }
  const ok = await trackRun(deps, agentId);
  if (ok) {
    await deps.view.reveal(agentId, { select: true });
    await deps.openRun(agentId);
  }
  return ok;
}

async function askForId(): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Track Run by ID'),
    prompt: vscode.l10n.t('The agent ID of a run started elsewhere (for example from a script or a webhook message). A link to the run works too.'),
    placeHolder: vscode.l10n.t('agent ID'),
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' || extractAgentId(v) ? undefined : vscode.l10n.t('That does not look like an agent ID: letters, digits, "-", "_", "." or ":", no spaces.')),
  });
  return value === undefined ? undefined : extractAgentId(value);
}

/** Reads the run and puts it in the ledger. Resolves false (after telling the user) on failure. */
export async function trackRun(deps: Deps, agentId: string): Promise<boolean> {
  const ledger = deps.ledger();
  if (ledger.has(agentId)) {
    void deps.sync.poller.pollNow(agentId);
    return true;
  }
  const client = await deps.getClient();
  if (!client) {
    return false;
  }
  try {
    const agent = await vscode.window.withProgress(
      { location: { viewId: 'agentRuns.runs' }, title: vscode.l10n.t('Reading run {0}…', agentId) },
      (_progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        return deps.sync.readRun(client, agentId, controller.signal);
      },
    );
    if (deps.ledger() !== ledger) {
      return false; // The base URL changed meanwhile.
    }
    // A new record from a first read: not "unread", the user just asked for it.
    deps.transcripts.merge(agentId, agent.history);
    ledger.applyAgent({ ...agent, agentId });
    deps.log.info(`Tracking run ${agentId}.`);
    return true;
  } catch (e) {
    const retry = vscode.l10n.t('Try Again');
    const pick = await deps.showApiError(e, [retry]);
    if (pick === retry) {
      return trackRun(deps, agentId);
    }
    return false;
  }
}
