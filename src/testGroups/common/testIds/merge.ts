/** Several files' results together. */
import type { ExtractResult } from './types';

export interface FileTestIds {
  /** How the file is shown (workspace-relative path). */
  file: string;
  result: ExtractResult;
}

export interface MergedTestIds {
  /** Unique IDs in order: files in the given order, document order within each. */
  ids: { id: string; file: string }[];
  /** IDs found in more than one file (kept once, at their first file). */
  crossFileDuplicates: { id: string; files: string[] }[];
  /** Files where nothing was found. */
  filesWithoutIds: string[];
}

export function mergeFileTestIds(files: readonly FileTestIds[]): MergedTestIds {
  const seen = new Map<string, string[]>();
  const ids: { id: string; file: string }[] = [];
  const filesWithoutIds: string[] = [];
  for (const { file, result } of files) {
    if (result.ids.length === 0) filesWithoutIds.push(file);
    for (const id of result.ids) {
      const where = seen.get(id);
      if (where) {
        if (!where.includes(file)) where.push(file);
        continue;
      }
      seen.set(id, [file]);
      ids.push({ id, file });
    }
  }
  const crossFileDuplicates = [...seen.entries()].filter(([, f]) => f.length > 1).map(([id, f]) => ({ id, files: f }));
  return { ids, crossFileDuplicates, filesWithoutIds };
}

