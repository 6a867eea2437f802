/**
 * Which run a chat message is about: `/followup ag_9f3e2 add tests` names a run, `/followup add
 * tests` is for the latest one. Pure: no vscode.
 */

const ID_SHAPE = /^[\w.:-]{1,200}$/;

/**
 * Whether `word` is written like a run ID rather than as the first word of a prompt: letters
 * and digits joined by `_` or `-` (`ag_9f3e2`, `run-42`), or the prefix the listed runs' IDs
 * share (`agt_`) followed by more.
 */
export function looksLikeRunId(word: string, listed: readonly string[]): boolean {
  if (!ID_SHAPE.test(word)) return false;
  if (/\d/.test(word) && /[_-]/.test(word)) return true;
  const prefix = /^[A-Za-z]+[_-]/.exec(word)?.[0];
  return prefix !== undefined && word.length > prefix.length && listed.some((id) => id.startsWith(prefix));
}

export interface Addressed {
  /** The run the text is for: the one named, else the latest listed (none when nothing is listed). */
  agentId?: string;
  /** The first word named the run (listed or not): the text goes to that run or to none. */
  named: boolean;
  text: string;
}

/**
 * `<agentId> rest`: the first word names a run when it is listed or is written like a run ID
 * (then that run, listed or not: never another one); else the whole text is for the latest
 * run. `listed`: the listed runs' IDs, newest first.
 */
export function splitRunAndText(prompt: string, listed: readonly string[]): Addressed {
  const trimmed = prompt.trim();
  const [first = ''] = trimmed.split(/\s+/);
  if (first !== '' && (listed.includes(first) || looksLikeRunId(first, listed))) {
    return { agentId: first, named: true, text: trimmed.slice(first.length).trim() };
  }
  return { agentId: listed[0], named: false, text: trimmed };
}
