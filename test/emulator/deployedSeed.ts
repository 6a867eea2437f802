/**
 * Runs the deployed profile starts with (`shapes: 'deployed'`): an older run whose model the
 * service no longer accepts for new runs (service-api-wider.md §1: the GET model list is wider
 * than the POST one). Its history is written by the same turn script as any run (runs.ts), as
 * it ran three days before the clock's start; `reset()` and switching the shapes to `deployed`
 * put it back when it is missing, with the seeded code reviews (reviewSeed.ts) and the app's
 * tests, groups and automations (testSeed.ts).
 */
import type { AgentRecord, Message } from './domain';
import { messageOf } from './records';
import { seedReviews } from './reviewSeed';
import { seedAppTests } from './testSeed';
import { planTurn } from './runs';
import { SEED } from './seed';
import { lifecycleWords, mentionedIssues, writeAttachments } from './shapes';
import type { EmulatorState } from './state';

const DAY_MS = 24 * 60 * 60 * 1000;
const STEP_MS = 1000;

/** The retired-model run: ids and values tests can rely on. */
export const RETIRED_MODEL_RUN = Object.freeze({
  agentId: SEED.agents.retiredModel,
  workspaceId: SEED.workspaces.main,
  appId: SEED.apps.todo,
  model: 'anthropic/claude-sonnet-4',
  userEmail: SEED.emails.dev,
  prompt: 'Add a dark mode toggle to the Settings page (TODO-87)',
});

function retiredModelRun(state: EmulatorState, now: number): AgentRecord | undefined {
  const workspace = state.workspaces.get(RETIRED_MODEL_RUN.workspaceId);
  const project = workspace === undefined ? undefined : state.findProject(workspace, RETIRED_MODEL_RUN.appId);
  if (project === undefined) return undefined; // a seed without that project: nothing to put back
  const createdAt = now - 3 * DAY_MS;
  const script = planTurn({
    prompt: RETIRED_MODEL_RUN.prompt,
    turnNumber: 1,
    appId: project.appId,
    projectName: project.projectName,
    model: RETIRED_MODEL_RUN.model,
    permission: 'allow_edits',
    permittedBranches: ['main'],
    shapes: 'deployed',
  });
  // As the service would have written it: the prompt on the first tick, then one step per tick.
  const history: Message[] = [];
  let at = createdAt + STEP_MS;
  const issues = writeAttachments('deployed', project.appId, mentionedIssues(RETIRED_MODEL_RUN.prompt));
  history.push(messageOf({ role: 'user', content: RETIRED_MODEL_RUN.prompt, attachments: issues }, 1, at));
  for (const step of script.steps) {
    at += STEP_MS;
    for (const draft of step.messages) history.push(messageOf(structuredClone(draft), history.length + 1, at));
  }
  const completedAt = at + STEP_MS;
  const end = lifecycleWords('deployed').turnEnd('completed');
  return {
    agentId: RETIRED_MODEL_RUN.agentId,
    kind: 'agent',
    workspaceId: workspace?.id ?? RETIRED_MODEL_RUN.workspaceId,
    appId: project.appId,
    projectId: project.projectId,
    projectName: project.projectName,
    model: RETIRED_MODEL_RUN.model,
    reasoningEffort: 'high',
    permission: 'allow_edits',
    permittedBranches: ['main'],
    userEmail: RETIRED_MODEL_RUN.userEmail,
    createdByTokenId: 'tok_default',
    status: 'completed',
    createdAt,
    updatedAt: completedAt,
    completedAt,
    history,
    lifecycle: { ...end, queuedTurnCount: 0, lastLifecycleEventAt: completedAt },
    pendingTurns: [],
    turnCount: 1,
    creditsCharged: 0,
    extraFields: {},
    halted: false,
  };
}

/** Adds the deployed profile's runs that are missing; returns the ones added (for the stale-read versions). */
export function seedDeployedRuns(state: EmulatorState, now: number): AgentRecord[] {
  seedAppTests(state, now);
  const reviews = seedReviews(state, now);
  if (state.agents.has(RETIRED_MODEL_RUN.agentId)) return reviews;
  const record = retiredModelRun(state, now);
  if (record === undefined) return reviews;
  state.agents.set(record.agentId, record);
  return [record, ...reviews];
}
