/**
 * The stored data of the emulated service. One instance lives as long as the emulator;
 * `load` replaces its contents in place, so references held by tests stay valid after reset.
 */
import type { AgentRecord, ApiToken, CodeReviewRecord, Member, Project, Seed, Settings, TestGroupRecord, VersionRecord, Workspace } from './domain';
import { PRESETS } from './settings';
import { DEFAULT_WIDER, type AppTestRecord, type AutomationRecord, type GroupRunRecord, type TestRunRecord, type TestUserRecord, type WiderVersion } from './testDomain';
import { seedAllVersions } from './versions';

function clone<T>(value: T): T {
  return structuredClone(value);
}

export class EmulatorState {
  readonly workspaces = new Map<string, Workspace>();
  /** By token value. */
  readonly tokens = new Map<string, ApiToken>();
  readonly agents = new Map<string, AgentRecord>();
  readonly testGroups = new Map<string, TestGroupRecord>();
  /** Code reviews by id (deployed shapes; codeReviews.ts). */
  readonly codeReviews = new Map<string, CodeReviewRecord>();
  /** Each project's versions by app id, oldest first (served under deployed shapes; versions.ts). */
  readonly versions = new Map<string, VersionRecord[]>();
  /** The app's tests and components, test users, test runs, group runs and automations by id (deployed shapes; testSeed.ts, appTests.ts, testRuns.ts). */
  readonly appTests = new Map<string, AppTestRecord>();
  readonly testUsers = new Map<string, TestUserRecord>();
  readonly testRuns = new Map<string, TestRunRecord>();
  readonly groupRuns = new Map<string, GroupRunRecord>();
  readonly automations = new Map<string, AutomationRecord>();
  /** Which published version of the wider API the deployed shapes serve where they differ (`startEmulator({ wider })`, `PUT /__admin/wider`). */
  wider: WiderVersion = DEFAULT_WIDER;
  /** How many steps of the clock `POST /versions/sync` waits for its sync before it answers 202 (`PUT /__admin/sync-wait`). */
  syncWaitSteps = 0;
  /** Syncs told to fail (`PUT /__admin/sync-failure`): the error, by `<appId> <branch id>`. */
  readonly syncFailures = new Map<string, string>();
  /** Changed in place (tests and the server hold this object). */
  readonly settings: Settings = { ...PRESETS.reference };

  load(seed: Seed, now: number): void {
    this.workspaces.clear();
    this.tokens.clear();
    this.agents.clear();
    this.testGroups.clear();
    this.codeReviews.clear();
    this.versions.clear();
    this.syncWaitSteps = 0;
    this.syncFailures.clear();
    for (const map of [this.appTests, this.testUsers, this.testRuns, this.groupRuns, this.automations]) map.clear();
    for (const ws of seed.workspaces) this.workspaces.set(ws.id, clone(ws));
    for (const t of seed.tokens) {
      const token: ApiToken = { id: t.id, name: t.name, value: t.value, workspaceId: t.workspaceId, projects: clone(t.projects), createdAt: now };
      if (t.revoked) token.revokedAt = now;
      this.tokens.set(t.value, token);
    }
    Object.assign(this.settings, seed.settings);
    for (const [appId, versions] of seedAllVersions(this.workspaces.values(), now)) this.versions.set(appId, versions);
  }

  /** A token by its secret value or by its id. */
  findToken(valueOrId: string): ApiToken | undefined {
    return this.tokens.get(valueOrId) ?? [...this.tokens.values()].find((t) => t.id === valueOrId);
  }

  findProject(workspace: Workspace, appId: string): Project | undefined {
    return workspace.projects.find((p) => p.appId === appId);
  }

  findMember(workspace: Workspace, email: string): Member | undefined {
    const wanted = email.toLowerCase();
    return workspace.members.find((m) => m.email.toLowerCase() === wanted);
  }

  /** Test groups in creation order. */
  testGroupList(): TestGroupRecord[] {
    return [...this.testGroups.values()];
  }
}

/** Whether a token's scope includes an app (scopes list app IDs or project IDs). */
export function tokenCovers(token: ApiToken, project: Project): boolean {
  return token.projects === 'all' || token.projects.includes(project.appId) || token.projects.includes(project.projectId);
}
