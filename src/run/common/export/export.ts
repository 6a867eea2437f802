/**
 * Run exports as Markdown or JSON. Pure: no `vscode`, no DOM.
 *
 * Only run data is emitted, and only through an allow-list of documented fields: whatever
 * else an Agent object carries (an unknown field, something the glue attached) never reaches
 * the file. The functions never see a token; the panel that calls them does not have one.
 *
 * The pieces: the labels and options (exportLabels.ts), the field allow-list and what both
 * formats share (exportFields.ts), Markdown (exportMarkdown.ts) and JSON (exportJson.ts).
 * Writing an export to a file is exportFile.ts.
 */
export { DEFAULT_EXPORT_LABELS, exportLabels, type ExportLabels, type ExportOptions } from './exportLabels';
export type { ExportInfo, ExportSink, ExportTranscript } from './exportFields';
export { messageToMarkdown, toMarkdown, writeMarkdown } from './exportMarkdown';
export { toJson, writeJson } from './exportJson';
