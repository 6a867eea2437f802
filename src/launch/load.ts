import type * as LaunchEntry from './entry';

/** The launch flow bundle (`dist/launch.js`): `src/launch/entry.ts`. */
export type LaunchModule = typeof LaunchEntry;

let loaded: LaunchModule | undefined;

/**
 * The start-run flow (`src/launch/**`) is its own bundle, dist/launch.js, loaded the first
 * time a start-run command runs. Like `loadApi`: esbuild leaves this require alone (see
 * esbuild.js) and it resolves next to dist/extension.js.
 */
export function loadLaunch(): LaunchModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./launch.js') as LaunchModule;
  return loaded;
}
