/**
 * The extension's own commands that one feature runs for another, with their arguments (see
 * src/connection/ownCommands.ts, which runs them). Pure: the unit test reads the list.
 */
import type { TestItemsArgument } from './testItems';

export interface OwnCommandArgs {
  'agentRuns.setBaseUrl': [];
  'agentRuns.setToken': [];
  /** Asks for an ID. */
  'agentRuns.trackRun': [];
  'agentRuns.openRun': [agentId: string];
  'agentRuns.sendFollowUp': [agentId: string];
  'agentRuns.cloneRun': [agentId: string];
  'agentRuns.exportRun': [agentId: string, format: 'markdown' | 'json'];
  'agentRuns.testGroups.create': [items: TestItemsArgument];
  /** The Test Groups view (the command VS Code makes for every view). */
  'agentRuns.testGroups.focus': [];
  /** The Runs view, likewise. */
  'agentRuns.runs.focus': [];
  /** A service test group run from the Test Explorer (src/serviceTests), its branch picked there. */
  'agentRuns.serviceTests.runGroup': [group: { groupId: string; appId?: string; name?: string }];
  /** The Runs view's code review rows of an app read again (a review was tracked by ID). */
  'agentRuns.refreshCodeReviews': [app: { appId: string }];
}

export type OwnCommand = keyof OwnCommandArgs;

/** Every command of `OwnCommandArgs` (the unit test checks each against package.json). */
export const OWN_COMMANDS: readonly OwnCommand[] = [
  'agentRuns.setBaseUrl', 'agentRuns.setToken', 'agentRuns.trackRun', 'agentRuns.openRun', 'agentRuns.sendFollowUp',
  'agentRuns.cloneRun', 'agentRuns.exportRun', 'agentRuns.testGroups.create', 'agentRuns.testGroups.focus', 'agentRuns.runs.focus',
  'agentRuns.serviceTests.runGroup', 'agentRuns.refreshCodeReviews',
] satisfies readonly OwnCommand[];
