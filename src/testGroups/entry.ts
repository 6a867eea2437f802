/**
 * Test-file scanning and what is built on it, as its own bundle (`dist/testGroups.js`):
 * reading files, test-ID extraction (`src/core/testIds`, with its worker), the create-group
 * flow and the runs about tests. Loaded on the first such command, or when the test-ID
 * pattern setting changes (see `src/testGroups/load.ts`).
 *
 * The store, the tree view and the context keys stay in dist/extension.js; the live store and
 * `deps` come in as parameters, so nothing stateful exists twice.
 */
import type { Deps } from '../runs/deps';
import { CreateTestGroupFlow } from './createGroup';
import type { TestGroupStore } from '../core/testGroups/store';

export { checkPatternSetting } from './scan';
export { startRunForFiles, startRunForGroup } from './startRun';
export { scanFilesQuietly } from './testItems';

/** The "Create Test Group from File(s)" flow; one per store, it keeps unfinished inputs. */
export function createTestGroupFlow(deps: Deps, store: TestGroupStore): CreateTestGroupFlow {
  return new CreateTestGroupFlow(deps, store);
}
