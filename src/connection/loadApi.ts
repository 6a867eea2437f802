import type * as ApiIndex from '../api/index';

/** The lazily loaded API module (zod, undici, the client): `require('./api.js')`. */
export type ApiModule = typeof ApiIndex;

let loaded: ApiModule | undefined;

/**
 * The API module (client, zod schemas, undici) is its own bundle, dist/api.js, loaded the
 * first time something needs it. esbuild leaves this require alone (see esbuild.js), and at
 * run time it resolves next to dist/extension.js.
 */
export function loadApi(): ApiModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./api.js') as ApiModule;
  return loaded;
}
