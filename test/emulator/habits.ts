/**
 * What a real deployment sends that the reference does not list, switched on by the settings
 * `unknownFields` (on in the `real` preset) and `unknownValues` (off in every preset).
 * A client that reads only what it knows must keep working when these appear; one that
 * validates strictly, or switches over every known value without a default, will not.
 *
 * Values are derived from the run, never random, so two reads of the same state are equal.
 */
import type { AgentRecord, Lifecycle, Message } from './domain';

// ---------------------------------------------------------------- unknown fields

/** Names of the fields `unknownFields` adds, per object, for tests that look for them. */
export const UNKNOWN_FIELDS = {
  agent: ['source', 'usage', 'labels', 'archivedAt'],
  message: ['tokens', 'metadata', 'parentId'],
  lifecycle: ['sandboxRegion', 'heartbeatAt'],
  /** On the answers of `POST /agents` and `POST /agents/{id}/messages`. */
  ack: ['source', 'links'],
} as const;

/** Fields of the Agent object: an object, an array, a `null` and a string, to exercise every kind of value. */
export function unknownAgentFields(record: AgentRecord): Record<string, unknown> {
  return {
    source: 'rest_api',
    usage: { turns: record.turnCount, creditsCharged: record.creditsCharged },
    labels: [],
    archivedAt: null,
  };
}

export function unknownMessageFields(message: Message): Record<string, unknown> {
  return {
    tokens: Math.ceil((message.content ?? '').length / 4),
    metadata: { sequence: message.sequence },
    parentId: null,
  };
}

/** From the lifecycle as served (a stale read's heartbeat is as old as the rest of it). */
export function unknownLifecycleFields(lifecycle: Lifecycle): Record<string, unknown> {
  return { sandboxRegion: 'local-1', heartbeatAt: lifecycle.lastLifecycleEventAt };
}

export function unknownAckFields(record: AgentRecord): Record<string, unknown> {
  return { source: 'rest_api', links: { self: `/agents/${encodeURIComponent(record.agentId)}` } };
}

// ---------------------------------------------------------------- unknown values

/**
 * With `unknownValues`, each turn: the user message is followed by a `reasoning` message;
 * the turn starts in conversationState `planning` (instead of `thinking`); the sandbox goes
 * `warming` (instead of `provisioning`) and ends `hibernated` (instead of `stopped`).
 * The other values stay known, so a client sees a mix, as it would after a service update.
 */
export const UNKNOWN_VALUES = {
  role: 'reasoning',
  turnStartConversationState: 'planning',
  sandboxState: { provisioning: 'warming', stopped: 'hibernated' } as Readonly<Record<string, string>>,
} as const;

export function reasoningMessage(prompt: string): { role: string; content: string } {
  const words = prompt.replace(/\[\[[a-z]+\]\]/gi, '').trim().split(/\s+/).filter((w) => w !== '').length;
  return { role: UNKNOWN_VALUES.role, content: `Considering a request of ${words} word(s) before acting.` };
}

export function unknownSandboxState(state: string): string {
  return UNKNOWN_VALUES.sandboxState[state] ?? state;
}
