/**
 * Whether a draft the run panel reports is kept as the run's draft. A follow-up on its way (or that
 * may have arrived) lives in the send, so neither a rebuilt page nor the page's older saved copy
 * (`restored`) may bring it back as a draft; anything else typed is kept.
 */
import type { SendState } from './protocol';

export function keepsDraft(text: string, restored: boolean, send: SendState | undefined, sentPrompts: readonly string[]): boolean {
  const t = text.trim();
  if (send?.state === 'sending' || (send !== undefined && t === send.prompt.trim())) {
    return false;
  }
  return !(restored && sentPrompts.includes(t));
}
