/**
 * Small pieces shared by the service, the admin API and the seeded history: ids, the callers
 * the service knows, and how a message is stored.
 */
import { randomBytes } from 'node:crypto';
import type { ApiToken, CodeReviewInfo, Message, Project, Workspace } from './domain';
import type { ModelInfo } from './models';

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** Who is calling, once the token is accepted. */
export interface Caller {
  token: ApiToken;
  workspace: Workspace;
}

/** A message to append: the stored fields without id, and sequence and time when the caller has them. */
export type MessageInput = Omit<Message, 'id' | 'sequence' | 'createdAt'> & Partial<Pick<Message, 'sequence' | 'createdAt'>>;

/** What a new conversation starts with (a start, or a code review an admin opens). */
export interface NewConversation {
  workspace: Workspace;
  project: Project;
  model: ModelInfo;
  prompt: string;
  credits: number;
  createdByTokenId: string;
  reasoningEffort: string | null;
  permission: string;
  permittedBranches: string[];
  userEmail?: string;
  completionWebhookUrl?: string;
  review?: CodeReviewInfo;
}

/** Who asked for a code review through the public API, and what it paid. */
export type ReviewRequester = Partial<Pick<NewConversation, 'createdByTokenId' | 'userEmail' | 'completionWebhookUrl' | 'credits'>>;

/** A message as stored, from a draft (also used for seeded history, deployedSeed.ts). */
export function messageOf(draft: MessageInput, sequence: number, createdAt: number): Message {
  return {
    id: newId('msg'),
    sequence: draft.sequence ?? sequence,
    role: draft.role,
    content: draft.content,
    ...(draft.toolName !== undefined ? { toolName: draft.toolName } : {}),
    ...(draft.toolParameters !== undefined ? { toolParameters: draft.toolParameters } : {}),
    ...(draft.attachments !== undefined ? { attachments: draft.attachments } : {}),
    createdAt: draft.createdAt ?? createdAt,
  };
}
