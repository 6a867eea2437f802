/**
 * What activate() returns: `getAPI(1)` (agent-runs.d.ts), loaded on first use. The test API is added
 * only with AGENT_RUNS_TEST_HOOKS=1 and dist/testHooks.js installed, which a person's install lacks,
 * so no other extension reaches it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Deps } from '../run/deps';
import type { AgentRunsApi, AgentRunsExtension } from './agent-runs';
import { lazyBundle } from '../base/common/lazyBundle';
import type * as Entry from './publicApi';

/** The API's code (./publicApi.ts): the first getAPI(1) call. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const publicApiBundle = lazyBundle(() => require('./publicApi.js') as typeof Entry);

export const TEST_HOOKS_ENV = 'AGENT_RUNS_TEST_HOOKS';

/** What the integration tests use instead of the person: the confirmations the API would show. */
export interface PublicApiTestHooks {
  /** `answer` decides every confirmation from now on (and sees it); undefined: the dialog again. */
  answerConfirmations(answer: ((c: Entry.Confirmation) => boolean) | undefined): void;
}

export function registerPublicApi(context: vscode.ExtensionContext, deps: Deps, texts: () => Entry.ConfirmationTexts): { exports: AgentRunsExtension; hooks: PublicApiTestHooks } {
  let answer: ((c: Entry.Confirmation) => boolean) | undefined;
  let v1: AgentRunsApi | undefined;
  const getAPI = (version: number): AgentRunsApi => {
    if (version !== 1) throw new Error(`Agent Runs has no API version ${String(version)}; it offers version 1.`);
    if (!v1) {
      const api = new (publicApiBundle().PublicApiV1)({ deps, texts, answer: () => answer });
      context.subscriptions.push(api);
      v1 = api;
    }
    return v1;
  };
  return { exports: { getAPI }, hooks: { answerConfirmations: (a) => { answer = a; } } };
}

/**
 * The exports of activate(): the test API beside getAPI only for the test harness (see above). It is
 * built on the harness's first read of it, so the bench's activation times what a person's does.
 */
export function activationExports(forAll: AgentRunsExtension, testApi: () => AgentRunsExtension): AgentRunsExtension {
  if (process.env[TEST_HOOKS_ENV] !== '1' || !fs.existsSync(path.join(__dirname, 'testHooks.js'))) return forAll;
  let built: AgentRunsExtension | undefined;
  return new Proxy(forAll, {
    // `then`: the extension host asks whether the exports are a promise; they are not.
    get: (target, key): unknown => (key in target || typeof key !== 'string' || key === 'then' ? Reflect.get(target, key) : Reflect.get(built ??= testApi(), key)),
  });
}
