/**
 * The page's user-facing strings: their keys, the schema an `init` carries them in, and
 * `format()` to fill their placeholders. Part of the panel protocol (protocol.ts re-exports
 * all but the schema, which only its `init` uses); no `vscode` import, no DOM use.
 */
import * as z from 'zod/mini';
import { MAX_STRING_CHARS, str } from './historyMessage';

/**
 * User-facing strings for the webview, localized on the extension side with `vscode.l10n`.
 * `{0}` placeholders are filled in by the webview with `format()`.
 */
export const STRING_KEYS = [
  'loading',
  'roleUser',
  'roleAssistant',
  'roleTool',
  'roleSystem',
  'roleThinking',
  'roleError',
  'roleUnknown',
  'thinkingSummary',
  'toolCall',
  'toolParameters',
  'noToolParameters',
  'attachments',
  'image',
  'emptyMessage',
  'messageActions',
  'copyMessage',
  'copyParameters',
  'openInEditor',
  'showFullMessage',
  'sequence',
  'statusQueued',
  'statusRunning',
  'statusCompleted',
  'statusError',
  'statusUnknown',
  'runTitle',
  'fieldApp',
  'fieldProject',
  'fieldModel',
  'fieldEffort',
  'fieldPermission',
  'fieldBranches',
  'fieldCreated',
  'fieldUpdated',
  'fieldCompleted',
  'fieldAgentId',
  'notSet',
  'permissionReadOnly',
  'permissionAllowEdits',
  'effortNone',
  'effortLow',
  'effortMedium',
  'effortHigh',
  'copyAgentId',
  'copied',
  'toolbarLabel',
  'refresh',
  'exportMarkdown',
  'exportJson',
  'cloneRun',
  'lastErrorTitle',
  'staleAsOf',
  'offlineAsOf',
  'earlierUnavailable',
  'missingMessages',
  'droppedMessages',
  'newSinceLastLooked',
  'lifecycleTitle',
  'laneConversation',
  'laneSandbox',
  'laneNotReported',
  'queuedTurns',
  'queuedTurn',
  'noQueuedTurns',
  'laneNow',
  'turnNumber',
  'headerDetails',
  'lastLifecycleEvent',
  'stalled',
  'stalledNoFollowUps',
  'transcriptLabel',
  'noMessages',
  'newMessages',
  'composerLabel',
  'composerPlaceholder',
  'composerHint',
  'send',
  'sending',
  'permissionLabel',
  'permissionKeep',
  'branchesLabel',
  'branchesPlaceholder',
  'sendFailed',
  'skipToComposer',
  'composerOptions',
  // The page for long runs: gaps, find, filters, jumps, the extension-owned send state.
  'gapMessages',
  'gapUnknown',
  'findLabel',
  'findPlaceholder',
  'findCount',
  'findNone',
  'findNext',
  'findPrevious',
  'findClose',
  'findOpen',
  'filtersLabel',
  'filterPrompts',
  'filterAgent',
  'filterTools',
  'filterErrors',
  'previousPrompt',
  'nextPrompt',
  'latestMessage',
  'navHint',
  'sendUncertain',
  'resend',
  'editFollowUp',
  // A conversation that takes no follow-ups (a code review's).
  'kindCodeReview',
  'noFollowUps',
  // The review above a code review's conversation (reviewView.ts).
  'reviewSection',
  'reviewTabs',
  'reviewChanges',
  'reviewComments',
  'reviewTests',
  'reviewThread',
  'reviewRefresh',
  'reviewVersions',
  'reviewRequestedBy',
  'reviewByAi',
  'reviewByPerson',
  'reviewDeleted',
  'reviewEdited',
  'reviewNone',
  'reviewMore',
  'reviewReadFailed',
] as const;
export type StringKey = (typeof STRING_KEYS)[number];
export type WebviewStrings = Record<StringKey, string>;

/** The strings as an `init` carries them: every key, each of bounded length. */
export const stringsSchema = z.object(
  Object.fromEntries(STRING_KEYS.map((k) => [k, str(MAX_STRING_CHARS)])) as Record<StringKey, ReturnType<typeof str>>,
);

/** Fill `{0}`, `{1}`… in a localized template. Unknown placeholders stay as they are. */
export function format(template: string, ...args: (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => {
    const v = args[Number(i)];
    return v === undefined ? m : String(v);
  });
}
