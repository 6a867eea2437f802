/**
 * The connection commands' bodies (dist/connectionCommands.js), loaded on their first use: the
 * prompts for the base URL and the token are not needed to activate (see ../register.ts).
 */
export { clearToken } from './clearToken';
export { setBaseUrl } from './setBaseUrl';
export { setToken } from './setToken';
