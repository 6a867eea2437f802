/**
 * Writes a run export to a file a chunk at a time, waiting on the stream and yielding between chunks, so
 * a 50,000-message export neither blocks the extension host nor sits whole in memory.
 */
import * as fs from 'node:fs';
import type { Agent } from '../../../api/types';
import { writeJson, writeMarkdown, type ExportOptions, type ExportSink, type ExportTranscript } from './export';

export type ExportFormat = 'markdown' | 'json';

export interface ExportFileOptions extends ExportOptions {
  /** Checked between chunks: true stops the export and deletes the partial file. */
  cancelled?: () => boolean;
}

export class ExportCancelled extends Error {
  constructor() {
    super('The export was cancelled.');
    this.name = 'ExportCancelled';
  }
}

/** Writes the export; resolves with the number of messages written. */
export async function writeExportFile(file: string, format: ExportFormat, run: Agent, transcript: ExportTranscript, options: ExportFileOptions = {}): Promise<number> {
  const out = fs.createWriteStream(file, { encoding: 'utf8' });
  // Set by the stream's error event, read after each await.
  const state: { failure?: Error } = {};
  out.on('error', (e) => {
    state.failure = e;
  });
  const check = (): void => {
    if (state.failure) {
      throw state.failure;
    }
  };
  const sink: ExportSink = {
    write: async (text) => {
      check();
      if (options.cancelled?.()) throw new ExportCancelled();
      if (text && !out.write(text)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            out.off('drain', done);
            out.off('error', done);
            resolve();
          };
          out.on('drain', done);
          out.on('error', done);
        });
      }
      // Between chunks, whatever else the extension host has to do runs.
      await new Promise<void>((resolve) => setImmediate(resolve));
      check();
    },
  };
  try {
    const count = format === 'markdown' ? await writeMarkdown(sink, run, transcript, options) : await writeJson(sink, run, transcript, options);
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    check();
    return count;
  } catch (e) {
    out.destroy();
    await fs.promises.rm(file, { force: true }).catch(() => undefined);
    throw e;
  }
}
