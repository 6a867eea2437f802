/**
 * What every language model tool shares: input checked against its schema and src/api's request
 * checks before anything is sent, a confirmation showing what is sent, failures as "Not done: …".
 */
import * as vscode from 'vscode';
import type { Deps } from '../run/deps';
import type { Confirmation } from './common/prompts';
import { checkToolInput, type ToolName } from './common/schemas';
import { Refusal, failureText, signalOf } from './common';

export type Input = Record<string, unknown>;

export function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

export function prepared(c: Confirmation, invocation: string): vscode.PreparedToolInvocation {
  return { invocationMessage: invocation, confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) } };
}

/** The shared shape: check → (confirm) → run; every failure becomes text. */
export abstract class AgentRunsTool<T> implements vscode.LanguageModelTool<Input> {
  constructor(protected readonly deps: Deps, readonly name: ToolName) {}

  /**
   * Schema and request checks; throws a worded error. Called by both `prepareInvocation` and
   * `invoke`, so whatever it refuses is never put before the person. Reads only (a start reads
   * the served model list); `signal` follows the caller's cancellation.
   */
  protected abstract check(input: Input, signal: AbortSignal): Promise<T> | T;
  protected abstract confirm(checked: T): vscode.PreparedToolInvocation;
  protected abstract run(checked: T, signal: AbortSignal): Promise<string>;

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation> {
    const abort = signalOf(token);
    let checked: T;
    try {
      checked = await this.check(checkToolInput(this.name, options.input), abort.signal);
    } catch {
      // Nothing will be sent: `invoke` answers with the reason; the person is not asked.
      return { invocationMessage: vscode.l10n.t('Checking the input') };
    } finally {
      abort.dispose();
    }
    return this.confirm(checked);
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const abort = signalOf(token);
    try {
      const checked = await this.check(checkToolInput(this.name, options.input), abort.signal);
      return text(await this.run(checked, abort.signal));
    } catch (e) {
      return text(vscode.l10n.t('Not done: {0}', failureText(this.deps, e)));
    } finally {
      abort.dispose();
    }
  }

  /** A `validate*` call whose ApiError (invalid_input) becomes a plain refusal. */
  protected validated<R>(fn: () => R): R {
    try {
      return fn();
    } catch (e) {
      const api = this.deps.api();
      if (api.isApiError(e)) throw new Refusal(api.describeApiError(e));
      throw e;
    }
  }
}
