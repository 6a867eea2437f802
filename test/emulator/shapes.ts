/**
 * The two shapes the emulator serves (setting `shapes`, see settings.ts):
 *
 * - `reference` (service-api.md): `toolParameters` a JSON document as a string, `attachments`
 *   strings, optional fields left out, lifecycle `queued`/`thinking`/`running_tool`/
 *   `finished`/`awaiting_input` and `cold`/`provisioning`/`ready`/`stopped`.
 * - `deployed` (service-api-wider.md §1): `toolParameters` an object (or null), `attachments`
 *   objects (files, linked issues, and kinds a client cannot know), roles `user`, `assistant`,
 *   `thinking`, `tool`, `system`, `error`, `content` null for a tool call with parameters only,
 *   nullable fields sent as `null`, kinds `agent` and `code_review`, and the deployed lifecycle
 *   enums below.
 *
 * Runs write their messages and lifecycle in the shapes in force when they happen (runs.ts,
 * service.ts), as a service does; reads add the nulls (views.ts).
 */
import type { JsonObject, Settings } from './domain';

export type ShapesName = Settings['shapes'];

export const KINDS = ['agent', 'code_review'] as const;
export const CODE_REVIEW_KIND = 'code_review';
export const DEPLOYED_ROLES = ['user', 'assistant', 'thinking', 'tool', 'system', 'error'] as const;
export const DEPLOYED_CONVERSATION_STATES = ['draft', 'ready', 'running_turn', 'errored', 'archived'] as const;
export const DEPLOYED_SANDBOX_STATES = ['none', 'provisioning', 'booting', 'online', 'paused', 'dead'] as const;

// ---------------------------------------------------------------- attachments

/** What a message attaches, before it is written in one shape or the other. */
export type AttachmentSpec =
  | { kind: 'file'; path: string; mimeType: string; sizeBytes?: number; width?: number; height?: number }
  | { kind: 'issue'; identifier: string; title: string }
  /** Only under deployed shapes: an attachment kind no client knows (no name, URL, title or type). */
  | { kind: 'snapshot'; snapshotId: string; sizeBytes: number; retainedForDays: number };

const FILES_ORIGIN = 'https://files.example.invalid';
const ISSUES_ORIGIN = 'https://linear.example.invalid/acme/issue';

export function issueUrl(identifier: string): string {
  return `${ISSUES_ORIGIN}/${encodeURIComponent(identifier)}`;
}

/**
 * One attachment as written: the reference writes a file as its path (and knows no other
 * kind); the deployed service writes objects whose fields differ per kind.
 */
export function writeAttachment(shapes: ShapesName, appId: string, spec: AttachmentSpec): string | JsonObject | undefined {
  if (shapes === 'reference') return spec.kind === 'file' ? spec.path : undefined;
  switch (spec.kind) {
    case 'file': {
      const file: JsonObject = {
        name: spec.path.slice(spec.path.lastIndexOf('/') + 1),
        url: `${FILES_ORIGIN}/${encodeURIComponent(appId)}/${spec.path}`,
        mimeType: spec.mimeType,
      };
      if (spec.sizeBytes !== undefined) file.sizeBytes = spec.sizeBytes;
      if (spec.width !== undefined) file.width = spec.width;
      if (spec.height !== undefined) file.height = spec.height;
      return file;
    }
    case 'issue':
      return { identifier: spec.identifier, title: spec.title, url: issueUrl(spec.identifier) };
    case 'snapshot':
      return { snapshotId: spec.snapshotId, sizeBytes: spec.sizeBytes, retainedForDays: spec.retainedForDays };
  }
}

export function writeAttachments(shapes: ShapesName, appId: string, specs: readonly AttachmentSpec[]): (string | JsonObject)[] {
  return specs.map((s) => writeAttachment(shapes, appId, s)).filter((a): a is string | JsonObject => a !== undefined);
}

