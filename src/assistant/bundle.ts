/** The language model tools and the chat participant as their own bundle, loaded on the first tool call or chat request. */
export { createTools, type AgentRunsTools } from './tools';
export { handleChat, DEFAULT_FOLLOW, type FollowOptions } from './participant';
// The confirmations the public API puts before the person (src/publicApi): the tools' own words.
export { startConfirmation, followUpConfirmation } from './common/prompts';
