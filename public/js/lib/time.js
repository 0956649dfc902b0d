// Times as a person reads them: the local clock, with the date and zone on
// hover, and relative phrases ("3 min ago", "expires in 13 min"). The API
// speaks UTC ISO strings; only this module turns them into words.
import { html } from './ui.js';

const CLOCK = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const FULL = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'long',
});

/** "14:03:12" in the viewer's zone ('' for no time). @param {string | null | undefined} iso */
export function clock(iso) {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? CLOCK.format(t) : '';
}

/** "27 Nov 2026, 14:03:12 CET (2026-11-27T13:03:12.280Z)": the hover text. @param {string} iso */
export function fullTime(iso) {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${FULL.format(t)} (${iso})` : iso;
}

/** "42 s", "13 min", "2 h 5 min", "3 days" for a span in milliseconds. @param {number} ms */
export function span(ms) {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  return `${Math.round(h / 24)} days`;
}

/** "3 min ago" / "in 13 min". @param {string} iso @param {number} now */
export function relative(iso, now) {
  const d = Date.parse(iso) - now;
  if (!Number.isFinite(d)) return '';
  if (Math.abs(d) < 1500) return 'just now';
  return d < 0 ? `${span(d)} ago` : `in ${span(d)}`;
}

/** A <time> showing the local clock, its date and zone on hover. */
export function Clock({ iso }) {
  if (!iso) return null;
  return html`<time datetime=${iso} title=${fullTime(iso)}>${clock(iso)}</time>`;
}

/** A <time> showing "3 min ago", its date and zone on hover. */
export function Ago({ iso, now }) {
  if (!iso) return null;
  return html`<time datetime=${iso} title=${fullTime(iso)}>${relative(iso, now)}</time>`;
}

/**
 * A lease's remaining time as words and whether it is close to lapsing: the
 * warning comes at a fifth of the lease's own length (at least 10 s), so a
 * 30 s lease warns at 10 s and a 15 min lease at 3 min.
 * @param {string} expiresAt @param {number | null} leaseMs @param {number} now
 */
export function leaseLeft(expiresAt, leaseMs, now) {
  const left = Date.parse(expiresAt) - now;
  const threshold = Math.max(10_000, (leaseMs ?? 60_000) / 5);
  if (!(left > 0)) return { text: `lease lapsed ${span(left)} ago`, warn: true };
  return { text: `expires in ${span(left)}`, warn: left < threshold };
}
