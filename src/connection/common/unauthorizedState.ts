// The 401 gate's decisions: one prompt per rejected token rather than one per background request,
// while a command the person ran always says why; a new token, base URL or proven success lifts it.
import type { UnauthorizedReport } from './unauthorizedReport';

export function isUnauthorizedReport(value: unknown): value is UnauthorizedReport {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<Record<keyof UnauthorizedReport, unknown>>;
  return r.type === 'agentRuns.unauthorizedReport' && typeof r.baseUrl === 'string' && typeof r.prompted === 'boolean';
}

export interface ReportOptions {
  /** The person just ran a command that failed: say why even when the token is already known to be rejected. */
  interactive?: boolean;
}

export interface ReportDecision {
  /** The rejected base URL changed (pause or resume polling, context key, status bar). */
  changed: boolean;
  /** Show the gate's "Set API Token" prompt. */
  prompt: boolean;
  /** Why the report changed nothing, for the log. */
  ignored?: 'no base URL' | 'another base URL';
  /** The error to log (the report's own, unwrapped). */
  error: unknown;
}

export class RejectionState {
  private rejected: { baseUrl: string; since: number } | undefined;

  /** `now` is the clock the `startedAt` of `accepted()` uses (performance.now in the extension). */
  constructor(private readonly now: () => number) {}

  /** The base URL whose token is rejected, if any (it may no longer be the current one). */
  get rejectedBaseUrl(): string | undefined {
    return this.rejected?.baseUrl;
  }

  isRejected(currentBaseUrl: string | undefined): boolean {
    return this.rejected !== undefined && this.rejected.baseUrl === currentBaseUrl;
  }

  report(currentBaseUrl: string | undefined, input: unknown, options: ReportOptions = {}): ReportDecision {
    const report = isUnauthorizedReport(input) ? input : undefined;
    const error = report ? report.error : input;
    if (!currentBaseUrl) {
      return { changed: false, prompt: false, ignored: 'no base URL', error };
    }
    if (report && report.baseUrl !== currentBaseUrl) {
      return { changed: false, prompt: false, ignored: 'another base URL', error };
    }
    const prompted = report?.prompted === true;
    if (this.rejected?.baseUrl === currentBaseUrl) {
      return { changed: false, prompt: options.interactive === true && !prompted, error };
    }
    this.rejected = { baseUrl: currentBaseUrl, since: this.now() };
    return { changed: true, prompt: !prompted, error };
  }

  /** A token was stored or cleared for `baseUrl`. True when that lifted the rejection. */
  tokenChanged(baseUrl: string): boolean {
    return this.lift(this.rejected?.baseUrl === baseUrl);
  }

  /** The configured base URL changed. True when that lifted the rejection. */
  baseUrlChanged(currentBaseUrl: string | undefined): boolean {
    return this.lift(this.rejected !== undefined && this.rejected.baseUrl !== currentBaseUrl);
  }

  /**
   * The service answered a request that needs the token with success. A request sent before
   * the 401 proves nothing (it may have been answered before the token was revoked); one sent
   * after it, with the same token, shows the token works. True when that lifted the rejection.
   */
  accepted(baseUrl: string, startedAt: number): boolean {
    return this.lift(this.rejected !== undefined && this.rejected.baseUrl === baseUrl && startedAt >= this.rejected.since);
  }

  private lift(when: boolean): boolean {
    if (!when) return false;
    this.rejected = undefined;
    return true;
  }
}
