/** Parsing of the app's automations and a manual run's answer (service-api-wider.md §6), as tolerant as ./parse. */
import * as z from 'zod/mini';
import { compact, optString, optStringList, requiredId, run } from './parse';
import type { Automation, AutomationRunQueued } from './testTypes';
import { listOf, optBoolean, optTime } from './parseTestFields';

const automationSchema = z.pipe(
  z.object({
    id: requiredId,
    projectId: optString,
    name: optString,
    enabled: optBoolean,
    triggerKind: optString,
    triggerDescription: optString,
    actionKinds: optStringList,
    canRunManually: optBoolean,
    createdByName: optString,
    createdAt: optTime,
    updatedAt: optTime,
    lastRunAt: optTime,
    lastRunError: optString,
  }),
  z.transform((a): Automation => compact({
    ...a, enabled: a.enabled === true, canRunManually: a.canRunManually === true, actionKinds: a.actionKinds ?? [],
  })),
);

/** Parses a `GET /automations?appId=…` response. */
export function parseAutomations(json: unknown): Automation[] {
  return run(z.object({ automations: listOf(automationSchema) }), json, 'automation list').automations;
}

/** Parses `POST /automations/{id}/run`'s 202; the automation's id is the one asked for when the answer leaves it out. */
export function parseAutomationRunQueued(json: unknown, automationId: string): AutomationRunQueued {
  const r = run(z.object({ automationId: optString, status: optString, queuedAt: optTime }), json, 'automation run response');
  return compact({ ...r, automationId: r.automationId || automationId });
}
