/**
 * A row of the Runs view as plain data (a run, a code review, an automation): its app row, label,
 * description, icon and tooltip lines; runsTree.ts and the features' rows make TreeItems of it.
 */
import { oneLine } from '../../api/sanitize';
import type { L10n } from '../../base/common/l10n';

/** The app row another feature's rows sit under (runs/common/nodes.ts `AppNode`). */
export interface AppRef {
  readonly key: string;
}

export const LABEL_MAX = 60;

/** Longest server-provided value kept in a tooltip row or warning. */
const DETAIL_MAX = 500;

/**
 * Service-provided text for one line of the UI. Control and bidi characters are dropped (an
 * RTL override could make `fdp.exe` read as `exe.pdf`), whitespace collapsed, length capped.
 */
export function plain(text: string, max = DETAIL_MAX): string {
  return oneLine(text, max);
}

export interface IconSpec {
  /** Codicon id, with `~spin` where it spins. */
  id: string;
  /** A theme color id, when the icon is tinted. */
  color?: string;
}

export interface RowPresentation {
  label: string;
  description: string;
  icon: IconSpec;
  contextValue: string;
  /** Tooltip rows as [label, value]; values are plain text (escaped by the caller). */
  details: Array<[string, string]>;
  /** Problems worth a line of their own under the details. */
  warnings: string[];
}

/** A run's status in words (the service's own word when it is one this does not know, made plain). */
export function statusText(status: string, l10n: L10n): string {
  switch (status) {
    case 'queued':
      return l10n.t('queued');
    case 'running':
      return l10n.t('running');
    case 'completed':
      return l10n.t('completed');
    case 'error':
      return l10n.t('failed');
    default:
      // An unknown status is shown as the service sent it, made plain.
      return plain(status, 40);
  }
}
