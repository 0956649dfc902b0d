// The dashboard shell: navigation between the views of ./views/index.js, the
// token (who it signs in as, or a panel saying why it does not: ./status.js),
// and the badge of whichever live feed the shown view follows. Each
// view is its own module; what they share is in ./lib (the SDK client and
// token, live feeds, polling reads, hash routes).

import { server } from './lib/api.js';
import { setToken, token } from './lib/auth.js';
import { absent, connection } from './lib/live-feed.js';
import { useNow } from './lib/poll.js';
import { hrefOf, navigate, useRoute } from './lib/router.js';
import { useStore } from './lib/store.js';
import { html, render, useEffect } from './lib/ui.js';
import { AccessPanel, SignedIn, Unreachable, useAccess } from './status.js';
import { VIEWS } from './views/index.js';

function App() {
  const route = useRoute();
  const view = VIEWS.find((v) => v.id === route.view) ?? VIEWS[0];
  const gate = useAccess();
  const down = useStore(server).downSince !== null;
  // `/`, `/?project=kv` and unknown views land on the first view, named in the address.
  useEffect(() => {
    if (route.view !== view.id) navigate(hrefOf(view.id, route.params), { replace: true });
  }, [route, view]);
  return html`
    <a id="skip" class="skip" href="#view" onClick=${skipToView}>Skip to the ${view.title.toLowerCase()} view</a>
    <header>
      <h1>Wirestream</h1>
      <nav id="views" class="views" aria-label="views">
        ${VIEWS.map(
          (v) => html`<a
            href=${hrefOf(v.id)}
            data-view=${v.id}
            aria-current=${v === view ? 'page' : undefined}
            >${v.title}</a
          >`,
        )}
      </nav>
      <${TokenField} />
      <${ConnectionBadge} />
    </header>
    <main id="view" data-view=${view.id} key=${view.id} tabindex="-1" data-stale=${down || undefined}>
      <${Unreachable} />
      ${
        gate === 'open'
          ? html`<${view.View} route=${route} />`
          : gate === 'closed'
            ? html`<${AccessPanel} />`
            : html`<p class="muted">checking the token…</p>`
      }
    </main>
  `;
}

/** The skip link moves focus past the header (the fragment holds the route, so no jump). */
function skipToView(event) {
  event.preventDefault();
  document.getElementById('view')?.focus();
}

function TokenField() {
  const value = useStore(token);
  return html`
    <details id="auth">
      <summary><${SignedIn} /></summary>
      <input
        id="token"
        type="password"
        placeholder="bearer token (kept in this tab only)"
        aria-label="bearer token"
        value=${value}
        onChange=${(event) => setToken(event.currentTarget.value)}
      />
    </details>
  `;
}

function ConnectionBadge() {
  const { state: live, detail, tries = 0, nextAt = null } = useStore(connection);
  const missing = useStore(absent);
  const now = useNow(1000);
  const state = missing && live === 'live' ? 'missing' : live;
  const text =
    state === 'missing'
      ? `no such ${missing}`
      : state === 'reconnecting'
        ? reconnecting(tries, nextAt, now)
        : state === 'error'
          ? (detail ?? 'error')
          : state;
  return html`<span id="conn" class="badge" data-state=${state} data-tries=${tries || undefined}
    title=${state === 'reconnecting' ? detail : undefined} role="status" aria-live="polite" aria-atomic="true"
    >${text}</span
  >`;
}

/**
 * "reconnecting… try 3 in 2 s (2 failed)": when the next try is, and how many
 * were made. The countdown is not announced (the badge is a live region).
 */
function reconnecting(tries, nextAt, now) {
  const failed = tries > 1 ? ` (${tries - 1} failed)` : '';
  if (nextAt === null) return `reconnecting… try ${tries} under way${failed}`;
  const wait = Math.max(0, Math.ceil((nextAt - now) / 1000));
  return html`reconnecting… try ${tries}<span aria-hidden="true"> in ${wait} s</span>${failed}`;
}

render(html`<${App} />`, document.getElementById('app'));
