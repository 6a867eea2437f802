/**
 * What a review agent records as its conversation progresses (service-api-wider.md §2): changes,
 * comments and tests, and the discussion thread. Derived from the review and the messages its
 * conversation holds (reviews.ts writes them), never stored: each item appears with the message
 * that brings it and carries that message's time, so reads follow the conversation's progress.
 *
 * - The review's first message: the requester's thread comment (with a screenshot) and, when
 *   the review has focus areas, the requester's comment naming them.
 * - The `diff_versions` call: three changes (informational, no priority).
 * - The findings: two comments and two tests by the agent, its reply to the requester, a
 *   teammate's comment.
 * - The conversation completed: one test completed; the teammate's comment edited; a deleted
 *   reply to it. A failed conversation stops after the changes.
 */
import type { AgentRecord, CodeReviewRecord } from './domain';
import { promptExcerpt } from './runs';

export const FINDING_TYPES = ['change', 'comment', 'test'] as const;
export const FINDING_PRIORITIES = ['high', 'medium', 'low'] as const;
export const FINDING_STATES = ['open', 'completed'] as const;
export const FINDING_AUTHORS = ['ai', 'user'] as const;

/** The teammate who comments on every review (a member of the seeded workspace). */
export const REVIEW_TEAMMATE = 'dev@example.com';
export const REVIEW_AGENT_NAME = 'Review agent';

