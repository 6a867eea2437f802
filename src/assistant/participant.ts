/**
 * `@agent-runs` in the chat: talks to the service, not a model. `/start` uses the settings'
 * defaults (read_only; edit rights only via the confirming launch form). Sends go through the send
 * sender (one lock per run, "may have arrived" recorded, never resent); progress is the run's one state.
 */
import * as vscode from 'vscode';
import type { Deps } from '../run/deps';
import { progressMarkdown, escapeMarkdown, statusWord, type ProgressState } from './common/format';
import { conversationOf, runState } from '../run/common/ledger/runState';
import { followUpConflict, noFollowUpsReason, startConflict } from '../run/common/refusals';
import { splitRunAndText } from './common/chatRunId';
import { clientOrRefuse, failureText, modelsOffered, setting, notConnectedText } from './common';
import { reviews } from './reviewChat';
import { automations, serviceTests } from './testChat';

export interface FollowOptions {
  /** Milliseconds between reads. */
  intervalMs: number;
  /** Stop following after this long (the run goes on; the Runs view keeps following it). */
  maxMs: number;
  /** Markdown parts written at most. */
  maxParts: number;
}

export const DEFAULT_FOLLOW: FollowOptions = { intervalMs: 3000, maxMs: 10 * 60_000, maxParts: 60 };

function buttons(stream: vscode.ChatResponseStream, agentId: string, followUp = true): void {
  stream.button({ command: 'agentRuns.openRun', arguments: [agentId], title: vscode.l10n.t('Open Run') });
  if (followUp) stream.button({ command: 'agentRuns.sendFollowUp', arguments: [agentId], title: vscode.l10n.t('Send Follow-up…') });
}

const sleep = (ms: number, token: vscode.CancellationToken): Promise<void> => new Promise((resolve) => {
  const timer = setTimeout(done, ms);
  const sub = token.onCancellationRequested(done);
  function done(): void {
    clearTimeout(timer);
    sub.dispose();
    resolve();
  }
});

/**
 * Streams the run's state changes until it is finished, the person cancels or the bounds run out.
 * `seen`: the newest sequence already known, so a follow-up's progress skips the previous turn.
 */
async function follow(deps: Deps, agentId: string, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions, seen = 0): Promise<void> {
  const started = Date.now();
  let state: ProgressState = { seen };
  let parts = 0;
  const bounds = { maxMessages: 5, maxMessageChars: 1500 };
  for (;;) {
    if (token.isCancellationRequested) return;
    // One read through the poller: the stale-read rule and the follow-up evidence apply.
    await deps.runs.refresh(agentId);
    const shown = deps.runs.get(agentId);
    if (!shown) {
      stream.markdown(`${escapeMarkdown(vscode.l10n.t('Run {0} is no longer in the Agent Runs list; stopped following.', agentId))}\n\n`);
      return;
    }
    const history = await deps.runs.messages(agentId);
    const out = progressMarkdown({ ...shown.run, agentId, history: [...history] }, state, bounds, vscode.l10n);
    state = out.state;
    for (const part of out.parts) {
      if (parts >= opts.maxParts) break;
      stream.markdown(`${part}\n\n`);
      parts += 1;
    }
    if (shown.run.finished) return;
    if (parts >= opts.maxParts || Date.now() - started >= opts.maxMs) {
      stream.markdown(`${escapeMarkdown(vscode.l10n.t('Still {0}; stopped following here. The Agent Runs view keeps following the run.', statusWord(shown.run.status, vscode.l10n)))}\n\n`);
      return;
    }
    stream.progress(vscode.l10n.t('Run {0} is {1}…', agentId, statusWord(shown.run.status, vscode.l10n)));
    await sleep(opts.intervalMs, token);
  }
}

function latestRunId(deps: Deps): string | undefined {
  return deps.ledger().all()[0]?.agentId;
}

