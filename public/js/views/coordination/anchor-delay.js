// Why the feed's Wires are still pending: shown above the Wire table once the
// longest-waiting one has waited a few seconds (anchoring normally takes about
// one). The cause is what the HCS topics report (`GET /v1/topics`, each
// topic's `last_error`, e.g. "no consensus node is available: …" during an
// outage); the topics are asked only while this is shown.

import { usePoll } from '../../lib/poll.js';
import { clock, fullTime, span } from '../../lib/time.js';
import { html } from '../../lib/ui.js';

/** How long the oldest pending Wire waits before the page asks why. */
export const DELAY_SHOWN_MS = 3_000;

/**
 * @param {{ count: number, since: number, now: number }} props `count` Wires
 * of the feed wait, the oldest received at `since` (epoch ms).
 */
export function AnchorDelay({ count, since, now }) {
  const [answer] = usePoll(['/v1/topics'], { everyMs: 3_000 }) ?? [];
  const iso = new Date(since).toISOString();
  const waits = `${count} Wire${count === 1 ? '' : 's'} pending, the oldest since`;
  return html`
    <p id="anchor-delay" class="notice" role="status" data-cause=${causeOf(answer) ?? ''}>
      <strong>anchoring delayed</strong>: ${describe(answer)}. ${waits}
      ${' '}<time datetime=${iso} title=${fullTime(iso)}>${clock(iso)}</time>
      ${' '}(${span(now - since)}). They turn anchored once HCS takes them again.
    </p>
  `;
}

/**
 * The reported causes, one per distinct error, named by topic when several
 * topics fail. Only topics with Wires not yet on HCS are considered.
 * @param {import('../../lib/api.js').Loaded | undefined} answer
 */
function causeOf(answer) {
  if (!answer?.ok) return null;
  /** @type {{ name: string | null, last_error: string | null, total: number, anchored: number }[]} */
  const topics = answer.body?.topics ?? [];
  const failing = topics.filter((t) => t.last_error && t.total > t.anchored);
  const causes = [...new Set(failing.map((t) => t.last_error))];
  if (causes.length === 0) return null;
  if (causes.length === 1) return causes[0];
  return failing.map((t) => `${t.name ?? 'topic'}: ${t.last_error}`).join('; ');
}

function describe(answer) {
  if (!answer) return 'asking the HCS topics why';
  if (!answer.ok) return `the cause is unknown (GET /v1/topics: ${answer.reason})`;
  const cause = causeOf(answer);
  return cause
    ? cause.replace(/\.$/, '')
    : 'no topic reports an error (HCS or its mirror may be slow)';
}