export interface Finding {
  id: string;
  type: string;
  title: string;
  description: string;
  priority: string | null;
  state: string;
  createdBy: string;
  createdByEmail: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

export interface ThreadComment {
  id: string;
  parentId: string | null;
  authorName: string;
  authorEmail: string | null;
  authorImage: string | null;
  body: string | null;
  imageUrls: string[];
  isDeleted: boolean;
  editedAt: number | null;
  createdAt: number;
}

export interface Findings {
  changes: Finding[];
  comments: Finding[];
  tests: Finding[];
  reviewComments: ThreadComment[];
}

/** When each part of the review happened in its conversation (undefined: not yet). */
interface Moments {
  start?: number;
  diff?: number;
  findings?: number;
  end?: number;
}

function moments(agent: AgentRecord): Moments {
  const at = (found: { createdAt: number } | undefined): number | undefined => found?.createdAt;
  return {
    start: at(agent.history.find((m) => m.role === 'user')),
    diff: at(agent.history.find((m) => m.role === 'tool' && m.toolName === 'diff_versions')),
    findings: at(agent.history.find((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content.startsWith('### Review findings'))),
    end: agent.status === 'completed' ? agent.completedAt : undefined,
  };
}

/** A person's display name from their email (`dev@example.com` → `Dev`). */
export function nameOf(email: string): string {
  const local = email.split('@')[0] ?? email;
  return local.split(/[._-]/).filter((p) => p !== '').map((p) => p[0].toUpperCase() + p.slice(1)).join(' ');
}

export function avatarOf(email: string): string {
  return `https://avatars.example.com/${encodeURIComponent(email.toLowerCase())}.png`;
}

export function reviewFindings(review: CodeReviewRecord, agent: AgentRecord): Findings {
  const when = moments(agent);
  const id = (part: string): string => `${review.reviewId}_${part}`;
  const subject = promptExcerpt(review.title, 60);
  const finding = (part: string, type: string, at: number, fields: Pick<Finding, 'title' | 'description' | 'priority'> & { by?: string; completedAt?: number }): Finding => ({
    id: id(part), type, ...fields, state: fields.completedAt === undefined ? 'open' : 'completed',
    createdBy: fields.by === undefined ? 'ai' : 'user', createdByEmail: fields.by ?? null,
    createdAt: at, updatedAt: fields.completedAt ?? at, completedAt: fields.completedAt ?? null,
  });
  const out: Findings = { changes: [], comments: [], tests: [], reviewComments: [] };
  const person = (email: string): Pick<ThreadComment, 'authorName' | 'authorEmail' | 'authorImage'> => ({ authorName: nameOf(email), authorEmail: email, authorImage: avatarOf(email) });

  if (when.start !== undefined) {
    out.reviewComments.push({
      id: id('rc1'), parentId: null, ...person(review.requestedByEmail),
      body: `Please review ${subject}${review.description === null ? '' : `: ${promptExcerpt(review.description, 120)}`}`,
      imageUrls: [`https://files.example.com/reviews/${review.reviewId}/before.png`, `https://files.example.com/reviews/${review.reviewId}/after.png`],
      isDeleted: false, editedAt: null, createdAt: when.start,
    });
    if (review.focusAreas !== null) {
      out.comments.push(finding('cmt_focus', 'comment', when.start, { title: `Focus: ${promptExcerpt(review.focusAreas, 60)}`, description: review.focusAreas, priority: 'medium', by: review.requestedByEmail }));
    }
  }
  if (when.diff !== undefined) {
    out.changes.push(
      finding('chg1', 'change', when.diff, { title: `API call Get todos: ${subject}`, description: 'The call times out after 10 s and is retried once.', priority: null }),
      finding('chg2', 'change', when.diff, { title: 'Page index: loading state', description: 'Repeating group Todos stays hidden until the call Get todos returns.', priority: null }),
      finding('chg3', 'change', when.diff, { title: 'Reusable element Todo card: empty list', description: 'An empty list shows a hint instead of nothing.', priority: null }),
    );
  }
  if (when.findings !== undefined) {
    out.comments.push(
      finding('cmt1', 'comment', when.findings, { title: 'The call Get todos has no error workflow', description: 'A timed-out call leaves the list empty without an alert (TODO-212).', priority: 'high' }),
      finding('cmt2', 'comment', when.findings, { title: 'The new timeout is not configurable', description: 'Keep it in the option set Settings, as the retry count is.', priority: 'low' }),
    );
    out.tests.push(
      finding('tst1', 'test', when.findings, { title: 'The index page shows an alert when Get todos fails', description: 'Make the call fail, open the index page: an alert with a Retry button.', priority: 'high', ...(when.end !== undefined ? { completedAt: when.end } : {}) }),
      finding('tst2', 'test', when.findings, { title: 'A slow Get todos call times out after 10 s', description: 'Delay the call by 11 s: it is cancelled and retried once.', priority: 'medium' }),
    );
    out.reviewComments.push(
      {
        id: id('rc2'), parentId: id('rc1'), authorName: REVIEW_AGENT_NAME, authorEmail: null, authorImage: null,
        body: 'Two findings and two suggested tests; the high one is a regression.', imageUrls: [], isDeleted: false, editedAt: null, createdAt: when.findings,
      },
      {
        id: id('rc3'), parentId: null, ...person(REVIEW_TEAMMATE),
        body: when.end === undefined ? 'Is the retry needed?' : 'Is the retry needed? (Answered: yes, for flaky networks.)',
        imageUrls: [], isDeleted: false, editedAt: when.end ?? null, createdAt: when.findings,
      },
    );
  }
  if (when.end !== undefined) {
    out.reviewComments.push({
      id: id('rc4'), parentId: id('rc3'), authorName: nameOf(review.requestedByEmail), authorEmail: review.requestedByEmail, authorImage: avatarOf(review.requestedByEmail),
      body: null, imageUrls: [], isDeleted: true, editedAt: null, createdAt: when.end,
    });
  }
  return out;
}

/** The latest time among the findings (for the review's `updatedAt`). */
export function latestFindingTime(f: Findings): number {
  let latest = 0;
  for (const item of [...f.changes, ...f.comments, ...f.tests]) latest = Math.max(latest, item.updatedAt);
  for (const c of f.reviewComments) latest = Math.max(latest, c.editedAt ?? c.createdAt);
  return latest;
}