async function start(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions): Promise<void> {
  const prompt = request.prompt.trim();
  const appId = setting('appId');
  const model = setting('defaultModel');
  if (prompt === '' || appId === '' || model === '') {
    stream.markdown(escapeMarkdown(vscode.l10n.t('To start here, write the prompt after /start and set agentRuns.appId and agentRuns.defaultModel. Or review every field in the launch form:')));
    stream.button({ command: 'agentRuns.startRun', arguments: [{ prompt, appId, model }], title: vscode.l10n.t('Start Agent Run…') });
    return;
  }
  const client = await clientOrRefuse(deps);
  // Checked completely before anything is sent: the request, and the model against the served list.
  const api = deps.api();
  const body = api.validateStartAgentRequest({ appId, model, prompt }, { knownModels: await modelsOffered(client) });
  stream.progress(vscode.l10n.t('Starting an agent run on {0} with {1} (read only)…', appId, model));
  const result = await deps.sender.start(body, { from: 'chat', client, quiet: true });
  if (result.kind === 'notConnected') {
    stream.markdown(escapeMarkdown(notConnectedText(deps)));
    return;
  }
  if (result.kind === 'failed') {
    if (result.mayHaveArrived) {
      stream.markdown(escapeMarkdown(vscode.l10n.t('The run may have been started: {0} It is not started again; the Agent Runs view shows it as “may have started”. Track it by ID once you know it, or start it again yourself if it does not appear.', failureText(deps, result.error))));
      stream.button({ command: 'agentRuns.trackRun', title: vscode.l10n.t('Track Run by ID…') });
      return;
    }
    const conflict = startConflict(result.error, vscode.l10n);
    if (conflict !== undefined) {
      // Refused at the workspace's limit: nothing was started; the active runs are in the Runs view.
      stream.markdown(escapeMarkdown(vscode.l10n.t('Not done: {0}', conflict)));
      stream.button({ command: 'agentRuns.runs.focus', title: vscode.l10n.t('Show Runs') });
      return;
    }
    throw result.error;
  }
  const run = result.run;
  stream.markdown(`${escapeMarkdown(vscode.l10n.t('Started run {0} on {1} with {2}, read only.', run.agentId, run.appId ?? appId, model))}\n\n`);
  buttons(stream, run.agentId);
  await follow(deps, run.agentId, stream, token, opts);
}

async function status(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions): Promise<void> {
  const agentId = request.prompt.trim().split(/\s+/)[0] || latestRunId(deps);
  if (!agentId) {
    stream.markdown(escapeMarkdown(vscode.l10n.t('No run in the list yet. Give a run ID after /status, or start one with /start.')));
    return;
  }
  const id = deps.api().validateAgentId(agentId);
  const listed = deps.runs.get(id);
  if (listed) {
    stream.markdown(`${escapeMarkdown(vscode.l10n.t('Run {0}', id))}\n\n`);
    buttons(stream, id, listed.run.takesFollowUps);
    await follow(deps, id, stream, token, opts);
    return;
  }
  // Not in the list: one read, shown by the same rule; following is for listed runs.
  const client = await clientOrRefuse(deps);
  const agent = await client.getAgent(id);
  const state = runState({ status: agent.status ?? 'queued', completedAt: agent.completedAt });
  stream.markdown(`${escapeMarkdown(vscode.l10n.t('Run {0} (not in your Agent Runs list)', id))}\n\n`);
  for (const part of progressMarkdown({ ...agent, status: state.status }, { seen: 0 }, { maxMessages: 5, maxMessageChars: 1500 }, vscode.l10n).parts) {
    stream.markdown(`${part}\n\n`);
  }
  stream.button({ command: 'agentRuns.trackRun', arguments: [id], title: vscode.l10n.t('Track Run') });
}

