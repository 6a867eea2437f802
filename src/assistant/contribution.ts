/**
 * The language model tools and the `@agent-runs` chat participant, registered at activation
 * with final API only, their code loaded on first use. Where the editor has no `vscode.lm` or
 * `vscode.chat` (another host, an older build) nothing is registered and the rest still works.
 */
import * as vscode from 'vscode';
import { lazyBundle } from '../base/common/lazyBundle';
import type { Deps, TestGroupsAccess } from '../run/deps';
import { TOOL_NAMES, type ToolName } from './common/toolNames';
import type { FollowOptions } from './participant';
import type * as AssistantBundle from './bundle';

export const PARTICIPANT_ID = 'agentRuns.assistant';

/** The tools' and the participant's code (./bundle.ts): the first tool prepared or invoked, or the first `@agent-runs` request. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const assistantBundle = lazyBundle(() => require('./assistant.js') as typeof AssistantBundle);

type Input = Record<string, unknown>;

/** What the integration tests drive directly (see docs/TESTING.md: which parts go through the editor's API). */
export interface AssistantTestHooks {
  tool(name: ToolName): vscode.LanguageModelTool<Input> | undefined;
  handleChat(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, follow?: Partial<FollowOptions>): Promise<vscode.ChatResult>;
}

export function registerAssistant(context: vscode.ExtensionContext, deps: Deps, testGroups: TestGroupsAccess): AssistantTestHooks {
  let tools: ReturnType<typeof AssistantBundle.createTools> | undefined;
  const toolsNow = (): NonNullable<typeof tools> => (tools ??= assistantBundle().createTools(deps, testGroups));
  // Optional chaining: `vscode.lm` / `vscode.chat` may be missing where the editor has no chat.
  const lm = (vscode as Partial<typeof vscode>).lm;
  if (typeof lm?.registerTool === 'function') {
    for (const name of TOOL_NAMES) {
      context.subscriptions.push(lm.registerTool<Input>(name, {
        prepareInvocation: (options, token) => toolsNow().get(name)?.prepareInvocation?.(options, token),
        invoke: (options, token) => toolsNow().get(name)?.invoke(options, token),
      }));
    }
  }
  const handleChat: AssistantTestHooks['handleChat'] = (request, chatContext, stream, token, follow) => {
    const module = assistantBundle();
    return module.handleChat(deps, request, chatContext, stream, token, { ...module.DEFAULT_FOLLOW, ...follow });
  };
  const chat = (vscode as Partial<typeof vscode>).chat;
  if (typeof chat?.createChatParticipant === 'function') {
    const participant = chat.createChatParticipant(PARTICIPANT_ID, (request, chatContext, stream, token) => handleChat(request, chatContext, stream, token));
    participant.iconPath = new vscode.ThemeIcon('rocket');
    context.subscriptions.push(participant);
  }
  return { tool: (name) => toolsNow().get(name), handleChat };
}
