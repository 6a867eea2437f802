// Which run "Ask Agent to Fix" started for which test, per workspace.
import * as vscode from 'vscode';

const KEY = 'agentRuns.testing.links';
const MAX_LINKS = 200;
/** Context key: at least one test has a linked run (shows "Show Agent Run for This Test"). */
export const HAS_LINKS = 'agentRuns.testing.hasLinks';

interface Link {
  key: string;
  agentId: string;
  at: number;
}

/** Test → the run "Ask Agent to Fix" started for it, per workspace, newest first, bounded. */
export class TestRunLinks implements vscode.Disposable {
  private links: Link[];

  constructor(private readonly memento: vscode.Memento) {
    const raw = memento.get<unknown>(KEY);
    this.links = Array.isArray(raw)
      ? raw.filter((l): l is Link => typeof l === 'object' && l !== null && typeof (l as Link).key === 'string' && typeof (l as Link).agentId === 'string')
      : [];
    void this.publish();
  }

  get(key: string): string | undefined {
    return this.links.find((l) => l.key === key)?.agentId;
  }

  async set(key: string, agentId: string): Promise<void> {
    this.links = [{ key, agentId, at: Date.now() }, ...this.links.filter((l) => l.key !== key)].slice(0, MAX_LINKS);
    await this.memento.update(KEY, this.links);
    await this.publish();
  }

  private async publish(): Promise<void> {
    await vscode.commands.executeCommand('setContext', HAS_LINKS, this.links.length > 0);
  }

  dispose(): void {
    // Nothing held: the links are written on each change.
  }
}
