/**
 * The test groups this editor created, per base URL (the service has no list endpoint).
 * No `vscode` here: the store takes a Memento-shaped key/value store, so it is unit-tested.
 */
import { Emitter, type Event } from '../../base/common/events';

/** The subset of vscode.Memento the store needs. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface TestGroupRecord {
  groupId: string;
  name: string;
  appId: string;
  description: string | null;
  /** How many test IDs were sent. */
  testCount: number;
  /** The IDs sent, in order (at most `MAX_STORED_IDS`). */
  testIds: string[];
  /** Workspace-relative paths of the files the IDs came from, in order. */
  files: string[];
  /** Unix ms. */
  createdAt: number;
}

interface Stored {
  version: 1;
  groups: TestGroupRecord[];
}

const PREFIX = 'agentRuns.testGroups.v1:';
export const MAX_GROUPS = 200;
export const MAX_STORED_IDS = 1000;

/** The globalState key of the groups created against `baseUrl` (`''` when none is configured). */
export function testGroupsKey(baseUrl: string | undefined): string {
  return PREFIX + (baseUrl ?? '');
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** One stored entry, or undefined when it is unusable (a corrupt entry never breaks the list). */
export function reviveTestGroup(raw: unknown): TestGroupRecord | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.groupId !== 'string' || r.groupId === '') return undefined;
  const testIds = isStringArray(r.testIds) ? r.testIds : [];
  return {
    groupId: r.groupId,
    name: typeof r.name === 'string' ? r.name : r.groupId,
    appId: typeof r.appId === 'string' ? r.appId : '',
    description: typeof r.description === 'string' ? r.description : null,
    testCount: typeof r.testCount === 'number' && Number.isFinite(r.testCount) && r.testCount >= 0 ? r.testCount : testIds.length,
    testIds,
    files: isStringArray(r.files) ? r.files : [],
    createdAt: typeof r.createdAt === 'number' && Number.isFinite(r.createdAt) ? r.createdAt : 0,
  };
}

export class TestGroupStore {
  private readonly emitter = new Emitter<void>();
  readonly onDidChange: Event<void> = this.emitter.event;
  private groups: TestGroupRecord[] = [];
  private baseUrl: string | undefined;

  constructor(private readonly memento: KeyValueStore, baseUrl: string | undefined) {
    this.baseUrl = baseUrl;
    this.load();
  }

  /** Switches to the groups of another base URL. */
  setBaseUrl(baseUrl: string | undefined): void {
    if (baseUrl === this.baseUrl) return;
    this.baseUrl = baseUrl;
    this.load();
    this.emitter.fire();
  }

  get currentBaseUrl(): string | undefined {
    return this.baseUrl;
  }

  /** Newest first. */
  list(): TestGroupRecord[] {
    return [...this.groups];
  }

  get(groupId: string): TestGroupRecord | undefined {
    return this.groups.find((g) => g.groupId === groupId);
  }

  /**
   * Adds a group created against `baseUrl` (the base URL it was sent to, which may no longer
   * be the current one when the request was slow). Replaces an entry with the same ID.
   */
  async add(record: TestGroupRecord, baseUrl: string | undefined = this.baseUrl): Promise<void> {
    const entry: TestGroupRecord = { ...record, testIds: record.testIds.slice(0, MAX_STORED_IDS), files: [...record.files] };
    if (baseUrl !== this.baseUrl) {
      const key = testGroupsKey(baseUrl);
      const others = this.read(key).filter((g) => g.groupId !== entry.groupId);
      await this.memento.update(key, this.serialize([entry, ...others]));
      return;
    }
    this.groups = [entry, ...this.groups.filter((g) => g.groupId !== entry.groupId)].slice(0, MAX_GROUPS);
    this.emitter.fire();
    await this.persist();
  }

  async remove(groupId: string): Promise<boolean> {
    const before = this.groups.length;
    this.groups = this.groups.filter((g) => g.groupId !== groupId);
    if (this.groups.length === before) return false;
    this.emitter.fire();
    await this.persist();
    return true;
  }

  dispose(): void {
    this.emitter.dispose();
  }

  private read(key: string): TestGroupRecord[] {
    const raw = this.memento.get<unknown>(key);
    if (typeof raw !== 'object' || raw === null) return [];
    const list = (raw as { groups?: unknown }).groups;
    if (!Array.isArray(list)) return [];
    const seen = new Set<string>();
    const out: TestGroupRecord[] = [];
    for (const item of list) {
      const g = reviveTestGroup(item);
      if (g && !seen.has(g.groupId)) {
        seen.add(g.groupId);
        out.push(g);
      }
    }
    return out.slice(0, MAX_GROUPS);
  }

  private load(): void {
    this.groups = this.read(testGroupsKey(this.baseUrl));
  }

  private serialize(groups: TestGroupRecord[]): Stored {
    return { version: 1, groups: groups.slice(0, MAX_GROUPS) };
  }

  private persist(): PromiseLike<void> {
    return this.memento.update(testGroupsKey(this.baseUrl), this.serialize(this.groups));
  }
}
