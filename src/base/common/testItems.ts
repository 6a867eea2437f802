// From Test Explorer items to what the test-ID scanner reads. An item's range starts at its `it(`
// line while its ID annotation sits just above it, so the range is widened upwards over comment and
// decorator lines (never over code or a blank line).

export const MAX_LEADING_LINES = 20;

const ANNOTATION_LINE = /^(?:\/\/|\/\*|\*|#|@|--|<!--)|\*\/$/;

/** The first line of the comment/decorator block directly above `startLine` (or `startLine`). */
export function leadingAnnotationStart(lines: readonly string[], startLine: number): number {
  let first = startLine;
  for (let line = startLine - 1; line >= 0 && startLine - line <= MAX_LEADING_LINES; line--) {
    const text = (lines[line] ?? '').trim();
    if (text === '' || !ANNOTATION_LINE.test(text)) break;
    first = line;
  }
  return first;
}

export interface ItemLines {
  /** A key for the item's file (its URI as text); undefined when the item has no file. */
  file?: string;
  /** 0-based line span, inclusive. */
  startLine?: number;
  endLine?: number;
  label: string;
}

export interface FileLines {
  file: string;
  /** Line spans in the order the items came. */
  spans: { startLine: number; endLine: number }[];
}

/**
 * Items grouped by file, files in the order their first item came; items without a file or
 * range are returned apart (they can only be named by their label).
 */
export function groupByFile(items: readonly ItemLines[]): { files: FileLines[]; withoutRange: ItemLines[] } {
  const files: FileLines[] = [];
  const withoutRange: ItemLines[] = [];
  for (const item of items) {
    if (item.file === undefined || item.startLine === undefined || item.endLine === undefined) {
      withoutRange.push(item);
      continue;
    }
    let entry = files.find((f) => f.file === item.file);
    if (!entry) {
      entry = { file: item.file, spans: [] };
      files.push(entry);
    }
    entry.spans.push({ startLine: item.startLine, endLine: item.endLine });
  }
  return { files, withoutRange };
}

/** Unique labels, in order, trimmed, empty ones dropped: the test IDs when the settings say to use labels. */
export function idsFromLabels(labels: readonly string[]): string[] {
  const out: string[] = [];
  for (const label of labels) {
    const id = label.trim();
    if (id !== '' && !out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * The argument "Create Test Group from These Tests" passes to `agentRuns.testGroups.create`
 * (the test-groups feature owns the flow; features talk through commands). Plain data.
 */
export interface TestItemsArgument {
  kind: 'agentRuns.testItems';
  /** `scan`: test IDs found in each item's lines; `label`: each item's label is its test ID. */
  idSource: 'scan' | 'label';
  /** In the order the Test Explorer gave them; `file` is the URI as text. */
  items: ItemLines[];
}

export function isTestItemsArgument(value: unknown): value is TestItemsArgument {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<TestItemsArgument>;
  return v.kind === 'agentRuns.testItems' && (v.idSource === 'scan' || v.idSource === 'label') && Array.isArray(v.items)
    && v.items.every((i: unknown) => typeof i === 'object' && i !== null && typeof (i as ItemLines).label === 'string');
}