/** Issue identifiers a prompt mentions (`ENG-142`): the deployed service links them to the user's message. */
export function mentionedIssues(prompt: string): AttachmentSpec[] {
  const found = new Set<string>();
  for (const match of prompt.matchAll(/\b[A-Z][A-Z0-9]{1,9}-[1-9][0-9]{0,6}\b/g)) found.add(match[0]);
  return [...found].map((identifier) => ({ kind: 'issue', identifier, title: `Linked from the prompt: ${identifier}` }));
}

// ---------------------------------------------------------------- lifecycle

/** A lifecycle change as the service writes it; `sandboxState` absent: unchanged. */
export interface LifecycleChange {
  conversationState: string;
  sandboxState?: string;
}

/**
 * The lifecycle words of each shape. Runs describe their steps in the reference's words
 * (runs.ts); the deployed service has its own state machines: a conversation is `draft` until
 * its first turn, `running_turn` during a turn, `ready` between turns and `errored` after a
 * failed one; a sandbox is `none`, then `provisioning`, `booting` and `online` over the first
 * ticks of a turn, `paused` when a turn ends and `dead` after a failure.
 */
export interface LifecycleWords {
  /** When the run is created with its first turn queued. */
  created(): Required<LifecycleChange>;
  /** When a follow-up re-opens a finished or halted run. */
  reopened(): string;
  /** When a turn starts, from the sandbox's current state. */
  turnStart(sandbox: string, startWord: string): Required<LifecycleChange>;
  /** A step of a turn, from the script's words and the current sandbox. */
  step(conversationState: string, sandboxState: string | undefined, sandbox: string): LifecycleChange;
  /** The last turn ended. */
  turnEnd(outcome: 'completed' | 'awaiting_input' | 'error'): Required<LifecycleChange>;
}

const REFERENCE_WORDS: LifecycleWords = {
  created: () => ({ conversationState: 'queued', sandboxState: 'cold' }),
  reopened: () => 'queued',
  turnStart: (sandbox, startWord) => ({ conversationState: startWord, sandboxState: sandbox === 'ready' ? 'ready' : 'provisioning' }),
  step: (conversationState, sandboxState) => (sandboxState === undefined ? { conversationState } : { conversationState, sandboxState }),
  turnEnd: (outcome) => {
    if (outcome === 'error') return { conversationState: 'finished', sandboxState: 'stopped' };
    return outcome === 'awaiting_input' ? { conversationState: 'awaiting_input', sandboxState: 'ready' } : { conversationState: 'finished', sandboxState: 'stopped' };
  },
};

/** The reference's turn-start word `thinking` becomes `running_turn`; another word (an unknown value) stays. */
const deployedConversation = (word: string): string => (['thinking', 'running_tool'].includes(word) ? 'running_turn' : word);

/** A sandbox boots over the ticks after a turn starts: provisioning → booting → online. */
const booted = (sandbox: string): string => {
  if (sandbox === 'provisioning') return 'booting';
  if (sandbox === 'booting') return 'online';
  return sandbox;
};

const DEPLOYED_WORDS: LifecycleWords = {
  created: () => ({ conversationState: 'draft', sandboxState: 'none' }),
  reopened: () => 'ready',
  turnStart: (sandbox, startWord) => ({ conversationState: deployedConversation(startWord), sandboxState: sandbox === 'online' ? 'online' : 'provisioning' }),
  step: (conversationState, _sandboxState, sandbox) => ({ conversationState: deployedConversation(conversationState), sandboxState: booted(sandbox) }),
  turnEnd: (outcome) => {
    if (outcome === 'error') return { conversationState: 'errored', sandboxState: 'dead' };
    // Waiting for an answer keeps the sandbox up; a finished turn pauses it.
    return { conversationState: 'ready', sandboxState: outcome === 'awaiting_input' ? 'online' : 'paused' };
  },
};

export function lifecycleWords(shapes: ShapesName): LifecycleWords {
  return shapes === 'deployed' ? DEPLOYED_WORDS : REFERENCE_WORDS;
}
