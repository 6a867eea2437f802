/**
 * Unsent follow-up text per run, so a failed send or a closed box never loses what was
 * typed. Kept in workspace state (bounded), shared by the input box and the run panel.
 */
import type * as vscode from 'vscode';

const KEY = 'agentRuns.drafts.v1';
const MAX_DRAFTS = 50;
const MAX_CHARS = 200_000;

type Stored = Record<string, { text: string; at: number }>;

export class Drafts {
  private warned = false;

  /** `warn` hears once per session that stored drafts were unreadable (they are then ignored and rewritten). */
  constructor(private readonly state: vscode.Memento, private readonly warn: (message: string) => void = () => undefined) {}

  get(agentId: string): string | undefined {
    return this.read()[agentId]?.text;
  }

  set(agentId: string, text: string | undefined): void {
    const all = this.read();
    if (text === undefined || text.trim() === '') {
      if (!(agentId in all)) {
        return;
      }
      delete all[agentId];
    } else {
      all[agentId] = { text: text.slice(0, MAX_CHARS), at: Date.now() };
    }
    const kept = Object.entries(all).sort((a, b) => b[1].at - a[1].at).slice(0, MAX_DRAFTS);
    void this.state.update(KEY, Object.fromEntries(kept));
  }

  private read(): Stored {
    const raw = this.state.get<unknown>(KEY);
    if (raw === undefined) {
      return {};
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      this.corrupt('The saved follow-up drafts were unreadable and have been reset.');
      return {};
    }
    const out: Stored = {};
    let dropped = 0;
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v === 'object' && v !== null && typeof (v as { text?: unknown }).text === 'string') {
        const at = (v as { at?: unknown }).at;
        out[k] = { text: (v as { text: string }).text, at: typeof at === 'number' ? at : 0 };
      } else {
        dropped++;
      }
    }
    if (dropped > 0) {
      this.corrupt(`${dropped} unreadable follow-up draft(s) were dropped.`);
    }
    return out;
  }

  private corrupt(message: string): void {
    if (!this.warned) {
      this.warned = true;
      this.warn(message);
    }
  }
}
