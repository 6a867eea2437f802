// The transcripts of several runs in memory, least recently used evicted past `maxRuns`.
import { Transcript, type TranscriptOptions } from './transcript';

/** The run panel owns one; the extension may pass its own in to share it (e.g. for exports from the tree). */
export class TranscriptStore {
  private readonly runs = new Map<string, Transcript>();

  constructor(
    private readonly maxRuns = 50,
    private readonly options: TranscriptOptions = {},
  ) {}

  get(agentId: string): Transcript {
    let t = this.runs.get(agentId);
    if (t) {
      this.runs.delete(agentId);
    } else {
      t = new Transcript(this.options);
    }
    this.runs.set(agentId, t);
    while (this.runs.size > this.maxRuns) {
      const oldest = this.runs.keys().next().value;
      if (oldest === undefined) {
        break;
      }
      this.runs.delete(oldest);
    }
    return t;
  }

  has(agentId: string): boolean {
    return this.runs.has(agentId);
  }

  delete(agentId: string): void {
    this.runs.delete(agentId);
  }
}
