/**
 * Texts built from data: the confirmation a person sees before a tool sends something (the
 * "Ask Agent to Fix" prompt is run/common/fixPrompt.ts). Pure, so unit-tested without an editor.
 */
import { oneLine } from '../../api/sanitize';
import type { L10n } from '../../base/common/l10n';
import { cleanText, cut, fence, longestBacktickRun } from '../../base/common/text';

export interface Confirmation {
  title: string;
  /** Markdown. */
  message: string;
}

// One paragraph per fact: the editor's confirmation dialog shows Markdown as plain text and
// renders code only in paragraphs. Untrusted text is never backslash-escaped (the dialog keeps
// escapes) but put in code, shown verbatim and unable to hold a link, HTML or command URI; a
// prompt is a fenced block, always last (the dialog runs what follows into its last line).
const field = (label: string, value: string): string => `${label}: ${value}`;

/**
 * One line of untrusted text as inline code, shown as typed (backticks included): the
 * delimiter is longer than any backtick run in it, and a space pads a leading or trailing
 * backtick (CommonMark strips one space from each end).
 */
function code(value: string, max = 120): string {
  const text = oneLine(value, max);
  if (text === '') return '""';
  const delimiter = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${delimiter}${pad}${text}${pad}${delimiter}`;
}

/**
 * Multi-line untrusted text under its label, as a fenced code block: verbatim in a chat and in
 * the plain-text dialog, inert, no escapes. The label says when only the start is shown.
 */
function codeBlock(label: string, value: string, max: number, l10n: L10n): string {
  const clean = cleanText(value).replace(/^\n+/, '').replace(/\s+$/, '');
  const shown = cut(clean, max);
  const title = shown.cut ? l10n.t('{0} (the first {1} of {2} characters)', label, shown.text.length, clean.length) : label;
  const f = fence(shown.text);
  return `${title}:\n\n${f}\n${shown.text}\n${f}`;
}

const PROMPT_SHOWN = 600;

function branchList(branches: readonly string[]): string {
  return branches.map((b) => code(b, 80)).join(', ');
}

/**
 * The permission and branches as sent: `permission` undefined keeps the run's own (a
 * follow-up); branches given are always shown, whatever the permission.
 */
function permissionLines(permission: string | undefined, branches: readonly string[] | undefined, l10n: L10n): string[] {
  const given = branches && branches.length > 0 ? branches : undefined;
  if (permission === 'allow_edits') {
    const where = given ? branchList(given) : l10n.t('any branch the service allows');
    return [field(l10n.t('Permission'), `**allow_edits** — ${l10n.t('the agent may change the project\'s code, on: {0}', where)}`)];
  }
  const lines = [permission === undefined
    ? field(l10n.t('Permission'), l10n.t('unchanged'))
    : field(l10n.t('Permission'), `read_only — ${l10n.t('the agent may only read the project')}`)];
  if (given) lines.push(field(l10n.t('Branches'), l10n.t('set to {0}', branchList(given))));
  return lines;
}

export interface StartSummary {
  appId: string;
  model: string;
  reasoningEffort: string;
  permission: string;
  permittedBranches?: readonly string[];
  prompt: string;
}

export function startConfirmation(s: StartSummary, l10n: L10n): Confirmation {
  return {
    title: s.permission === 'allow_edits'
      ? l10n.t('Start an agent run that may edit {0}?', oneLine(s.appId, 80))
      : l10n.t('Start an agent run on {0}?', oneLine(s.appId, 80)),
    message: [
      field(l10n.t('App'), code(s.appId)),
      field(l10n.t('Model'), code(s.model)),
      field(l10n.t('Reasoning effort'), code(s.reasoningEffort)),
      ...permissionLines(s.permission, s.permittedBranches, l10n),
      codeBlock(l10n.t('Prompt'), s.prompt, PROMPT_SHOWN, l10n),
    ].join('\n\n'),
  };
}

export interface CodeReviewSummary {
  appId: string;
  fromVersion: string;
  toVersion: string;
  title?: string;
  description?: string;
  focusAreas?: string;
  model?: string;
}

/** The app and the two versions first; the description, if any, last (a fenced block). */
export function codeReviewConfirmation(s: CodeReviewSummary, l10n: L10n): Confirmation {
  return {
    title: l10n.t('Start a code review of {0}, {1} → {2}?', oneLine(s.appId, 80), oneLine(s.fromVersion, 40), oneLine(s.toVersion, 40)),
    message: [
      field(l10n.t('App'), code(s.appId)),
      field(l10n.t('Source → target'), `${code(s.fromVersion)} → ${code(s.toVersion)}`),
      field(l10n.t('Model'), s.model !== undefined ? code(s.model) : l10n.t('the service\'s default')),
      ...(s.title !== undefined ? [field(l10n.t('Title'), code(s.title))] : []),
      ...(s.focusAreas !== undefined ? [field(l10n.t('Focus areas'), code(s.focusAreas, 300))] : []),
      ...(s.description !== undefined ? [codeBlock(l10n.t('Description'), s.description, PROMPT_SHOWN, l10n)] : []),
    ].join('\n\n'),
  };
}

export interface FollowUpSummary {
  agentId: string;
  /** The run's first prompt line or app, when the run is in the list. */
  runLabel?: string;
  prompt: string;
  permission?: string;
  permittedBranches?: readonly string[];
}

export function followUpConfirmation(s: FollowUpSummary, l10n: L10n): Confirmation {
  const label = s.runLabel && oneLine(s.runLabel, 80) !== '' ? ` — ${code(s.runLabel, 80)}` : '';
  return {
    title: l10n.t('Send a follow-up to run {0}?', oneLine(s.agentId, 40)),
    message: [
      field(l10n.t('Run'), `${code(s.agentId)}${label}`),
      ...permissionLines(s.permission, s.permittedBranches, l10n),
      codeBlock(l10n.t('Prompt'), s.prompt, PROMPT_SHOWN, l10n),
    ].join('\n\n'),
  };
}

export function testGroupConfirmation(s: { name: string; appId: string; testIds: readonly string[]; description?: string | null }, l10n: L10n): Confirmation {
  const shown = s.testIds.slice(0, 20).map((id) => code(id, 80)).join(', ');
  const more = s.testIds.length > 20 ? ` ${l10n.t('and {0} more', s.testIds.length - 20)}` : '';
  const lines = [field(l10n.t('App'), code(s.appId)), field(l10n.t('Name'), code(s.name, 200)), field(l10n.t('Tests'), `${shown}${more}`)];
  if (typeof s.description === 'string' && s.description.trim() !== '') lines.push(codeBlock(l10n.t('Description'), s.description, PROMPT_SHOWN, l10n));
  return {
    title: l10n.t('Create test group “{0}” with {1} tests?', oneLine(s.name, 60), s.testIds.length),
    message: lines.join('\n\n'),
  };
}

export interface TestRunSummary {
  testId: string;
  /** The test's name, as the service read it before the person is asked. */
  testName?: string;
  branch: string;
  appId?: string;
  /** Who the run signs in as (run/common/testUsers.ts's words), when the app's test users were read. */
  signsInAs?: string;
  /** Why the service will fail the run before it starts (its test user), when it will. */
  userProblem?: string;
}

/** The live app rather than a branch (the Test Explorer's rule). */
const isLive = (branch: string): boolean => branch.trim().toLowerCase() === 'live';

/** A test run: the test and the branch named; a live run said plainly, in the title too. */
export function testRunConfirmation(s: TestRunSummary, l10n: L10n): Confirmation {
  const what = s.testName !== undefined && oneLine(s.testName, 60) !== '' ? oneLine(s.testName, 60) : oneLine(s.testId, 60);
  const live = isLive(s.branch);
  const lines = [field(l10n.t('Test'), s.testName !== undefined ? `${code(s.testName, 200)} (${code(s.testId)})` : code(s.testId))];
  if (s.appId !== undefined) lines.push(field(l10n.t('App'), code(s.appId)));
  lines.push(live
    ? field(l10n.t('Branch'), `**${l10n.t('live')}** — ${l10n.t('the test runs against the live app, with its live test user')}`)
    : field(l10n.t('Branch'), code(s.branch, 250)));
  if (s.signsInAs !== undefined) lines.push(field(l10n.t('Signs in as'), code(s.signsInAs)));
  if (s.userProblem !== undefined) lines.push(`**${l10n.t('This run will fail before it starts')}**: ${code(s.userProblem, 300)}`);
  return {
    title: live ? l10n.t('Run test “{0}” on the LIVE app?', what) : l10n.t('Run test “{0}” on branch {1}?', what, oneLine(s.branch, 60)),
    message: lines.join('\n\n'),
  };
}

export interface AutomationRunSummary {
  automationId: string;
  name?: string;
  appId?: string;
  triggerKind?: string;
  actionKinds?: readonly string[];
}

/** An automation run now: what it is and, when listed, what it does in order. */
export function automationRunConfirmation(s: AutomationRunSummary, l10n: L10n): Confirmation {
  const what = s.name !== undefined && oneLine(s.name, 60) !== '' ? oneLine(s.name, 60) : oneLine(s.automationId, 60);
  const lines = [field(l10n.t('Automation'), s.name !== undefined ? `${code(s.name, 200)} (${code(s.automationId)})` : code(s.automationId))];
  if (s.appId !== undefined) lines.push(field(l10n.t('App'), code(s.appId)));
  if (s.triggerKind !== undefined) lines.push(field(l10n.t('Trigger'), code(s.triggerKind, 40)));
  if (s.actionKinds !== undefined && s.actionKinds.length > 0) {
    lines.push(field(l10n.t('Actions, in order'), s.actionKinds.slice(0, 10).map((a) => code(a, 40)).join(' → ')));
  }
  return { title: l10n.t('Run automation “{0}” now?', what), message: lines.join('\n\n') };
}
