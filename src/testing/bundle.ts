/**
 * "Ask Agent to Fix" as its own bundle (`dist/testing.js`), loaded on its first use (see
 * ./contribution.ts): the prompt building and the commands' bodies stay out of the activation bundle.
 */
export { askToFix } from './askToFix';
export { createFromTests, linksOf, showRun } from './commands';
