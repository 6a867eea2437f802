/**
 * The localized strings the webview shows and the labels of exported files. Every
 * user-facing word of the panel goes through `vscode.l10n.t` here; the webview receives the
 * result in its `init` message. `{0}` stays a placeholder the webview fills in: it is passed
 * back to `l10n.t` as its own argument so translators see (and may move) it.
 */
import * as vscode from 'vscode';
import { exportLabels as labelsIn, type ExportLabels } from '../core/panel/export';
import type { WebviewStrings } from '../core/panel/protocol';
import { noFollowUpsText } from '../core/runs/refusals';

const P = '{0}';

export function webviewStrings(isMac: boolean): WebviewStrings {
  const t = vscode.l10n.t;
  return {
    loading: t('Loading run…'),
    roleUser: t('You'),
    roleAssistant: t('Agent'),
    roleTool: t('Tool'),
    roleSystem: t('System'),
    roleUnknown: t('Unknown role'),
    toolCall: t('Tool call'),
    toolParameters: t('Parameters'),
    noToolParameters: t('No parameters'),
    attachments: t('Attachments'),
    image: t('Image: {0}', P),
    emptyMessage: t('(empty message)'),
    messageActions: t('Message actions'),
    copyMessage: t('Copy'),
    copyParameters: t('Copy parameters'),
    openInEditor: t('Open in editor'),
    showFullMessage: t('Show the full message ({0} characters) in an editor', P),
    sequence: t('#{0}', P),
    statusQueued: t('Queued'),
    statusRunning: t('Running'),
    statusCompleted: t('Completed'),
    statusError: t('Error'),
    statusUnknown: t('Unknown status'),
    runTitle: t('Run {0}', P),
    fieldApp: t('App ID'),
    fieldProject: t('Project'),
    fieldModel: t('Model'),
    fieldEffort: t('Reasoning effort'),
    fieldPermission: t('Permission'),
    fieldBranches: t('Permitted branches'),
    fieldCreated: t('Created'),
    fieldUpdated: t('Updated'),
    fieldCompleted: t('Completed'),
    fieldAgentId: t('Agent ID'),
    notSet: t('Not set'),
    permissionReadOnly: t('Read only'),
    permissionAllowEdits: t('Allow edits'),
    effortNone: t('None'),
    effortLow: t('Low'),
    effortMedium: t('Medium'),
    effortHigh: t('High'),
    copyAgentId: t('Copy agent ID'),
    copied: t('Copied to the clipboard'),
    toolbarLabel: t('Run actions'),
    refresh: t('Refresh'),
    exportMarkdown: t('Export as Markdown'),
    exportJson: t('Export as JSON'),
    cloneRun: t('Clone run'),
    lastErrorTitle: t('The run reported an error'),
    staleAsOf: t('Could not reach the service; showing the state as of {0}.', P),
    offlineAsOf: t('Offline; showing the state as of {0}.', P),
    earlierUnavailable: t('Earlier messages are no longer available from the service.'),
    missingMessages: t('About {0} messages are missing.', P),
    droppedMessages: t('{0} older messages were dropped from this view to save memory; export the run to keep it.', P),
    newSinceLastLooked: t('New since you last looked'),
    lifecycleTitle: t('Lifecycle'),
    laneConversation: t('Conversation'),
    laneSandbox: t('Sandbox'),
    laneNotReported: t('Not reported yet'),
    queuedTurns: t('{0} follow-ups queued', P),
    // Exactly one: l10n has no plural rules, so the singular is a message of its own.
    queuedTurn: t('{0} follow-up queued', P),
    noQueuedTurns: t('No follow-ups queued'),
    lastLifecycleEvent: t('Last lifecycle event {0}', P),
    stalled: t('No activity for {0}. The run may be stuck; refresh, or send a follow-up.', P),
    transcriptLabel: t('Transcript'),
    noMessages: t('No messages yet.'),
    newMessages: t('{0} new ↓', P),
    composerLabel: t('Follow-up prompt'),
    composerPlaceholder: t('Ask a follow-up…'),
    composerHint: isMac ? t('⌘+Enter to send') : t('Ctrl+Enter to send'),
    send: t('Send'),
    sending: t('Sending…'),
    permissionLabel: t('Permission'),
    permissionKeep: t('Keep current'),
    branchesLabel: t('Permitted branches'),
    branchesPlaceholder: t('Keep current (comma-separated to change)'),
    sendFailed: t('Not sent: {0}', P),
    skipToComposer: t('Skip to the follow-up box'),
    composerOptions: t('Permission and branches'),
    gapMessages: t('About {0} earlier messages are no longer available from the service.', P),
    gapUnknown: t('Some earlier messages are no longer available from the service.'),
    findLabel: t('Find in transcript'),
    findPlaceholder: t('Find'),
    findCount: t('{0} of {1}', P, '{1}'),
    findNone: t('No results'),
    findNext: t('Next match (Enter)'),
    findPrevious: t('Previous match (Shift+Enter)'),
    findClose: t('Close (Escape)'),
    findOpen: isMac ? t('Find (⌘+F)') : t('Find (Ctrl+F)'),
    filtersLabel: t('Show only'),
    filterPrompts: t('Prompts'),
    filterAgent: t('Agent'),
    filterTools: t('Tool calls'),
    filterErrors: t('Errors'),
    previousPrompt: t('Previous prompt (Alt+Up)'),
    nextPrompt: t('Next prompt (Alt+Down)'),
    latestMessage: isMac ? t('Latest message (⌘+End)') : t('Latest message (Ctrl+End)'),
    navHint: isMac
      ? t('⌘+F find · Alt+↑/↓ previous/next prompt · ⌘+End latest message')
      : t('Ctrl+F find · Alt+↑/↓ previous/next prompt · Ctrl+End latest message'),
    sendUncertain: t("This follow-up may already have reached the service; checking the run's history…"),
    resend: t('Resend'),
    editFollowUp: t('Edit'),
    kindCodeReview: t('Code review'),
    noFollowUps: noFollowUpsText(vscode.l10n),
  };
}

export function exportLabels(): ExportLabels {
  return labelsIn(vscode.l10n);
}
