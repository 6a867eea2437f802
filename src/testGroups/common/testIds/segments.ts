/** The ranges of a text to scan: selections widened to lines, the character cap, chunks. */
import { LineIndex } from './lines';
import type { OffsetRange, Segment } from './types';

/**
 * Widens every non-empty range to whole lines, sorts and merges them. In one pass over the
 * text however many ranges there are (select all occurrences of `testId` on a one-line file
 * gives thousands on a single line).
 */
export function selectionSegments(text: string, selections: readonly OffsetRange[] | undefined): Segment[] | undefined {
  const clamped = (selections ?? [])
    .filter((s) => s.end > s.start)
    .map((s) => {
      const start = Math.max(0, Math.min(s.start, text.length));
      let end = Math.max(start, Math.min(s.end, text.length));
      // A selection ending at column 0 of a line does not include that line.
      if (end > start && text[end - 1] === '\n') end--;
      return { start, end };
    })
    .sort((a, b) => a.start - b.start);
  if (clamped.length === 0) return undefined;
  // Starts come in order, and an end is looked up only past the merged end so far: both
  // indexes move forward only.
  const starts = new LineIndex(text);
  const ends = new LineIndex(text);
  const merged: Segment[] = [];
  for (const s of clamped) {
    const last = merged[merged.length - 1];
    const lineStart = starts.lineStartOf(s.start);
    if (last && lineStart <= last.end) {
      if (s.end >= last.end) last.end = Math.max(last.end, ends.lineEndOf(s.end));
    } else {
      merged.push({ start: lineStart, end: ends.lineEndOf(s.end) });
    }
  }
  return merged;
}

/** Cuts the segments so their total length is at most `maxChars`, at a line end when one is near. */
export function capSegments(text: string, segments: Segment[], maxChars: number): { segments: Segment[]; cut: boolean } {
  const out: Segment[] = [];
  let left = maxChars;
  for (const s of segments) {
    if (left <= 0) return { segments: out, cut: true };
    const len = s.end - s.start;
    if (len <= left) {
      out.push(s);
      left -= len;
      continue;
    }
    let end = s.start + left;
    const nl = text.lastIndexOf('\n', end - 1);
    if (nl >= s.start && end - nl < 64 * 1024) end = nl + 1;
    // Never split a surrogate pair.
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
    if (end > s.start) out.push({ start: s.start, end });
    return { segments: out, cut: true };
  }
  return { segments: out, cut: false };
}

/** Splits a segment into chunks of about `size` characters, each ending at a line end when possible. */
export function* chunksOf(text: string, seg: Segment, size: number): Generator<Segment> {
  let start = seg.start;
  while (start < seg.end) {
    let end = Math.min(seg.end, start + size);
    if (end < seg.end) {
      const nl = text.indexOf('\n', end);
      end = nl === -1 || nl >= seg.end ? seg.end : nl + 1;
    }
    yield { start, end };
    start = end;
  }
}

