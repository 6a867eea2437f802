/** The language model tools' names (package.json `contributes.languageModelTools`), apart from their schemas so activation loads only these. */
export const TOOL_START = 'agentRuns_startRun';
export const TOOL_READ = 'agentRuns_readRun';
export const TOOL_FOLLOW_UP = 'agentRuns_sendFollowUp';
export const TOOL_TEST_GROUP = 'agentRuns_createTestGroup';
/** Offered only where the service serves code reviews (package.json `when`: agentRuns.codeReviews). */
export const TOOL_START_REVIEW = 'agentRuns_startCodeReview';
export const TOOL_NAMES = [TOOL_START, TOOL_READ, TOOL_FOLLOW_UP, TOOL_TEST_GROUP, TOOL_START_REVIEW] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
