/** Times, durations and numbers for the panel in the page's locale (cached `Intl` formatters), and the `<time>` element. */
import { escapeHtml } from './renderText';

const formatterCache = new Map<string, Intl.RelativeTimeFormat | Intl.DateTimeFormat | Intl.NumberFormat>();

function cached<T extends Intl.RelativeTimeFormat | Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let f = formatterCache.get(key);
  if (!f) {
    f = make();
    formatterCache.set(key, f);
  }
  return f as T;
}

/** A locale Intl accepts, falling back to English for a bad tag. */
export function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

export function isValidTimestamp(ts: unknown): ts is number {
  return typeof ts === 'number' && Number.isFinite(ts) && Math.abs(ts) <= 8.64e15;
}

export function formatExactTime(ts: number, locale: string): string {
  const loc = safeLocale(locale);
  return cached(`dt:${loc}`, () => new Intl.DateTimeFormat(loc, { dateStyle: 'medium', timeStyle: 'medium' })).format(ts);
}

/** "now", "5 minutes ago", "in 2 hours", … in the given locale. */
export function formatRelativeTime(ts: number, now: number, locale: string): string {
  const loc = safeLocale(locale);
  const rtf = cached(`rt:${loc}`, () => new Intl.RelativeTimeFormat(loc, { numeric: 'auto', style: 'long' }));
  const diff = ts - now;
  const abs = Math.abs(diff);
  const sign = diff < 0 ? -1 : 1;
  if (abs < 45_000) {
    return rtf.format(0, 'second');
  }
  if (abs < 3_600_000) {
    return rtf.format(sign * Math.max(1, Math.round(abs / 60_000)), 'minute');
  }
  if (abs < 86_400_000) {
    return rtf.format(sign * Math.round(abs / 3_600_000), 'hour');
  }
  if (abs < 30 * 86_400_000) {
    return rtf.format(sign * Math.round(abs / 86_400_000), 'day');
  }
  return cached(`d:${loc}`, () => new Intl.DateTimeFormat(loc, { dateStyle: 'medium' })).format(ts);
}

export function formatNumber(n: number, locale: string): string {
  const loc = safeLocale(locale);
  return cached(`n:${loc}`, () => new Intl.NumberFormat(loc)).format(n);
}

/** "2 h 5 min", "3 min 12 s", "45 s" with localized narrow units; at most two units. */
export function formatDuration(ms: number, locale: string): string {
  const loc = safeLocale(locale);
  const unit = (u: 'day' | 'hour' | 'minute' | 'second', v: number) =>
    cached(`u:${u}:${loc}`, () => new Intl.NumberFormat(loc, { style: 'unit', unit: u, unitDisplay: 'narrow' })).format(v);
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = total % 60;
  if (d > 0) {
    return h > 0 ? `${unit('day', d)} ${unit('hour', h)}` : unit('day', d);
  }
  if (h > 0) {
    return m > 0 ? `${unit('hour', h)} ${unit('minute', m)}` : unit('hour', h);
  }
  if (m > 0) {
    return s > 0 ? `${unit('minute', m)} ${unit('second', s)}` : unit('minute', m);
  }
  return unit('second', s);
}

/** `<time>` with a relative label, the exact time on hover, and `data-ts` for live refresh. */
export function renderTime(ts: number, now: number, locale: string, cls = 'time'): string {
  const iso = new Date(ts).toISOString();
  return `<time class="${cls}" datetime="${iso}" data-ts="${ts}" title="${escapeHtml(formatExactTime(ts, locale))}">${escapeHtml(
    formatRelativeTime(ts, now, locale),
  )}</time>`;
}
