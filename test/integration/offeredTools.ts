// The language model tools the editor offers a model, as the integration tests read them.
// VS Code 1.100's `vscode.lm.tools` lists only the tools whose package.json `when` holds.
// VS Code 1.139's lists every registered tool, one whose `when` is false too: the workbench
// gives extensions `getAllToolsIncludingDisabled()` and applies `when` itself as it builds a
// chat request, which nothing in the extension host sees. There, a listed tool counts as
// offered when its `when` holds; the manifest's tool `when`s are capability keys
// (`agentRuns.codeReviews`, `agentRuns.serviceTests`, …), which the extension reports
// (`api.codeReviews()`, `api.capability(…)`, set with the context keys).
import * as vscode from 'vscode';
import { CAPABILITIES, contextKeyOf } from '../../src/connection/common/capabilities';
import type { AgentRunsTestApi } from '../../src/extension';

interface ToolContribution {
  name: string;
  when?: string;
}

/** Whether this editor's `vscode.lm.tools` leaves `when` to the chat (VS Code after 1.100). */
export function lmToolsListsDisabled(): boolean {
  const minor = Number(/^1\.(\d+)\./.exec(vscode.version)?.[1]);
  return minor > 100;
}

/** The names of our tools the editor offers now, sorted. */
export function offeredTools(api: AgentRunsTestApi, extension: vscode.Extension<unknown>): string[] {
  const manifest = extension.packageJSON as { contributes: { languageModelTools: ToolContribution[] } };
  const when = new Map(manifest.contributes.languageModelTools.map((t) => [t.name, t.when]));
  const holds = (name: string): boolean => {
    const clause = when.get(name);
    if (clause === undefined) return true;
    if (clause === 'agentRuns.codeReviews') return api.codeReviews();
    // The other clauses are single capability keys (connection/common/capabilities.ts), reported by the extension.
    const capability = CAPABILITIES.find((c) => contextKeyOf(c) === clause);
    if (capability !== undefined) return api.capability(capability);
    throw new Error(`offeredTools cannot evaluate the when clause "${clause}" of ${name}`);
  };
  const listed = vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('agentRuns_'));
  return (lmToolsListsDisabled() ? listed.filter(holds) : listed).sort();
}
