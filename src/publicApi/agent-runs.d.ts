// The Agent Runs extension's API for other extensions: copy this file into yours.
//   const ext = vscode.extensions.getExtension<AgentRunsExtension>('agent-runs-team.agent-runs');
//   const api = (await ext?.activate())?.getAPI(1);
// Versioned like the Git extension's: getAPI(1) keeps this shape. No token or secret ever crosses
// it, and every send asks the person first.
import type { Event } from 'vscode';

/** What the extension's activate() returns. */
export interface AgentRunsExtension {
  /** The API of `version`; throws for a version this build does not have. */
  getAPI(version: 1): AgentRunsApi;
}

/**
 * A run's status as the service spells it (`queued`, `running`, `completed`, `error`, or one the
 * reference does not list, such as `cancelled`), derived the way every view of the extension shows it.
 */
export type RunStatus = string;

/** How a finished run ended: `ended` for a status the reference does not list. */
export type RunOutcome = 'completed' | 'error' | 'ended';

/** A run's one state: the same the Runs view, the status bar and the run panel show. */
export interface RunState {
  readonly status: RunStatus;
  /** Over, with no acknowledged follow-up still under way. */
  readonly finished: boolean;
  /** Set when finished. */
  readonly outcome?: RunOutcome;
  /** When it finished (Unix ms), when the service says. */
  readonly completedAt?: number;
  /** A code review's conversation: it takes no follow-ups. */
  readonly codeReview: boolean;
  readonly takesFollowUps: boolean;
  /** The newest follow-up the service acknowledged whose turn has not been seen to end. */
  readonly followUp?: { readonly prompt: string; readonly at: number; readonly arrived: boolean };
}

/** A run in the list of the configured service (its base URL). */
export interface Run {
  readonly agentId: string;
  /** The service it runs on (`agentRuns.baseUrl`, normalised). */
  readonly baseUrl: string;
  /** `started` from this editor; `tracked` when added by ID or found by a read. */
  readonly source: 'started' | 'tracked';
  readonly state: RunState;
  readonly appId?: string;
  readonly projectName?: string;
  readonly prompt?: string;
  readonly model?: string;
  readonly permission?: string;
  readonly createdAt?: number;
  readonly updatedAt?: number;
  readonly lastError?: string;
  /** The last read failed (this sentence says why): the state is the last one known. */
  readonly readProblem?: string;
  /** The code review this run is the conversation of, if it is one. */
  readonly codeReview?: { readonly reviewId: string };
}

/** One message of a run's transcript. */
export interface RunMessage {
  readonly sequence?: number;
  /** `user`, `assistant`, `tool`, … as the service sends it. */
  readonly role?: string;
  readonly content?: string;
  readonly toolName?: string;
  /** Unix ms, the service's clock. */
  readonly createdAt?: number;
}

export interface RunAdded { readonly baseUrl: string; readonly run: Run }
export interface RunStateChanged { readonly baseUrl: string; readonly agentId: string; readonly oldStatus: RunStatus; readonly newStatus: RunStatus; readonly state: RunState }
export interface RunFinished { readonly baseUrl: string; readonly agentId: string; readonly outcome: RunOutcome; readonly completedAt?: number }
export interface FollowUpAcknowledged { readonly baseUrl: string; readonly agentId: string; readonly prompt: string }
export interface RunRemoved { readonly baseUrl: string; readonly agentId: string }

/** What starting a run sends (`POST /agents`); unset fields take the person's settings and the service's defaults. */
export interface StartRunRequest {
  readonly prompt: string;
  /** Default: `agentRuns.appId`. */
  readonly appId?: string;
  /** Default: `agentRuns.defaultModel`. */
  readonly model?: string;
  readonly reasoningEffort?: string;
  /** `read_only` (default) or `allow_edits`. */
  readonly permission?: string;
  readonly permittedBranches?: readonly string[];
}

export interface FollowUpRequest {
  readonly prompt: string;
  readonly permission?: string;
  readonly permittedBranches?: readonly string[];
}

/**
 * How an act ended; nothing was sent unless `kind` is `started`, `sent` or `mayHaveArrived`. `declined`: the
 * person said no; `refused`: `message` says why; `busy`: a follow-up to that run is under way or may have arrived;
 * `mayHaveArrived`: it may have reached the service, its answer lost; never sent again on its own: do not repeat it.
 */
export type StartRunResult =
  | { readonly kind: 'started'; readonly agentId: string; readonly status: RunStatus }
  | { readonly kind: 'declined' | 'refused' | 'mayHaveArrived'; readonly message: string };
export type FollowUpResult =
  | { readonly kind: 'sent'; readonly status: RunStatus }
  | { readonly kind: 'declined' | 'refused' | 'busy' | 'mayHaveArrived'; readonly message: string };
export type TrackRunResult =
  | { readonly kind: 'tracked'; readonly run: Run }
  | { readonly kind: 'declined' | 'refused'; readonly message: string };

export interface AgentRunsApi {
  /** The configured service's normalised base URL; undefined when none is usable. */
  readonly baseUrl: string | undefined;
  /** Fires when the base URL changed: the runs are another service's from then on (no added or removed events for the switch). */
  readonly onDidChangeBaseUrl: Event<string | undefined>;

  /** The runs in the list of the configured service, newest first. */
  runs(): readonly Run[];
  /** One run of the list, or undefined. */
  run(agentId: string): Run | undefined;
  /** The newest `max` (default 20, at most 200) messages of a listed run, oldest first. */
  recentMessages(agentId: string, max?: number): Promise<readonly RunMessage[]>;

  /** Each fires once per change, in order, never for a read older than what was known. */
  readonly onDidAddRun: Event<RunAdded>;
  readonly onDidChangeRunState: Event<RunStateChanged>;
  readonly onDidFinishRun: Event<RunFinished>;
  readonly onDidAcknowledgeFollowUp: Event<FollowUpAcknowledged>;
  readonly onDidRemoveRun: Event<RunRemoved>;

  /** Starts a run after the person confirms what is sent (the dialog the assistant's tools show). */
  startRun(request: StartRunRequest): Promise<StartRunResult>;
  /** Sends a follow-up after the person confirms it; one at a time per run. */
  sendFollowUp(agentId: string, request: FollowUpRequest): Promise<FollowUpResult>;
  /** Adds a run started elsewhere to the list after the person confirms (one read, nothing sent). */
  trackRun(agentId: string): Promise<TrackRunResult>;
}
