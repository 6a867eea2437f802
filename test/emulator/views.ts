/**
 * The public JSON of a run, as `GET /agents/{id}` and webhook payloads send it, in the shapes
 * in force (shapes.ts): the reference leaves an absent optional field out; the deployed
 * service sends it as `null` (`completedAt`, `lastError`, `reviewId`, `reasoningEffort`, a
 * message's `toolName` and `toolParameters`) and an empty `attachments` array.
 */
import type { AgentRecord, Message, Settings } from './domain';
import { unknownAgentFields, unknownLifecycleFields, unknownMessageFields } from './habits';
import type { RunRow } from './staleReads';

/** The public JSON view of a run. */
export type AgentView = Record<string, unknown>;

function deployedMessage(message: Message): Record<string, unknown> {
  return {
    id: message.id,
    sequence: message.sequence,
    role: message.role,
    content: message.content,
    toolName: message.toolName ?? null,
    toolParameters: message.toolParameters ?? null,
    attachments: message.attachments ?? [],
    createdAt: message.createdAt,
  };
}

/**
 * The view of `record` as `row` holds it (the primary's or a lagging copy's), with the most
 * recent `historyLimit` messages (`null`: all; `sequence` stays that of the whole conversation).
 */
export function agentView(record: AgentRecord, settings: Settings, historyLimit: number | null, row: RunRow): AgentView {
  const deployed = settings.shapes === 'deployed';
  const served = record.history.slice(0, row.historyLength);
  const kept = historyLimit === null ? served : served.slice(Math.max(0, served.length - historyLimit));
  const shaped: Record<string, unknown>[] = deployed ? kept.map(deployedMessage) : kept.map((m) => ({ ...m }));
  const unknown = settings.unknownFields;
  const history = unknown ? shaped.map((m, i) => ({ ...m, ...unknownMessageFields(kept[i]) })) : shaped;
  const view: AgentView = {
    agentId: record.agentId,
    kind: record.kind,
    status: row.status,
    appId: record.appId,
    projectId: record.projectId,
  };
  if (record.projectName !== undefined) view.projectName = record.projectName;
  if (deployed || record.review !== undefined) view.reviewId = record.review?.reviewId ?? null;
  view.model = record.model;
  if (deployed || record.reasoningEffort !== null) view.reasoningEffort = record.reasoningEffort;
  Object.assign(view, {
    permission: row.permission,
    permittedBranches: row.permittedBranches,
    createdAt: record.createdAt,
    updatedAt: row.updatedAt,
  });
  if (deployed || row.completedAt !== undefined) view.completedAt = row.completedAt ?? null;
  if (deployed || row.lastError !== undefined) view.lastError = row.lastError ?? null;
  view.history = history;
  view.lifecycle = unknown ? { ...row.lifecycle, ...unknownLifecycleFields(row.lifecycle) } : row.lifecycle;
  if (unknown) Object.assign(view, unknownAgentFields(record));
  Object.assign(view, record.extraFields);
  return structuredClone(view);
}
