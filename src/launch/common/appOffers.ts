/** The App IDs the launch form's first step offers, each once, with the project name a run of it was read with. */
import { oneLine } from '../../api/sanitize';

/** Why an App ID is offered; an ID offered for several reasons keeps them all, in this order. */
export type AppOfferSource = 'current' | 'settings' | 'recent' | 'runs';

export interface AppOffer {
  appId: string;
  /** The project's name as the service wrote it in a run of this app (newest first), made plain. */
  projectName?: string;
  sources: AppOfferSource[];
  /** How many runs of this app the list holds. */
  runs: number;
}

/** What a run in the list says about its app (a `LedgerEntry` fits). */
export interface AppOfRun {
  appId?: string;
  projectName?: string;
  /** When the run was created or listed: newer runs name their app first. */
  time: number;
}

export interface AppOfferInput {
  /** The form's value (a restored draft, Back, Clone). */
  current: string;
  /** `agentRuns.appId`. */
  configured: string;
  /** Most recent first, for the current base URL. */
  recent: readonly string[];
  runs: readonly AppOfRun[];
}

/** Longest project name shown beside an App ID. */
const NAME_MAX = 80;

/** An ID the service or a setting gave us is offered only when it could be typed: no spaces or control characters. */
function usable(id: string | undefined): string | undefined {
  const v = id?.trim() ?? '';
  return v !== '' && !/[\s\p{C}]/u.test(v) ? v : undefined;
}

export function appIdOffers(input: AppOfferInput): AppOffer[] {
  const offers = new Map<string, AppOffer>();
  const offer = (id: string | undefined, source: AppOfferSource): AppOffer | undefined => {
    const v = usable(id);
    if (v === undefined) return undefined;
    let o = offers.get(v);
    if (!o) {
      o = { appId: v, sources: [], runs: 0 };
      offers.set(v, o);
    }
    if (!o.sources.includes(source)) o.sources.push(source);
    return o;
  };
  offer(input.current, 'current');
  offer(input.configured, 'settings');
  for (const id of input.recent) offer(id, 'recent');
  const newestFirst = [...input.runs].sort((a, b) => b.time - a.time);
  for (const r of newestFirst) {
    const o = offer(r.appId, 'runs');
    if (!o) continue;
    o.runs++;
    const name = r.projectName === undefined ? '' : oneLine(r.projectName, NAME_MAX);
    if (o.projectName === undefined && name !== '') o.projectName = name;
  }
  return [...offers.values()];
}

/** Where the recently used App IDs of one service (base URL) are kept in global state. */
export function recentAppsKey(baseUrl: string): string {
  return `agentRuns.launch.recentAppIds:${baseUrl}`;
}
