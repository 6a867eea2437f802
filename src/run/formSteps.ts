// What both start forms (a run's, a code review's) share as multi-step quick inputs: the outcomes, the chrome a field step needs, the webhook and email steps.
import * as vscode from 'vscode';
import { checkEmail, checkWebhookUrl } from './common/startFields';
import { showInput, type InputOptions, type StepButton, type StepResult } from '../base/quickInput';

const l10n = vscode.l10n;

/** Where a step leaves its form; `Step` is the form's own steps, which only its review step opens. */
export type StepOutcome<Step = never> =
  | { kind: 'discard' }
  | { kind: 'next' }
  | { kind: 'back' }
  | { kind: 'cancel' }
  | { kind: 'open'; step: Step }
  | { kind: 'compose' }
  | { kind: 'submit' }
  | { kind: 'stay' };

/** What a step that edits one text field needs of its flow: the chrome, and the form's field (`K`). */
export interface FieldHost<K extends string> {
  readonly form: Record<K, string>;
  /** `agentRuns.userEmail` or git's, once known. */
  readonly email: string | undefined;
  common(label: string, own?: StepButton[]): { title: string; step: number; totalSteps: number; canGoBack: boolean; buttons: StepButton[] };
  /** Back, Escape and Discard, the same on every step; undefined for anything else. */
  plain<T>(r: StepResult<T>): StepOutcome | undefined;
}

export interface ValueItem<T> extends vscode.QuickPickItem { value: T }

export function separator<T extends vscode.QuickPickItem>(label: string): T {
  return { label, kind: vscode.QuickPickItemKind.Separator } as T;
}

/** One typed value: the input box, the accepted text stored with `set`. */
export async function inputValue(host: Pick<FieldHost<never>, 'plain'>, options: InputOptions, set: (value: string) => void): Promise<StepOutcome> {
  const r = await showInput(options);
  const plain = host.plain(r);
  if (plain) return plain;
  if (r.kind !== 'accept') return { kind: 'stay' };
  set(r.value);
  return { kind: 'next' };
}

export async function webhookStep(host: FieldHost<'completionWebhookUrl'>): Promise<StepOutcome> {
  return inputValue(host, {
    ...host.common(l10n.t('Completion webhook URL')),
    value: host.form.completionWebhookUrl,
    prompt: l10n.t('The service sends one POST to this URL when the run ends. Leave empty for none.'),
    placeholder: 'https://hooks.example.com/agent-done',
    validate: (v) => checkWebhookUrl(v, l10n),
  }, (v) => {
    host.form.completionWebhookUrl = v.trim();
  });
}

export async function emailStep(host: FieldHost<'userEmail'>): Promise<StepOutcome> {
  return inputValue(host, {
    ...host.common(l10n.t('User email')),
    value: host.form.userEmail,
    prompt: l10n.t('Email of the workspace member whose provider credentials a connected-provider model uses. Leave empty to send one only when the model needs it (agentRuns.userEmail or git\'s user.email).'),
    placeholder: host.email ?? 'you@example.com',
    validate: (v) => checkEmail(v, l10n),
  }, (v) => {
    host.form.userEmail = v.trim();
  });
}
