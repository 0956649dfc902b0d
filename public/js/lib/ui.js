// The UI library every view uses: Preact with htm, so components are tagged
// templates (html`<p>${text}</p>`) and need no JSX step. Bundled with the app
// into the served /js/dashboard.js by tools/build-client.mjs (esbuild).
import htm from 'htm';
import { h } from 'preact';

export { Fragment, h, render } from 'preact';
export { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';

/** `html` tagged templates render Preact elements. */
export const html = htm.bind(h);

/** A polled answer drawn by `draw(body)`: "loading…" before it comes, its reason if refused. */
export function answered(answer, draw) {
  if (!answer) return html`<p class="muted">loading…</p>`;
  return answer.ok ? draw(answer.body) : html`<p class="na">${answer.reason}</p>`;
}
