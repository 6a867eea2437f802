/**
 * The disk bound of one base URL's journals: past `maxBytes`, whole journals of finished runs go, least
 * recently used first, never a run live, shown, or being read or written. Each leaves a `<hash>.pruned`
 * note so the run can say its transcript was pruned.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countLines, journalAgentId } from './journal';

/** Checked again after this share of the limit was appended. */
const CHECK_EVERY_FRACTION = 0.05;

export interface PrunedInfo {
  /** When it was pruned (Unix ms). */
  readonly at: number;
  /** About how many messages the journal held. */
  readonly messages: number;
}

export interface DiskLimitOptions {
  maxBytes(): number;
  /** Live, shown, or being read or written: never evicted. */
  isProtected(agentId: string): boolean;
  log: { info(message: string): void; warn(message: string): void };
  closed(): boolean;
}

export interface JournalFile {
  readonly name: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** From its header; undefined for a journal without one (never evicted: its run cannot be checked). */
  readonly agentId: string | undefined;
}

/** Which journals go so the rest fits under `maxBytes`: the least recently used unprotected ones. */
export function chooseEvictions(files: readonly JournalFile[], maxBytes: number, isProtected: (agentId: string) => boolean): JournalFile[] {
  let total = files.reduce((n, f) => n + f.size, 0);
  const out: JournalFile[] = [];
  for (const f of [...files].sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    if (total <= maxBytes) {
      break;
    }
    if (f.agentId === undefined || isProtected(f.agentId)) {
      continue;
    }
    out.push(f);
    total -= f.size;
  }
  return out;
}

export async function readPruned(dir: string, hashed: string, agentId: string): Promise<PrunedInfo | undefined> {
  try {
    const v = JSON.parse(await fs.promises.readFile(path.join(dir, `${hashed}.pruned`), 'utf8')) as { agentId?: unknown; at?: unknown; messages?: unknown };
    if (v.agentId === agentId && typeof v.at === 'number' && typeof v.messages === 'number') {
      return { at: v.at, messages: v.messages };
    }
  } catch {
    // Never pruned.
  }
  return undefined;
}

export class DiskLimit {
  private sinceCheck = 0;
  private checked = false;
  private running: Promise<string[]> | undefined;

  constructor(
    private readonly dir: string,
    private readonly o: DiskLimitOptions,
  ) {}

  /** A panel opened the run: its journal counts as just used. */
  touch(hashed: string): void {
    const now = new Date();
    void fs.promises.utimes(path.join(this.dir, `${hashed}.jsonl`), now, now).catch(() => undefined);
  }

  wrote(bytes: number): void {
    this.sinceCheck += bytes;
  }

  /** Checks the bound on the first save and after a share of it was written since. */
  checkSoon(): Promise<string[]> | undefined {
    if (this.checked && this.sinceCheck < this.o.maxBytes() * CHECK_EVERY_FRACTION) {
      return undefined;
    }
    return this.enforce();
  }

  /** Evicts what must go; resolves with the runs whose journals were deleted. */
  enforce(): Promise<string[]> {
    this.running ??= this.evict().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async list(): Promise<JournalFile[]> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return [];
    }
    const now = Date.now();
    const out: JournalFile[] = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      const stat = await fs.promises.stat(file).catch(() => undefined);
      if (!stat) {
        continue;
      }
      if (name.endsWith('.tmp')) {
        // What a rewrite cut short left behind.
        if (now - stat.mtimeMs > 60_000) {
          await fs.promises.rm(file, { force: true });
        }
        continue;
      }
      const journal = name.endsWith('.jsonl');
      out.push({ name, size: stat.size, mtimeMs: stat.mtimeMs, agentId: journal ? await journalAgentId(file) : undefined });
    }
    return out;
  }

  private async evict(): Promise<string[]> {
    this.checked = true;
    this.sinceCheck = 0;
    const max = this.o.maxBytes();
    const files = await this.list();
    const victims = chooseEvictions(files, max, (id) => this.o.isProtected(id));
    const evicted: string[] = [];
    for (const v of victims) {
      const agentId = v.agentId;
      // Checked again: a panel may have opened it while the folder was listed.
      if (agentId === undefined || this.o.closed() || this.o.isProtected(agentId)) {
        continue;
      }
      const file = path.join(this.dir, v.name);
      try {
        const messages = Math.max(0, (await countLines(file)) - 1);
        const note = path.join(this.dir, v.name.replace(/\.jsonl$/, '.pruned'));
        await fs.promises.writeFile(note, JSON.stringify({ agentId, at: Date.now(), messages }), 'utf8');
        await fs.promises.rm(file, { force: true });
        evicted.push(agentId);
        this.o.log.info(
          `Pruned the saved transcript of run ${agentId} (${messages} messages, ${(v.size / 1048576).toFixed(1)} MB): saved transcripts were over the ${Math.round(max / 1048576)} MB limit (agentRuns.transcripts.maxDiskMB).`,
        );
      } catch (e) {
        this.o.log.warn(`Could not prune the saved transcript of run ${agentId}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return evicted;
  }
}
