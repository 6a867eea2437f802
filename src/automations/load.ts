import type * as AutomationsEntry from './entry';

/** The automations bundle (`dist/automations.js`): `src/automations/entry.ts`. */
export type AutomationsModule = typeof AutomationsEntry;

let loaded: AutomationsModule | undefined;

/** Loaded when the Runs view first shows an "Automations" row or Run Now first runs. Like `loadApi`: esbuild leaves this require alone. */
export function loadAutomations(): AutomationsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./automations.js') as AutomationsModule;
  return loaded;
}
