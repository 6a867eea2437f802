import type * as PanelEntry from './entry';

/** The run panel bundle (`dist/panel.js`): `src/panel/host/entry.ts`. */
export type PanelModule = typeof PanelEntry;

let loaded: PanelModule | undefined;

/**
 * The run panel (panel manager, webview protocol with zod/mini, exports) is its own bundle,
 * dist/panel.js, loaded the first time a panel is opened or restored.
 * Like `loadApi`: esbuild leaves this require alone (see esbuild.js).
 */
export function loadPanel(): PanelModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./panel.js') as PanelModule;
  return loaded;
}
