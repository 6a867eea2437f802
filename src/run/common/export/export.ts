/**
 * Run exports as Markdown or JSON, only through an allow-list of documented fields, so nothing else an
 * Agent object carries reaches the file; no token ever reaches these functions. Pure.
 */
export { DEFAULT_EXPORT_LABELS, exportLabels, type ExportLabels, type ExportOptions } from './exportLabels';
export type { ExportInfo, ExportSink, ExportTranscript } from './exportFields';
export { messageToMarkdown, toMarkdown, writeMarkdown } from './exportMarkdown';
export { toJson, writeJson } from './exportJson';
