/** How a feature describes its own tests' failures to "Ask Agent to Fix" (src/testing), which asks the set it keeps. */
import type * as vscode from 'vscode';
import type { FailedTest } from './common/fixPrompt';

/**
 * Items whose failure another feature describes itself ("Ask Agent to Fix" of a service test:
 * its failed steps and comments): the first describer that knows the item answers, with the
 * item the agent run is linked to. Features add theirs to the set
 * registerTesting (src/testing/register.ts) returns.
 */
export type FailureDescriber = (item: vscode.TestItem) => { failed: FailedTest; linkTo: vscode.TestItem } | undefined;
export type FailureDescribers = Set<FailureDescriber>;
