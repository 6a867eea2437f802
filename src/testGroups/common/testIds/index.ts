/** Which paths are test files and which test IDs a file holds: this folder's public surface; import from here. */
export {
  DEFAULT_TEST_FILE_PATTERNS, normalizeGlob, globToRegExpSource, compileTestFileGlobs, globsToWhenClauseRegex,
  type TestFileMatcher,
} from './testFileGlobs';
export { testNameFromFileName, defaultGroupName } from './names';
export {
  MAX_PATTERN_LENGTH, TestIdPatternError, describePatternProblem, compileTestIdPattern,
  type PatternProblem, type CompiledPattern,
} from './patterns';
export {
  DEFAULT_SCAN_LIMITS, DEFAULT_CHUNK_CHARS,
  type OffsetRange, type ScanLimits, type ExtractOptions, type TestIdOccurrence, type DuplicateId,
  type TruncationReason, type Truncation, type ExtractResult,
} from './types';
export { selectionSegments } from './segments';
export { extractTestIds, extractTestIdsSync } from './extract';
export { mergeFileTestIds, type FileTestIds, type MergedTestIds } from './merge';
export { buildTestsPrompt, type PromptFile, type TestsPromptText } from './prompt';
