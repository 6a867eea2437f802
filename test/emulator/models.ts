/**
 * The 10 model identifiers the emulated service accepts. The OpenAPI `model` enum and the
 * request validation are both built from this list. Under `shapes: 'deployed'`, older runs
 * may also carry one of the 5 retired ids (`RETIRED_MODELS`): readable, never accepted by a
 * start, as the deployed service's GET enum is wider than its POST enum.
 *
 * Service-hosted models run on the service and spend the workspace's paid credits each turn.
 * Connected provider models run on a workspace member's own provider credentials; the
 * provider is the part of the id before the slash.
 */

export type ModelKind = 'service_hosted' | 'connected_provider';

export interface ModelInfo {
  id: string;
  kind: ModelKind;
  /** For connected provider models: the provider whose credentials are needed. */
  provider?: string;
  /** For service-hosted models: paid credits charged per turn (start and each follow-up). */
  creditsPerTurn: number;
  label: string;
  /** No longer offered for new runs; old runs keep it (deployed shapes). */
  retired?: true;
}

function hosted(id: string, creditsPerTurn: number, label: string): ModelInfo {
  return { id, kind: 'service_hosted', creditsPerTurn, label };
}

function connected(id: string, label: string): ModelInfo {
  return { id, kind: 'connected_provider', provider: id.slice(0, id.indexOf('/')), creditsPerTurn: 0, label };
}

export const MODELS: readonly ModelInfo[] = [
  hosted('hosted/auto', 1, 'Auto (service-hosted)'),
  hosted('hosted/fast', 1, 'Fast (service-hosted)'),
  hosted('hosted/balanced', 2, 'Balanced (service-hosted)'),
  hosted('hosted/pro', 5, 'Pro (service-hosted)'),
  hosted('hosted/max', 10, 'Max (service-hosted)'),
  connected('openai/gpt-5', 'OpenAI GPT-5'),
  connected('openai/gpt-5-mini', 'OpenAI GPT-5 mini'),
  connected('anthropic/claude-sonnet-4-5', 'Anthropic Claude Sonnet 4.5'),
  connected('anthropic/claude-opus-4-1', 'Anthropic Claude Opus 4.1'),
  connected('google/gemini-2.5-pro', 'Google Gemini 2.5 Pro'),
];

export const MODEL_IDS: readonly string[] = MODELS.map((m) => m.id);

const retired = (info: ModelInfo): ModelInfo => ({ ...info, retired: true });

export const RETIRED_MODELS: readonly ModelInfo[] = [
  retired(hosted('hosted/standard-2025', 1, 'Standard 2025 (service-hosted, retired)')),
  retired(connected('openai/gpt-4.1', 'OpenAI GPT-4.1 (retired)')),
  retired(connected('openai/o3', 'OpenAI o3 (retired)')),
  retired(connected('anthropic/claude-sonnet-4', 'Anthropic Claude Sonnet 4 (retired)')),
  retired(connected('google/gemini-1.5-pro', 'Google Gemini 1.5 Pro (retired)')),
];

/** What a run read back may carry under deployed shapes: the current ids, then the retired ones. */
export const READABLE_MODEL_IDS: readonly string[] = [...MODEL_IDS, ...RETIRED_MODELS.map((m) => m.id)];

/** A current or retired model (a follow-up to an old run still pays for, and checks, its model). */
export function findModel(id: string): ModelInfo | undefined {
  return MODELS.find((m) => m.id === id) ?? RETIRED_MODELS.find((m) => m.id === id);
}
