/**
 * The three parts of undici the transport uses (Agent, ProxyAgent and a dispatcher's
 * `request`), loaded from undici's own modules instead of its index. The index also loads
 * fetch, WebSocket, EventSource, the cache stores, the interceptors and the mock agents,
 * which nothing here uses: about 210 KB of dist/api.js, minified (`npm run bench` reports the
 * .vsix). undici is pinned in package.json, so these paths are the ones this build was tested
 * with; the transport's tests and the proxy scenarios go through every one of them.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- undici's modules have no typings of their own: typed from its index's */
import type * as Undici from 'undici';

// undici's index puts the API methods (request, stream, pipeline, connect, upgrade) on every
// dispatcher the same way; ProxyAgent's CONNECT tunnel calls `connect` on its client.
const dispatcherClass = require('undici/lib/dispatcher/dispatcher') as { prototype: object };
Object.assign(dispatcherClass.prototype, require('undici/lib/api') as object);

export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
export const ProxyAgent = require('undici/lib/dispatcher/proxy-agent') as typeof Undici.ProxyAgent;
