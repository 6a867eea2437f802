/**
 * One message as the transcript keeps it: only well-typed known fields, compared field by
 * field, hashed when it has no id, and sized for the transcript's bounds.
 */
import { attachmentsOf, jsonLength, sameJson, toolParametersOf } from '../../../api/json';
import type { AgentMessage } from '../../../api/types';

/** FNV-1a over UTF-16 code units, as 8 hex digits. Enough to tell id-less messages apart. */
export function hashString(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** A copy holding only well-typed known fields: what is cached, compared and exported. */
export function normalizeMessage(m: unknown): AgentMessage | undefined {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    return undefined;
  }
  const r = m as Record<string, unknown>;
  const out: AgentMessage = {};
  if (typeof r.id === 'string' && r.id.length > 0) {
    out.id = r.id;
  }
  if (typeof r.sequence === 'number' && Number.isFinite(r.sequence)) {
    out.sequence = r.sequence;
  }
  if (typeof r.role === 'string') {
    out.role = r.role;
  }
  if (typeof r.content === 'string') {
    out.content = r.content;
  }
  if (typeof r.toolName === 'string') {
    out.toolName = r.toolName;
  }
  const toolParameters = toolParametersOf(r.toolParameters);
  if (toolParameters !== undefined) {
    out.toolParameters = toolParameters;
  }
  const attachments = attachmentsOf(r.attachments);
  if (attachments !== undefined) {
    out.attachments = attachments;
  }
  if (typeof r.createdAt === 'number' && Number.isFinite(r.createdAt)) {
    out.createdAt = r.createdAt;
  }
  // Nothing usable at all: not a message.
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Field-wise equality of two normalized messages (no stored fingerprint: no second copy of big content). */
export function sameMessage(a: AgentMessage, b: AgentMessage): boolean {
  if (
    a.id !== b.id ||
    a.sequence !== b.sequence ||
    a.role !== b.role ||
    a.toolName !== b.toolName ||
    a.createdAt !== b.createdAt ||
    a.content !== b.content
  ) {
    return false;
  }
  return sameJson(a.toolParameters, b.toolParameters) && sameJson(a.attachments, b.attachments);
}

export function contentHash(m: AgentMessage): string {
  return hashString(
    JSON.stringify([m.role ?? null, m.content ?? null, m.toolName ?? null, m.toolParameters ?? null, m.attachments ?? null, m.createdAt ?? null]),
  );
}

export function sizeOf(m: AgentMessage): number {
  return (m.content?.length ?? 0) + jsonLength(m.toolParameters) + jsonLength(m.attachments) + 64;
}
