import type * as TestingEntry from './entry';

/** The Test Explorer bundle (`dist/testing.js`): `src/testing/entry.ts`. */
export type TestingModule = typeof TestingEntry;

let loaded: TestingModule | undefined;

/** Loaded the first time "Ask Agent to Fix" runs. Like `loadApi`: esbuild leaves this require alone. */
export function loadTesting(): TestingModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./testing.js') as TestingModule;
  return loaded;
}
