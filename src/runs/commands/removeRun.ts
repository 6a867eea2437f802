// "Remove from List".
import type { Deps } from '../../run/deps';
import { selectedRunIds } from './pickRun';

/** Removes runs from the list only: the service keeps them, and "Track Run by ID" brings one back. */
export async function removeRunCommand(deps: Deps, arg?: unknown, selection?: unknown) {
  const ids = selectedRunIds(arg, selection);
  const ledger = deps.ledger();
  const removed = ids.filter((id) => ledger.remove(id));
  if (removed.length === 0) {
    return;
  }
  await deps.transcripts.remove(removed);
  for (const id of removed) {
    deps.drafts.set(id, undefined);
  }
  deps.log.info(`Removed ${removed.length} run(s) from the list.`);
}
