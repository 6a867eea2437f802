/** The ranges of a text to scan: selections widened to lines, the character cap, chunks. */
import type { OffsetRange, Segment } from './types';

/** Widens every non-empty range to whole lines, sorts and merges them. */
export function selectionSegments(text: string, selections: readonly OffsetRange[] | undefined): Segment[] | undefined {
  const nonEmpty = (selections ?? []).filter((s) => s.end > s.start);
  if (nonEmpty.length === 0) return undefined;
  const widened = nonEmpty
    .map((s) => {
      const start = Math.max(0, Math.min(s.start, text.length));
      let end = Math.max(start, Math.min(s.end, text.length));
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      // A selection ending at column 0 of a line does not include that line.
      if (end > start && text[end - 1] === '\n') end--;
      const nl = text.indexOf('\n', end);
      const lineEnd = nl === -1 ? text.length : nl + 1;
      return { start: lineStart, end: lineEnd };
    })
    .sort((a, b) => a.start - b.start);
  const merged: Segment[] = [];
  for (const s of widened) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
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