async function followUp(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions): Promise<void> {
  const { agentId, named, text } = splitRunAndText(request.prompt, deps.ledger().all().map((r) => r.agentId));
  if (!agentId || text === '') {
    stream.markdown(escapeMarkdown(vscode.l10n.t('Write /followup <run ID> <what the agent should do next> (the run ID may be left out for the latest run).')));
    return;
  }
  const api = deps.api();
  const id = api.validateAgentId(agentId);
  const body = api.validateFollowUpRequest({ prompt: text });
  const client = await clientOrRefuse(deps);
  // A run named by ID that is not listed: it must exist before anything is posted to it, and
  // its read says whether it takes follow-ups at all (the sender decides, as for a listed one).
  const read = named && !deps.runs.get(id) ? await client.getAgent(id) : undefined;
  const before = deps.runs.get(id)?.record.lastSequence ?? 0;
  const result = await deps.sender.followUp(id, { prompt: body.prompt }, { from: 'chat', client, quiet: true, read });
  switch (result.kind) {
    case 'notConnected':
      stream.markdown(escapeMarkdown(notConnectedText(deps)));
      return;
    case 'noFollowUps':
      stream.markdown(escapeMarkdown(vscode.l10n.t('Not done: {0}', noFollowUpsReason(vscode.l10n))));
      buttons(stream, id, false);
      return;
    case 'busy':
      stream.markdown(escapeMarkdown(vscode.l10n.t('Not sent: a follow-up to run {0} is already on its way or may have arrived. Its panel shows when it has; send again from there if it did not.', id)));
      buttons(stream, id, false);
      return;
    case 'failed': {
      if (result.mayHaveArrived) {
        stream.markdown(escapeMarkdown(vscode.l10n.t('The follow-up may have reached run {0}: {1} It is not sent again on its own; the run is read to see whether it arrived.', id, failureText(deps, result.error))));
        buttons(stream, id, false);
        return;
      }
      // A 409 says which refusal it was (by the answer, else by the run's kind); nothing was sent.
      const conflict = followUpConflict(result.error, deps.runs.get(id)?.run ?? (read ? conversationOf(read) : undefined), vscode.l10n);
      if (!conflict) throw result.error;
      stream.markdown(escapeMarkdown(vscode.l10n.t('Not done: {0}', conflict.message)));
      if (conflict.cause === 'concurrency') stream.button({ command: 'agentRuns.runs.focus', title: vscode.l10n.t('Show Runs') });
      return;
    }
    case 'sent':
      break;
  }
  stream.markdown(`${escapeMarkdown(vscode.l10n.t('Follow-up sent to run {0}.', id))}\n\n`);
  buttons(stream, id);
  await follow(deps, id, stream, token, opts, before);
}

/** `/tests`: the referenced files (or the active editor's) into the test-group flow, where IDs, name and app are reviewed. */
function tests(request: vscode.ChatRequest, stream: vscode.ChatResponseStream): void {
  const uris = request.references.map((r) => (r.value instanceof vscode.Uri ? r.value : r.value instanceof vscode.Location ? r.value.uri : undefined))
    .filter((u): u is vscode.Uri => u !== undefined);
  const active = vscode.window.activeTextEditor?.document.uri;
  const files = uris.length > 0 ? uris : active ? [active] : [];
  if (files.length === 0) {
    stream.markdown(escapeMarkdown(vscode.l10n.t('Open a test file or attach test files (#file), then ask again.')));
    return;
  }
  const names = files.map((u) => vscode.workspace.asRelativePath(u)).join(', ');
  stream.markdown(escapeMarkdown(vscode.l10n.t('Create a test group from {0}: pick the test IDs, the name and the app.', names)));
  const [first] = files;
  stream.button({ command: 'agentRuns.testGroups.create', arguments: [first, files], title: vscode.l10n.t('Create Test Group…') });
}

export async function handleChat(deps: Deps, request: vscode.ChatRequest, _context: vscode.ChatContext, stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken, opts: FollowOptions = DEFAULT_FOLLOW): Promise<vscode.ChatResult> {
  try {
    switch (request.command) {
      case 'start':
        await start(deps, request, stream, token, opts);
        break;
      case 'status':
        await status(deps, request, stream, token, opts);
        break;
      case 'followup':
        await followUp(deps, request, stream, token, opts);
        break;
      case 'tests':
        if (!await serviceTests(deps, request, stream, token)) tests(request, stream);
        break;
      case 'reviews':
        await reviews(deps, request, stream, token);
        break;
      case 'automations':
        await automations(deps, stream, token);
        break;
      default:
        stream.markdown(escapeMarkdown(vscode.l10n.t('I start and follow hosted agent runs: /start <prompt>, /status [run ID], /followup [run ID] <prompt>, /tests [test run ID] (the app\'s tests where the service offers them, else the open or attached test files), /reviews [review ID] (code reviews, where the service offers them), /automations (where the service offers them).')));
    }
    return {};
  } catch (e) {
    const message = failureText(deps, e);
    stream.markdown(escapeMarkdown(message));
    return { errorDetails: { message } };
  }
}
