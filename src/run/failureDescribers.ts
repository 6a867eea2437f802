/** How a feature describes its own tests' failures to "Ask Agent to Fix" (src/testing), which asks the set it keeps. */
import type * as vscode from 'vscode';
import type { FailedTest } from './common/fixPrompt';

/**
 * Items whose failure another feature describes itself (a service test's failed steps): the first
 * describer that knows the item answers, with the item the run is linked to.
 */
export type FailureDescriber = (item: vscode.TestItem) => { failed: FailedTest; linkTo: vscode.TestItem } | undefined;
export type FailureDescribers = Set<FailureDescriber>;
