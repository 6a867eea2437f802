// Ages, durations and timestamps as the tree, tooltips and panel show them.
import type { L10n } from './l10n';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A short relative age for tree descriptions: "now", "40 s", "3 min", "5 h", "2 d", then a
 * date. Clock skew between the service and this machine can make `then` lie in the future:
 * that reads as "now", not as a negative age.
 */
export function formatAge(then: number, now: number, l10n: L10n): string {
  const age = Math.max(0, now - then);
  if (age < 10 * SECOND) {
    return l10n.t('now');
  }
  if (age < MINUTE) {
    return l10n.t('{0} s', Math.floor(age / SECOND));
  }
  if (age < HOUR) {
    return l10n.t('{0} min', Math.floor(age / MINUTE));
  }
  if (age < DAY) {
    return l10n.t('{0} h', Math.floor(age / HOUR));
  }
  if (age < 30 * DAY) {
    return l10n.t('{0} d', Math.floor(age / DAY));
  }
  return new Date(then).toLocaleDateString();
}

/** A duration for tooltips: "45 s", "3 min 20 s", "2 h 5 min". */
export function formatDuration(ms: number, l10n: L10n): string {
  const d = Math.max(0, ms);
  if (d < MINUTE) {
    return l10n.t('{0} s', Math.round(d / SECOND));
  }
  if (d < HOUR) {
    const m = Math.floor(d / MINUTE);
    const s = Math.floor((d % MINUTE) / SECOND);
    return s === 0 ? l10n.t('{0} min', m) : l10n.t('{0} min {1} s', m, s);
  }
  const h = Math.floor(d / HOUR);
  const m = Math.floor((d % HOUR) / MINUTE);
  return m === 0 ? l10n.t('{0} h', h) : l10n.t('{0} h {1} min', h, m);
}

/** A local date and time for tooltips. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toLocaleString();
}

/** A local time of day, hours and minutes on a 24-hour clock ("14:05"). */
export function formatClock(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

/** How long until the age label of something this old changes (to schedule a re-render). */
export function nextAgeTick(then: number, now: number): number {
  const age = Math.max(0, now - then);
  if (age < MINUTE) {
    return 10 * SECOND;
  }
  if (age < HOUR) {
    return MINUTE - (age % MINUTE);
  }
  return HOUR - (age % HOUR);
}
