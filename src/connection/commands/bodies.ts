/**
 * The connection commands' bodies, loaded on their first use with dist/runCommands.js (which
 * re-exports them; see ../register.ts): the prompts for the base URL and the token are not
 * needed to activate.
 */
export { askInsecure, explainMissing } from './missing';
export { clearToken } from './clearToken';
export { setBaseUrl } from './setBaseUrl';
export { setToken } from './setToken';
