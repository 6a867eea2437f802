/** The connection commands' bodies, loaded on first use with dist/runCommands.js: activation needs none of their prompts. */
export { askInsecure, explainMissing } from './missing';
export { clearToken } from './clearToken';
export { setBaseUrl } from './setBaseUrl';
export { setToken } from './setToken';
