import type * as TestGroupsEntry from './entry';

/** The test-group scanning bundle (`dist/testGroups.js`): `src/testGroups/entry.ts`. */
export type TestGroupsModule = typeof TestGroupsEntry;

let loaded: TestGroupsModule | undefined;

/**
 * Scanning test files for test IDs, creating test groups and starting runs about tests
 * (`src/testGroups/**` but the view, store and context keys, plus `src/base/common/testIds` but the globs)
 * are their own bundle, dist/testGroups.js, loaded on the first such command.
 * Like `loadApi`: esbuild leaves this require alone (see esbuild.js).
 */
export function loadTestGroups(): TestGroupsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./testGroups.js') as TestGroupsModule;
  return loaded;
}
