// undici's Agent, ProxyAgent and `request` from its own modules: its index adds ~210 KB of unused
// fetch, WebSocket and mocks to dist/api.js. undici is pinned, so these paths are the tested ones.
/* eslint-disable @typescript-eslint/no-require-imports -- undici's modules have no typings of their own: typed from its index's */
import type * as Undici from 'undici';

// undici's index puts the API methods (request, stream, pipeline, connect, upgrade) on every
// dispatcher the same way; ProxyAgent's CONNECT tunnel calls `connect` on its client.
const dispatcherClass = require('undici/lib/dispatcher/dispatcher') as { prototype: object };
Object.assign(dispatcherClass.prototype, require('undici/lib/api') as object);

export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
export const ProxyAgent = require('undici/lib/dispatcher/proxy-agent') as typeof Undici.ProxyAgent;
