/**
 * `@agent-runs` in the chat view: `/start`, `/status`, `/followup`, `/tests`. It talks to the
 * service, not to a language model, so it works with no model at all. A message typed by the
 * person is their instruction: `/start` starts with the defaults of the settings (read_only;
 * edit rights only through the launch form, where they are confirmed), `/followup` sends.
 * While a run works its progress is streamed (status changes and new agent messages, bounded
 * in count, size and time; cancellation stops it).
 */
import * as vscode from 'vscode';
import type { Agent } from '../api/types';
import type { Deps } from '../runs/deps';
import { progressMarkdown, escapeMarkdown, statusWord, type ProgressState } from '../core/assistant/format';
import { clientOrRefuse, failureText, setting } from './common';

export interface FollowOptions {
  /** Milliseconds between reads. */
  intervalMs: number;
  /** Stop following after this long (the run goes on; the Runs view keeps following it). */
  maxMs: number;
  /** Markdown parts written at most. */
  maxParts: number;
}

export const DEFAULT_FOLLOW: FollowOptions = { intervalMs: 3000, maxMs: 10 * 60_000, maxParts: 60 };

const ID_SHAPE = /^[\w.:-]{1,200}$/;

function buttons(stream: vscode.ChatResponseStream, agentId: string): void {
  stream.button({ command: 'agentRuns.openRun', arguments: [agentId], title: vscode.l10n.t('Open Run') });
  stream.button({ command: 'agentRuns.sendFollowUp', arguments: [agentId], title: vscode.l10n.t('Send Follow-up…') });
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

/** Streams what changes until the run ends, the person cancels, or the bounds run out. */
async function follow(deps: Deps, agentId: string, first: Agent | undefined, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions): Promise<void> {
  const client = await clientOrRefuse(deps);
  const started = Date.now();
  let state: ProgressState = { seen: 0 };
  let parts = 0;
  let agent = first;
  const bounds = { maxMessages: 5, maxMessageChars: 1500 };
  for (;;) {
    if (token.isCancellationRequested) return;
    agent ??= await client.getAgent(agentId);
    const out = progressMarkdown(agent, state, bounds, vscode.l10n);
    state = out.state;
    for (const part of out.parts) {
      if (parts >= opts.maxParts) break;
      stream.markdown(`${part}\n\n`);
      parts += 1;
    }
    const status = agent.status;
    if (status === 'completed' || status === 'error') return;
    if (parts >= opts.maxParts || Date.now() - started >= opts.maxMs) {
      stream.markdown(`${escapeMarkdown(vscode.l10n.t('Still {0}; stopped following here. The Agent Runs view keeps following the run.', statusWord(status, vscode.l10n)))}\n\n`);
      return;
    }
    stream.progress(vscode.l10n.t('Run {0} is {1}…', agentId, statusWord(status, vscode.l10n)));
    await sleep(opts.intervalMs, token);
    agent = undefined;
  }
}

function latestRunId(deps: Deps): string | undefined {
  const runs = deps.ledger().all();
  return runs.slice().sort((a, b) => (b.createdAt ?? b.addedAt) - (a.createdAt ?? a.addedAt))[0]?.agentId;
}

/** `<agentId> rest` when the first word names a run in the list or looks like an ID the person gave; else the latest run. */
function splitRunAndText(deps: Deps, prompt: string): { agentId?: string; text: string } {
  const trimmed = prompt.trim();
  const [first = '', ...rest] = trimmed.split(/\s+/);
  if (first !== '' && (deps.ledger().get(first) || (ID_SHAPE.test(first) && /\d/.test(first) && rest.length === 0))) {
    return { agentId: first, text: trimmed.slice(first.length).trim() };
  }
  return { agentId: latestRunId(deps), text: trimmed };
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
  // Invalid input (e.g. a prompt the service would refuse) is reported as text; nothing is sent.
  const body = deps.api().validateStartAgentRequest({ appId, model, prompt });
  stream.progress(vscode.l10n.t('Starting an agent run on {0} with {1} (read only)…', appId, model));
  const run = await client.startAgent(body);
  deps.afterPost({ kind: 'start', run, request: body });
  stream.markdown(`${escapeMarkdown(vscode.l10n.t('Started run {0} on {1} with {2}, read only.', run.agentId, run.appId ?? appId, model))}\n\n`);
  buttons(stream, run.agentId);
  await follow(deps, run.agentId, undefined, stream, token, opts);
}

async function status(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions): Promise<void> {
  const agentId = request.prompt.trim().split(/\s+/)[0] || latestRunId(deps);
  if (!agentId) {
    stream.markdown(escapeMarkdown(vscode.l10n.t('No run in the list yet. Give a run ID after /status, or start one with /start.')));
    return;
  }
  const client = await clientOrRefuse(deps);
  const agent = await client.getAgent(deps.api().validateAgentId(agentId));
  stream.markdown(`${escapeMarkdown(vscode.l10n.t('Run {0}', agentId))}\n\n`);
  buttons(stream, agentId);
  await follow(deps, agentId, agent, stream, token, opts);
}

async function followUp(deps: Deps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, opts: FollowOptions): Promise<void> {
  const { agentId, text } = splitRunAndText(deps, request.prompt);
  if (!agentId || text === '') {
    stream.markdown(escapeMarkdown(vscode.l10n.t('Write /followup <run ID> <what the agent should do next> (the run ID may be left out for the latest run).')));
    return;
  }
  const client = await clientOrRefuse(deps);
  const api = deps.api();
  const body = api.validateFollowUpRequest({ prompt: text });
  await client.getAgent(api.validateAgentId(agentId));
  const ack = await client.sendFollowUp(agentId, body);
  deps.afterPost({ kind: 'followUp', agentId, ack, prompt: body.prompt });
  stream.markdown(`${escapeMarkdown(vscode.l10n.t('Follow-up sent to run {0}.', agentId))}\n\n`);
  buttons(stream, agentId);
  await follow(deps, agentId, undefined, stream, token, opts);
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
        tests(request, stream);
        break;
      default:
        stream.markdown(escapeMarkdown(vscode.l10n.t('I start and follow hosted agent runs: /start <prompt>, /status [run ID], /followup [run ID] <prompt>, /tests (the open or attached test files).')));
    }
    return {};
  } catch (e) {
    const message = failureText(deps, e);
    stream.markdown(escapeMarkdown(message));
    return { errorDetails: { message } };
  }
}
