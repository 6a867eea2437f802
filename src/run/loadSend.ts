import type { SendPostsModule } from './sendDoor';

let loaded: SendPostsModule | undefined;

/**
 * The send door's POSTs (src/run/sendPosts.ts) are their own bundle, dist/send.js, loaded on
 * the first send. Like `loadApi`: esbuild leaves this require alone (see esbuild.js) and it
 * resolves next to dist/extension.js.
 */
export function loadSendPosts(): SendPostsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('./send.js') as SendPostsModule;
  return loaded;
}
