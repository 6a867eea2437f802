/**
 * The labels of a run export (the Markdown headings, table rows and notices) and the options
 * every export takes. Pure: no `vscode`, no DOM; the panel passes the localized labels in.
 */
import type { L10n } from '../../../base/common/l10n';

/** Labels for the Markdown export; the panel passes localized ones. */
export interface ExportLabels {
  title: string;
  status: string;
  app: string;
  project: string;
  model: string;
  effort: string;
  permission: string;
  branches: string;
  created: string;
  updated: string;
  completed: string;
  agentId: string;
  lastError: string;
  lifecycle: string;
  conversationState: string;
  sandboxState: string;
  queuedTurns: string;
  transcript: string;
  toolCall: string;
  attachments: string;
  earlierUnavailable: string;
  /** Shown where messages are missing, before the message after the gap. */
  gap: string;
  dropped: string;
  pruned: string;
  noMessages: string;
  exportedAt: string;
}

export const DEFAULT_EXPORT_LABELS: ExportLabels = {
  title: 'Agent run {0}',
  status: 'Status',
  app: 'App ID',
  project: 'Project',
  model: 'Model',
  effort: 'Reasoning effort',
  permission: 'Permission',
  branches: 'Permitted branches',
  created: 'Created',
  updated: 'Updated',
  completed: 'Completed',
  agentId: 'Agent ID',
  lastError: 'Last error',
  lifecycle: 'Lifecycle',
  conversationState: 'Conversation state',
  sandboxState: 'Sandbox state',
  queuedTurns: 'Queued turns',
  transcript: 'Transcript',
  toolCall: 'Tool call',
  attachments: 'Attachments',
  earlierUnavailable: 'Earlier messages were no longer available from the service; about {0} are missing.',
  gap: 'About {0} messages here are no longer available from the service.',
  dropped: '{0} older messages were dropped from the local cache.',
  pruned: 'The saved transcript was pruned on {0} to stay under the disk limit for saved transcripts (agentRuns.transcripts.maxDiskMB).',
  noMessages: 'No messages.',
  exportedAt: 'Exported {0}',
};

/** The labels in the editor's language. */
export function exportLabels(l10n: L10n): ExportLabels {
  const P = '{0}';
  return {
    title: l10n.t('Agent run {0}', P),
    status: l10n.t('Status'),
    app: l10n.t('App ID'),
    project: l10n.t('Project'),
    model: l10n.t('Model'),
    effort: l10n.t('Reasoning effort'),
    permission: l10n.t('Permission'),
    branches: l10n.t('Permitted branches'),
    created: l10n.t('Created'),
    updated: l10n.t('Updated'),
    completed: l10n.t('Completed'),
    agentId: l10n.t('Agent ID'),
    lastError: l10n.t('Last error'),
    lifecycle: l10n.t('Lifecycle'),
    conversationState: l10n.t('Conversation state'),
    sandboxState: l10n.t('Sandbox state'),
    queuedTurns: l10n.t('Queued turns'),
    transcript: l10n.t('Transcript'),
    toolCall: l10n.t('Tool call'),
    attachments: l10n.t('Attachments'),
    earlierUnavailable: l10n.t('Earlier messages were no longer available from the service; about {0} are missing.', P),
    gap: l10n.t('About {0} messages here are no longer available from the service.', P),
    dropped: l10n.t('{0} older messages were dropped from the local cache.', P),
    pruned: l10n.t('The saved transcript was pruned on {0} to stay under the disk limit for saved transcripts (agentRuns.transcripts.maxDiskMB).', P),
    noMessages: l10n.t('No messages.'),
    exportedAt: l10n.t('Exported {0}', P),
  };
}

export interface ExportOptions {
  labels?: Partial<ExportLabels>;
  /** Export time (Unix ms); defaults to now. */
  now?: number;
}
