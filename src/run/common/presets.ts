/**
 * Launch presets from the `agentRuns.presets` setting (usually a workspace setting, shared
 * with the team), checked against the models the service offers right now; the launch and code
 * review forms apply them. Pure: no `vscode`.
 */
import { PERMISSIONS, REASONING_EFFORTS, type Permission, type ReasoningEffort } from '../../api/types';
import { parseBranches } from './startFields';
import type { L10n } from '../../base/common/l10n';
import { isAuthoritative, type ModelCatalog } from './models';

export interface LaunchPreset {
  name: string;
  appId?: string;
  model?: string;
  reasoningEffort?: ReasoningEffort;
  permission?: Permission;
  permittedBranches?: string[];
}

export interface ParsedPresets {
  presets: LaunchPreset[];
  /** One user-facing line per entry (or field) that was ignored. */
  problems: string[];
}

const KNOWN_KEYS = new Set(['name', 'appId', 'model', 'reasoningEffort', 'permission', 'permittedBranches']);

/**
 * Reads the setting leniently: a broken entry is dropped with a note, a broken field of an
 * otherwise usable entry is dropped with a note, and duplicate names keep the first entry.
 */
export function parsePresets(raw: unknown, l10n: L10n): ParsedPresets {
  const out: ParsedPresets = { presets: [], problems: [] };
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) {
    out.problems.push(l10n.t('agentRuns.presets must be a list of presets; it was ignored.'));
    return out;
  }
  raw.forEach((entry: unknown, index) => {
    const where = l10n.t('Preset {0}', index + 1);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      out.problems.push(l10n.t('{0} is not an object; it was ignored.', where));
      return;
    }
    const e = entry as Record<string, unknown>;
    const name = typeof e.name === 'string' ? e.name.trim() : '';
    if (name === '') {
      out.problems.push(l10n.t('{0} has no name; it was ignored.', where));
      return;
    }
    if (out.presets.some((p) => p.name === name)) {
      out.problems.push(l10n.t('Preset “{0}” is defined twice; the first one is used.', name));
      return;
    }
    const preset: LaunchPreset = { name };
    const text = (key: 'appId' | 'model'): void => {
      const v = e[key];
      if (v === undefined) return;
      if (typeof v === 'string' && v.trim() !== '' && !/\s/.test(v.trim())) preset[key] = v.trim();
      else out.problems.push(l10n.t('Preset “{0}”: {1} is not a valid value; it was ignored.', name, key));
    };
    text('appId');
    text('model');
    if (e.reasoningEffort !== undefined) {
      if (typeof e.reasoningEffort === 'string' && (REASONING_EFFORTS as readonly string[]).includes(e.reasoningEffort)) {
        preset.reasoningEffort = e.reasoningEffort as ReasoningEffort;
      } else {
        out.problems.push(l10n.t('Preset “{0}”: reasoningEffort must be one of {1}; it was ignored.', name, REASONING_EFFORTS.join(', ')));
      }
    }
    if (e.permission !== undefined) {
      if (typeof e.permission === 'string' && (PERMISSIONS as readonly string[]).includes(e.permission)) {
        preset.permission = e.permission as Permission;
      } else {
        out.problems.push(l10n.t('Preset “{0}”: permission must be one of {1}; it was ignored.', name, PERMISSIONS.join(', ')));
      }
    }
    if (e.permittedBranches !== undefined) {
      const v = e.permittedBranches;
      if (Array.isArray(v) && v.every((b) => typeof b === 'string')) {
        preset.permittedBranches = parseBranches(v.join(','));
      } else if (typeof v === 'string') {
        preset.permittedBranches = parseBranches(v);
      } else {
        out.problems.push(l10n.t('Preset “{0}”: permittedBranches must be a list of branch names; it was ignored.', name));
      }
    }
    for (const key of Object.keys(e)) {
      if (!KNOWN_KEYS.has(key)) out.problems.push(l10n.t('Preset “{0}”: unknown field “{1}” was ignored.', name, key));
    }
    out.presets.push(preset);
  });
  return out;
}

export type PresetStatus =
  /** Its model (if any) is offered by the service. */
  | 'ok'
  /** Its model is not in the service's list: picking it asks for another model. */
  | 'modelUnavailable'
  /** The service's list is unknown (fallback or none): the model cannot be checked. */
  | 'unverified';

export interface PresetCheck {
  preset: LaunchPreset;
  status: PresetStatus;
  /** User-facing explanation for anything but `ok`. */
  note?: string;
}

export function checkPreset(preset: LaunchPreset, catalog: ModelCatalog, l10n: L10n): PresetCheck {
  if (preset.model === undefined) return { preset, status: 'ok' };
  if (!isAuthoritative(catalog)) {
    return { preset, status: 'unverified', note: l10n.t('Model {0} could not be checked: the service\'s model list is unavailable.', preset.model) };
  }
  if (catalog.models.includes(preset.model)) return { preset, status: 'ok' };
  return { preset, status: 'modelUnavailable', note: l10n.t('Model {0} is no longer offered by the service; you will choose another.', preset.model) };
}
