/**
 * Whether a draft the run panel reports is kept as the run's draft. Pure: no vscode.
 *
 * The text of a follow-up on its way (or that may have arrived) lives in the send: a page torn
 * down and rebuilt must not put it back as a draft. Nor may the page's own saved copy of a
 * draft (`restored`, sent after a reload when the extension had none) that the run has taken as
 * a follow-up since: the copy predates the send. Anything else typed is kept.
 */
import type { SendState } from './protocol';

export function keepsDraft(text: string, restored: boolean, send: SendState | undefined, sentPrompts: readonly string[]): boolean {
  const t = text.trim();
  if (send?.state === 'sending' || (send !== undefined && t === send.prompt.trim())) {
    return false;
  }
  return !(restored && sentPrompts.includes(t));
}
