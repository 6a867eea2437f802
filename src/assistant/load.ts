import type * as AssistantEntry from './entry';

/** The assistant bundle (`dist/assistant.js`): `src/assistant/entry.ts`. */
export type AssistantModule = typeof AssistantEntry;

let loaded: AssistantModule | undefined;

/**
 * The tools' and the participant's code is its own bundle, loaded the first time a tool is
 * prepared or invoked or `@agent-runs` is asked something. Like `loadApi`: esbuild leaves this
 * require alone (see esbuild.js) and it resolves next to dist/extension.js.
 */
export function loadAssistant(): AssistantModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./assistant.js') as AssistantModule;
  return loaded;
}
