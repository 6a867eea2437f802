/**
 * How an app's automations look in the Runs view (service-api-wider.md §6), as plain data: each
 * automation's label, description, icon, context value and tooltip lines. No `vscode` import
 * (unit-tested in plain mocha); src/automations/rows.ts turns it into TreeItems.
 */
import type { Automation, AutomationAction, AutomationTrigger } from '../../api/testTypes';
import type { L10n } from '../../base/common/l10n';
import { LABEL_MAX, plain, type RowPresentation } from '../../runs/common/presentation';
import { formatAge, formatTimestamp } from '../../base/common/time';

/** The words for a trigger kind; one the service added later is shown as it sent it. */
export function triggerText(kind: AutomationTrigger | undefined, l10n: L10n): string {
  switch (kind) {
    case undefined:
      return l10n.t('no trigger given');
    case 'manual':
      return l10n.t('manual');
    case 'live_deployed':
      return l10n.t('when live is deployed');
    case 'branch_merged':
      return l10n.t('when a branch is merged');
    case 'branch_created':
      return l10n.t('when a branch is created');
    case 'branch_removed':
      return l10n.t('when a branch is removed');
    case 'cron':
      return l10n.t('on a schedule');
    default:
      return plain(kind);
  }
}

/** The words for an action kind; one the service added later is shown as it sent it. */
export function actionText(kind: AutomationAction, l10n: L10n): string {
  switch (kind) {
    case 'run_tests':
      return l10n.t('run tests');
    case 'deploy_agent':
      return l10n.t('deploy agent');
    case 'send_message':
      return l10n.t('send message');
    case 'send_webhook':
      return l10n.t('send webhook');
    default:
      return plain(kind);
  }
}

/** The trigger: its kind in words, and the service's own description when it gave one. */
export function triggerLine(a: Automation, l10n: L10n): string {
  const kind = triggerText(a.triggerKind, l10n);
  const description = plain(a.triggerDescription ?? '');
  return description === '' ? kind : l10n.t('{0} ({1})', kind, description);
}

/** The actions in the order the service runs them, "a → b → c". */
export function actionsLine(a: Automation, l10n: L10n): string {
  return a.actionKinds.length === 0 ? l10n.t('no actions') : a.actionKinds.map((k) => actionText(k, l10n)).join(' → ');
}

/** Whether Run Now is offered for it (the capability key is the menu's `when`). */
export function canRunNow(a: Automation): boolean {
  return a.canRunManually;
}

/** The row of one automation. */
export function presentAutomation(a: Automation, now: number, l10n: L10n): RowPresentation {
  const label = plain(a.name ?? '', LABEL_MAX) || l10n.t('Automation {0}', plain(a.id, LABEL_MAX));
  const error = plain(a.lastRunError ?? '');
  const lastRun = a.lastRunAt === undefined ? l10n.t('never run') : l10n.t('last run {0}', formatAge(a.lastRunAt, now, l10n));
  const description = [a.enabled ? '' : l10n.t('disabled'), triggerText(a.triggerKind, l10n), lastRun].filter((p) => p !== '').join(' · ');
  const details: Array<[string, string]> = [
    [l10n.t('Trigger'), triggerLine(a, l10n)],
    [l10n.t('Actions'), actionsLine(a, l10n)],
    [l10n.t('Enabled'), a.enabled ? l10n.t('yes') : l10n.t('no')],
    [l10n.t('Last run'), a.lastRunAt === undefined ? l10n.t('never') : `${formatTimestamp(a.lastRunAt)} (${formatAge(a.lastRunAt, now, l10n)})`],
  ];
  if (a.createdByName) {
    details.push([l10n.t('Created by'), plain(a.createdByName)]);
  }
  details.push([l10n.t('Automation ID'), plain(a.id)]);
  const icon = error !== ''
    ? { id: 'warning', color: 'problemsWarningIcon.foreground' }
    : { id: a.enabled ? 'zap' : 'circle-slash' };
  return {
    label,
    description,
    icon,
    contextValue: `automation;${a.enabled ? 'enabled' : 'disabled'};${canRunNow(a) ? 'manual;' : ''}`,
    details,
    warnings: error === '' ? [] : [l10n.t('The last run failed: {0}', error)],
  };
}

/** The "Automations" row's description: how many, and how many are enabled. */
export function automationsDescription(list: readonly Automation[], l10n: L10n): string {
  const enabled = list.filter((a) => a.enabled).length;
  return list.length === 1
    ? (enabled === 1 ? l10n.t('1, enabled') : l10n.t('1, disabled'))
    : l10n.t('{0}, {1} enabled', list.length, enabled);
}
