/**
 * The tool that starts a code review: strict schema, src/api/validateReviews.ts's checks, a
 * confirmation naming the app and both versions, one POST through the sender. It asks the
 * service's schema itself before sending; a possible start is listed, never sent again.
 */
import * as vscode from 'vscode';
import type { StartCodeReviewRequest } from '../api/reviewTypes';
import { servesPath } from '../api/types';
import { codeReviewConfirmation } from './common/prompts';
import { TOOL_READ } from './common/schemas';
import { startConflict } from '../run/common/refusals';
import { Refusal, clientOrRefuse, failureText, notConnectedText } from './common';
import { AgentRunsTool, prepared, type Input } from './toolBase';

export class StartCodeReviewTool extends AgentRunsTool<StartCodeReviewRequest> {
  protected async check(input: Input, signal: AbortSignal): Promise<StartCodeReviewRequest> {
    const api = this.deps.api();
    // Local checks first: input refused for itself costs no request.
    this.validated(() => api.validateStartCodeReviewRequest(input));
    const client = await clientOrRefuse(this.deps);
    const schema = await client.getSchemaInfo({ signal }).catch(() => undefined);
    if (signal.aborted) throw new vscode.CancellationError();
    if (!schema) throw new Refusal(vscode.l10n.t('the service\'s API schema (/openapi.json) could not be read, so it is not known whether it offers code reviews; nothing was sent.'));
    if (!servesPath(schema, '/code-reviews')) throw new Refusal(vscode.l10n.t('this service does not offer code reviews: its API schema (/openapi.json) lists no /code-reviews endpoint. Nothing was sent.'));
    return this.validated(() => api.validateStartCodeReviewRequest(input, { knownModels: schema.models }));
  }

  protected confirm(r: StartCodeReviewRequest): vscode.PreparedToolInvocation {
    return prepared(codeReviewConfirmation(r, vscode.l10n), vscode.l10n.t('Starting a code review on {0}', r.appId));
  }

  protected async run(request: StartCodeReviewRequest, signal: AbortSignal): Promise<string> {
    const result = await this.deps.sender.startCodeReview(request, { from: 'language model tool', signal, client: await clientOrRefuse(this.deps), quiet: true });
    if (result.kind === 'notConnected') throw new Refusal(notConnectedText(this.deps));
    if (result.kind === 'failed') {
      if (!result.mayHaveArrived) {
        const conflict = startConflict(result.error, vscode.l10n);
        throw conflict !== undefined ? new Refusal(conflict) : result.error;
      }
      // Listed as "may have started" in the Runs view: the model must not start it again.
      return vscode.l10n.t('Not done: {0} The code review may have started anyway. Do not start it again: the Agent Runs view shows it as “may have started”, and the person can track it by ID once it is known.', failureText(this.deps, result.error));
    }
    const { review } = result;
    return vscode.l10n.t('Started code review {0} (“{1}”) on {2}, {3} → {4}; its conversation {5} is {6}. It is listed in the Agent Runs view. Read its progress with the {7} tool (agent ID {5}).',
      review.reviewId, result.prompt, request.appId, request.fromVersion, request.toVersion, review.agentId, review.status, TOOL_READ);
  }
}
