import type * as HistoryWindowModule from './common/polling/historyWindow';

let loaded: typeof HistoryWindowModule | undefined;

/**
 * The history windows (src/run/common/polling/historyWindow.ts) are their own bundle, dist/windows.js,
 * loaded on the first read of a run: activation does not carry them. Like `loadApi`: esbuild
 * leaves this require alone (see esbuild.js) and it resolves next to dist/extension.js.
 */
export function loadHistoryWindows(): typeof HistoryWindowModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./windows.js') as typeof HistoryWindowModule;
  return loaded;
}
