// What the shell says about getting in and about the server: the panel shown
// instead of a view while the token is missing or refused, who the token signs
// in as (the header), and, while the server does not answer, since when —
// the views keep their last known state under that notice.
import { access, signedInAs } from './lib/access.js';
import { server } from './lib/api.js';
import { setToken } from './lib/auth.js';
import { useNow } from './lib/poll.js';
import { useStore } from './lib/store.js';
import { clock, span } from './lib/time.js';
import { html } from './lib/ui.js';

/**
 * Whether the view can be shown: not while there is no token or it was refused
 * (the access panel instead), nor while the server is asked about it, so a
 * view never draws a refusal of its own.
 */
export function useAccess() {
  const { state } = useStore(access);
  return state === 'ok' || state === 'unverified'
    ? 'open'
    : state === 'checking'
      ? 'checking'
      : 'closed';
}

const HEADINGS = {
  none: 'A token is needed',
  rejected: 'This token was not accepted',
  forbidden: 'This token cannot read',
};

/** In place of the view: what is wrong with the token, and a field for another. */
export function AccessPanel() {
  const { state, detail, who } = useStore(access);
  const why =
    state === 'none'
      ? html`The dashboard reads this deployment with a bearer token. Open the dashboard link
          that <code>npm start</code> prints (it ends in <code>#token=…</code>), or paste a token
          here.`
      : state === 'rejected'
        ? html`this token was not accepted: ${detail}. Paste another one, or take a fresh one
            from <code>npm start</code> or <code>wirestream token</code>.`
        : `${who ? who.sub : 'This token'} was accepted, but it lacks the read scope every view needs (${detail}).`;
  const submit = (event) => {
    event.preventDefault();
    setToken(new FormData(event.currentTarget).get('token')?.toString() ?? '');
  };
  return html`
    <section id="access" class="access" data-state=${state} aria-labelledby="access-title">
      <h2 id="access-title">${HEADINGS[state]}</h2>
      <p id="access-why" role="alert">${why}</p>
      <form onSubmit=${submit}>
        <input name="token" type="password" aria-label="bearer token" placeholder="bearer token" required />
        <button type="submit">Use this token</button>
      </form>
      <p class="muted">It is kept in this tab only (session storage), never in an address sent to the server.</p>
    </section>
  `;
}

/** The header's sign-in line: who the token is, once the server took it. */
export function SignedIn() {
  const { state, who } = useStore(access);
  const text =
    state === 'ok'
      ? signedInAs(who)
      : state === 'none'
        ? 'no token'
        : state === 'rejected'
          ? 'token not accepted'
          : state === 'forbidden'
            ? 'token cannot read'
            : state === 'unverified'
              ? `token for ${who?.sub ?? 'admin'} (not checked: server unreachable)`
              : 'checking the token…';
  const expires = who?.exp ? `expires ${new Date(who.exp * 1000).toLocaleString()}` : undefined;
  return html`<span id="signed-in" data-state=${state} title=${expires}>${text}</span>`;
}

/** While the server does not answer: since when, above whatever the view last showed. */
export function Unreachable() {
  const { downSince } = useStore(server);
  const now = useNow(1000);
  if (downSince === null) return null;
  const since = clock(new Date(downSince).toISOString());
  return html`<p id="unreachable" class="notice" role="status">
    server unreachable since ${since}<span aria-hidden="true"> (${span(now - downSince)} ago)</span>: showing
    the last known state
  </p>`;
}
