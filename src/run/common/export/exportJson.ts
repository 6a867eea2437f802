/**
 * Run exports as JSON: the whole run (`toJson`, or streamed from disk by `writeJson` as a valid
 * document written a chunk at a time). Pure: no `vscode`, no DOM. Only the allow-listed fields
 * of exportFields.ts are written.
 */
import type { Agent, AgentMessage } from '../../../api/types';
import type { TranscriptSnapshot } from '../transcript/transcript';
import type { ExportOptions } from './exportLabels';
import { EXPORT_CHUNK, GapMarks, infoOf, iso, pickMessage, pickRun, type ExportInfo, type ExportSink, type ExportTranscript } from './exportFields';

/** The JSON document around the messages: the text before them and after them. */
function jsonFrame(run: Agent, info: ExportInfo, now: number): [string, string] {
  const hole = '\u0000messages\u0000';
  const transcript: Record<string, unknown> = {
    earlierMessagesUnavailable: info.earlierMessagesUnavailable,
    missingMessageCount: info.missingMessageCount,
    droppedMessageCount: info.droppedMessageCount,
  };
  const prunedAt = iso(info.prunedAt);
  if (prunedAt) {
    transcript.prunedAt = prunedAt;
  }
  transcript.messages = hole;
  const doc = { format: 'agent-runs.run-export', version: 1, exportedAt: iso(now), run: pickRun(run), transcript };
  const [before, after] = JSON.stringify(doc, null, 2).split(JSON.stringify(hole));
  return [before, `${after}\n`];
}

/** One message as an item of the messages array (indented as JSON.stringify(doc, null, 2) does). */
function jsonItem(m: AgentMessage, first: boolean, gapBefore = 0): string {
  const item = gapBefore > 0 ? { gapBefore, ...pickMessage(m) } : pickMessage(m);
  return `${first ? '' : ','}\n      ${JSON.stringify(item, null, 2).replace(/\n/g, '\n      ')}`;
}

/** The run and its transcript as JSON (documented fields only). */
export function toJson(run: Agent, transcript: TranscriptSnapshot, options: ExportOptions = {}): string {
  const [before, after] = jsonFrame(run, infoOf(transcript), options.now ?? Date.now());
  const items = transcript.entries.map((e, i) => jsonItem(e.message, i === 0, e.gapBefore)).join('');
  return `${before}[${items}${items ? '\n    ' : ''}]${after}`;
}

/** toJson for a transcript read from disk: a valid JSON document written a chunk at a time. */
export async function writeJson(sink: ExportSink, run: Agent, transcript: ExportTranscript, options: ExportOptions = {}): Promise<number> {
  const [before, after] = jsonFrame(run, transcript, options.now ?? Date.now());
  await sink.write(`${before}[`);
  const gaps = new GapMarks(transcript.droppedMessageCount === 0);
  let count = 0;
  for await (const chunk of transcript.chunks(EXPORT_CHUNK)) {
    let text = '';
    for (const m of chunk) {
      text += jsonItem(m, count++ === 0, gaps.before(m));
    }
    await sink.write(text);
  }
  await sink.write(`${count > 0 ? '\n    ' : ''}]${after}`);
  return count;
}
