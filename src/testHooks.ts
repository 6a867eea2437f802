// Test-only hooks (dist/testHooks.js, left out of the .vsix; the harness installs it): the token seeding and the test API.
import type * as vscode from 'vscode';
import type { Base, Runs, Shell } from './extension';
import type { AgentRunsExtension } from './publicApi/agent-runs';
import type { PublicApiTestHooks } from './publicApi/contribution';
import type { RunLedger } from './run/common/ledger/ledger';
import type { Poller } from './run/common/polling/poller';
import type { TranscriptRead } from './run/common/transcript/transcriptFiles';
import type { AfterPost } from './run/afterPost';
import type { SendPostsModule } from './run/sender';
import type { AssistantTestHooks } from './assistant/contribution';
import type { ReviewsGate } from './reviews/gate';
import type { Capability } from './connection/common/capabilities';
import type { RunsTreeElement } from './runs/runsTree';
import type { TestGroupsElement } from './testGroups/view';

export { seedTokenFromEnv } from './connection/seedToken';

/**
 * What activate() also returns to the test harness alone (src/publicApi/contribution.ts): enough for
 * the integration tests to watch, never the token. Other extensions get `getAPI(1)` only.
 */
export interface AgentRunsTestApi extends AgentRunsExtension {
  ledger(): RunLedger;
  readonly poller: Poller;
  /** "Set API Token" prompts shown after a 401. */
  readonly unauthorizedPrompts: number;
  /** Run-finished notifications shown. */
  readonly notificationsShown: number;
  /** Run-finished notifications shown about one run (among the latest 100). */
  notificationsFor(agentId: string): number;
  /** Resolves when the ledger and transcripts are written. */
  flush(): Promise<void>;
  /** Milliseconds activate() took. */
  readonly activationMs: number;
  /** The latest reads of a saved transcript into memory (run, messages, bytes, milliseconds). */
  transcriptReads(): readonly TranscriptRead[];
  /** Base URL and whether a token is stored (never the token). */
  connection(): { baseUrl: string | undefined; signedIn: boolean; tokenRejected: boolean; online: boolean };
  /** Runs the AGENT_RUNS_SEED_TOKEN_FILE import again (tests: "a new token was set"). */
  seedToken(): Promise<boolean>;
  /** What the composer does once the service acknowledged a POST (tests: a follow-up whose reads are still stale). */
  afterPost(post: AfterPost): void;
  /** The `sequence` of every message in a run's transcript, in order (-1 without one). */
  /** The sequences of the run's transcript as the product holds it (read back from its journal when not in memory). */
  transcriptSequences(agentId: string): Promise<number[]>;
  /** The language model tools and the chat handler, as registered (tests drive what the editor's UI would). */
  readonly assistant: AssistantTestHooks;
  /** The Runs view's rows as its tree provider gives them to VS Code. */
  readonly runsTree: { getChildren(element?: RunsTreeElement): RunsTreeElement[] | Promise<RunsTreeElement[]>; getTreeItem(element: RunsTreeElement): vscode.TreeItem };
  /** Whether `agentRuns.codeReviews` is on. */
  codeReviews(): boolean;
  /** Whether a capability's context key (`agentRuns.<capability>`) is on. */
  capability(c: Capability): boolean;
  /** The run whose panel VS Code last reported active: what a run command from the palette acts on. */
  activeRun(): string | undefined;
  /** The Test Groups view's rows as its tree provider gives them to VS Code. */
  readonly testGroupsTree: vscode.TreeDataProvider<TestGroupsElement>;
  /** The extension's global state (tests: what branches and reviews are known here, set or forgotten). */
  readonly globalState: Pick<vscode.Memento, 'get' | 'update'>;
  /** Answers the public API's confirmations in the person's place. */
  readonly publicApi: PublicApiTestHooks;
}

export function testApi(o: {
  b: Base; r: () => Runs; shell: Shell; log: vscode.LogOutputChannel; flush: () => Promise<void>; activationMs: number;
  assistant: AssistantTestHooks; reviews: ReviewsGate; testGroupsTree: AgentRunsTestApi['testGroupsTree'];
  seedToken: () => Promise<boolean>; sendPosts: () => SendPostsModule;
}): Omit<AgentRunsTestApi, 'publicApi' | 'getAPI'> {
  const { b, r, shell, flush, activationMs, assistant, reviews, testGroupsTree, sendPosts } = o;
  const { conn, ledgers, gate } = b;
  const caps = shell.capabilities;
  return {
    ledger: () => ledgers.current,
    get poller() {
      return r().sync.poller;
    },
    get unauthorizedPrompts() {
      return gate.promptCount;
    },
    get notificationsShown() {
      return r().alerts.shownCount;
    },
    notificationsFor: (agentId) => r().alerts.shownFor(agentId),
    flush,
    activationMs,
    transcriptReads: () => b.transcripts.reads,
    connection: () => ({ baseUrl: conn.current.baseUrl, signedIn: conn.current.signedIn, tokenRejected: gate.rejected, online: r().connectivity() }),
    seedToken: o.seedToken,
    afterPost: (post) => sendPosts().afterPost(b.ledgers.current, r().sync.poller, post),
    // Not the in-memory store alone: a transcript no panel shows is dropped from memory once saved.
    transcriptSequences: async (agentId) => (await b.transcripts.load(agentId)).snapshot().entries.map((e) => e.sequence ?? -1),
    assistant,
    get runsTree() {
      return r().view.provider;
    },
    codeReviews: () => reviews.enabled,
    capability: (c) => caps.has(c),
    activeRun: () => shell.panels.activeRun(),
    testGroupsTree,
    globalState: b.globalState,
  };
}
