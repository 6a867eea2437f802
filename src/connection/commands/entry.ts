/**
 * The connection commands' bodies (Set Base URL, Set API Token, Clear Token) as their own bundle
 * (`dist/connectionCommands.js`), loaded on their first use (see `../register.ts`): the input
 * boxes and their checks stay out of the activation bundle.
 */
export { setBaseUrl } from './setBaseUrl';
export { setToken } from './setToken';
export { clearToken } from './clearToken';
