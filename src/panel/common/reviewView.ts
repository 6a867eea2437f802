/**
 * A code review as the run panel shows it above its conversation (issue 21), checked again by
 * the page like every message. All of it is the service's text: set as text, and only http(s)
 * image links survive, as links.
 */
import * as z from 'zod/mini';
import type { CodeReviewDetail, ReviewComment, ReviewItem } from '../../api/reviewTypes';
import { MAX_ID_CHARS, MAX_SHORT_CHARS, MAX_STRING_CHARS, MAX_URL_CHARS, optStr, str, timestamp, cutText } from './historyMessage';
import { isWebUrl } from './links';

/** Items shown per list and comments of the thread; the counts say how many there were. */
export const MAX_REVIEW_ITEMS = 200;
/** Characters of a description or a comment's body. */
export const MAX_REVIEW_TEXT = 4_000;
/** Replies deeper than this are shown at this depth. */
export const MAX_THREAD_DEPTH = 4;
const MAX_LINKS = 10;

const itemSchema = z.object({
  id: str(MAX_ID_CHARS),
  title: optStr(MAX_STRING_CHARS),
  description: optStr(MAX_REVIEW_TEXT),
  priority: optStr(MAX_SHORT_CHARS),
  state: optStr(MAX_SHORT_CHARS),
  /** `ai`, `user`, or what the service sent. */
  by: optStr(MAX_SHORT_CHARS),
  byEmail: optStr(MAX_SHORT_CHARS),
});
export type ReviewItemView = z.infer<typeof itemSchema>;

const commentSchema = z.object({
  id: str(MAX_ID_CHARS),
  depth: z.int().check(z.minimum(0), z.maximum(MAX_THREAD_DEPTH)),
  author: optStr(MAX_SHORT_CHARS),
  at: timestamp,
  edited: z.optional(z.literal(true)),
  deleted: z.optional(z.literal(true)),
  body: optStr(MAX_REVIEW_TEXT),
  links: z.array(str(MAX_URL_CHARS)).check(z.maxLength(MAX_LINKS)),
});
export type ReviewCommentView = z.infer<typeof commentSchema>;

const list = <T extends z.ZodMiniType>(item: T) => z.array(item).check(z.maxLength(MAX_REVIEW_ITEMS));

export const reviewViewSchema = z.object({
  reviewId: str(MAX_ID_CHARS),
  title: optStr(MAX_STRING_CHARS),
  status: optStr(MAX_SHORT_CHARS),
  from: optStr(MAX_SHORT_CHARS),
  to: optStr(MAX_SHORT_CHARS),
  requestedBy: optStr(MAX_SHORT_CHARS),
  model: optStr(MAX_SHORT_CHARS),
  changes: list(itemSchema),
  comments: list(itemSchema),
  tests: list(itemSchema),
  thread: list(commentSchema),
  /** How many each list had before the cut (equal to the lengths when nothing was cut). */
  counts: z.object({ changes: z.int(), comments: z.int(), tests: z.int(), thread: z.int() }),
});
export type ReviewView = z.infer<typeof reviewViewSchema>;

const text = (v: string | undefined, max: number): string | undefined => (v !== undefined && v.trim() !== '' ? cutText(v, max) : undefined);

function itemView(i: ReviewItem): ReviewItemView {
  const out: ReviewItemView = { id: cutText(i.id, MAX_ID_CHARS) };
  const set = <K extends keyof ReviewItemView>(k: K, v: ReviewItemView[K]) => {
    if (v !== undefined) out[k] = v;
  };
  set('title', text(i.title, MAX_STRING_CHARS));
  set('description', text(i.description, MAX_REVIEW_TEXT));
  set('priority', text(i.priority, MAX_SHORT_CHARS));
  set('state', text(i.state, MAX_SHORT_CHARS));
  set('by', text(i.createdBy, MAX_SHORT_CHARS));
  set('byEmail', text(i.createdByEmail, MAX_SHORT_CHARS));
  return out;
}

function commentView(c: ReviewComment, depth: number): ReviewCommentView {
  const deleted = c.isDeleted === true || c.body === undefined;
  const out: ReviewCommentView = { id: cutText(c.id, MAX_ID_CHARS), depth: Math.min(depth, MAX_THREAD_DEPTH), links: [] };
  const author = text(c.authorName, MAX_SHORT_CHARS) ?? text(c.authorEmail, MAX_SHORT_CHARS);
  if (author !== undefined) out.author = author;
  if (c.createdAt !== undefined) out.at = c.createdAt;
  if (c.editedAt !== undefined) out.edited = true;
  if (deleted) {
    out.deleted = true;
    return out;
  }
  const body = text(c.body, MAX_REVIEW_TEXT);
  if (body !== undefined) out.body = body;
  out.links = (c.imageUrls ?? []).filter((u) => u.length <= MAX_URL_CHARS && isWebUrl(u)).slice(0, MAX_LINKS);
  return out;
}

const byTime = (a: ReviewComment, b: ReviewComment) => (a.createdAt ?? 0) - (b.createdAt ?? 0);

/**
 * The thread in reading order, replies under their parent; an orphan reply goes to the top level
 * and a cycle is broken where it closes, so every comment shows once.
 */
export function threadOrder(comments: readonly ReviewComment[]): ReviewCommentView[] {
  const ids = new Set(comments.map((c) => c.id));
  const children = new Map<string, ReviewComment[]>();
  const roots: ReviewComment[] = [];
  for (const c of comments) {
    if (c.parentId !== undefined && c.parentId !== c.id && ids.has(c.parentId)) {
      const siblings = children.get(c.parentId) ?? [];
      siblings.push(c);
      children.set(c.parentId, siblings);
    } else {
      roots.push(c);
    }
  }
  const out: ReviewCommentView[] = [];
  const shown = new Set<string>();
  const visit = (c: ReviewComment, depth: number) => {
    if (shown.has(c.id) || out.length >= MAX_REVIEW_ITEMS) return;
    shown.add(c.id);
    out.push(commentView(c, depth));
    for (const r of (children.get(c.id) ?? []).sort(byTime)) visit(r, depth + 1);
  };
  for (const r of roots.sort(byTime)) visit(r, 0);
  // Comments only reachable through a cycle (each one's parent is another of them).
  for (const c of [...comments].sort(byTime)) visit(c, 0);
  return out;
}

/** The panel's view of `GET /code-reviews/{id}`. */
export function buildReviewView(d: CodeReviewDetail): ReviewView {
  const r = d.review;
  const items = (l: readonly ReviewItem[]) => l.slice(0, MAX_REVIEW_ITEMS).map(itemView);
  const view: ReviewView = {
    reviewId: cutText(d.reviewId, MAX_ID_CHARS),
    changes: items(d.changes),
    comments: items(d.comments),
    tests: items(d.tests),
    thread: threadOrder(d.reviewComments),
    counts: { changes: d.changes.length, comments: d.comments.length, tests: d.tests.length, thread: d.reviewComments.length },
  };
  const set = <K extends 'title' | 'status' | 'from' | 'to' | 'requestedBy' | 'model'>(k: K, v: string | undefined, max = MAX_SHORT_CHARS) => {
    const t = text(v, max);
    if (t !== undefined) view[k] = t;
  };
  set('title', r.title, MAX_STRING_CHARS);
  set('status', r.status);
  set('from', r.fromVersionLabel ?? r.fromVersion);
  set('to', r.toVersionLabel ?? r.toVersion);
  set('requestedBy', r.requestedByName ?? r.requestedByEmail);
  set('model', r.model);
  return view;
}
