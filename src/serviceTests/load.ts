import type * as ServiceTestsEntry from './entry';

/** The service tests bundle (`dist/serviceTests.js`): `src/serviceTests/entry.ts`. */
export type ServiceTestsModule = typeof ServiceTestsEntry;

let loaded: ServiceTestsModule | undefined;

/** Loaded when the service offers its tests (`agentRuns.serviceTests`). Like `loadApi`: esbuild leaves this require alone. */
export function loadServiceTests(): ServiceTestsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./serviceTests.js') as ServiceTestsModule;
  return loaded;
}
