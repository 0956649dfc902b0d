// The capsule dependency graph: one column per depth (a capsule sits right of
// everything it depends on), an arrow from each capsule to each of its
// `depends`, and the same edges as a list under it (readable without the
// picture, and what the browser test checks).

import { html } from '../../lib/ui.js';

const W = 120;
const H = 28;
const GAP_X = 48;
const GAP_Y = 14;

/** Each capsule's depth: 0 with no depends, else one more than its deepest dependency. */
function depths(capsules) {
  const byId = new Map(capsules.map((c) => [c.id, c]));
  const depth = new Map();
  const visit = (id, seen) => {
    if (depth.has(id)) return depth.get(id);
    const capsule = byId.get(id);
    // depends are acyclic and existing (the decider refuses others); guard anyway.
    if (!capsule || seen.has(id)) return 0;
    seen.add(id);
    const d = Math.max(-1, ...capsule.depends.map((dep) => visit(dep, seen))) + 1;
    depth.set(id, d);
    return d;
  };
  for (const c of capsules) visit(c.id, new Set());
  return depth;
}

export function CapsuleGraph({ capsules }) {
  if (capsules.length === 0) return html`<p class="muted">no capsules yet</p>`;
  const depth = depths(capsules);
  const rows = new Map();
  const at = new Map();
  for (const c of capsules) {
    const d = depth.get(c.id) ?? 0;
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    at.set(c.id, { x: d * (W + GAP_X), y: row * (H + GAP_Y) });
  }
  const width = (Math.max(...depth.values()) + 1) * (W + GAP_X) - GAP_X;
  const height = Math.max(...rows.values()) * (H + GAP_Y) - GAP_Y;
  const edges = capsules.flatMap((c) => c.depends.map((dep) => ({ from: c.id, to: dep })));
  return html`
    <svg class="capsule-graph" viewBox=${`-2 -2 ${width + 4} ${height + 4}`}
      width=${width + 4} height=${height + 4} role="img" aria-label="capsule dependency graph">
      <defs>
        <marker id="capsule-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8"
          markerHeight="8" orient="auto"><path d="M0,0 L8,4 L0,8 z" /></marker>
      </defs>
      ${edges.map(({ from, to }) => {
        const a = at.get(from);
        const b = at.get(to);
        if (!a || !b) return null;
        return html`<line key=${`${from}>${to}`} class="capsule-edge" data-from=${from}
          data-to=${to} x1=${a.x} y1=${a.y + H / 2} x2=${b.x + W} y2=${b.y + H / 2}
          marker-end="url(#capsule-arrow)" />`;
      })}
      ${capsules.map((c) => {
        const p = at.get(c.id);
        return html`<g key=${c.id} class="capsule-node" data-capsule=${c.id}
          transform=${`translate(${p.x},${p.y})`}>
          <title>${c.what}</title>
          <rect width=${W} height=${H} rx="4" />
          <text x=${W / 2} y=${H / 2 + 4} text-anchor="middle">${c.id}</text>
        </g>`;
      })}
    </svg>
    <ul class="capsule-edges">
      ${
        edges.length === 0
          ? html`<li class="muted">no dependencies</li>`
          : edges.map(
              ({ from, to }) =>
                html`<li key=${`${from}>${to}`} data-from=${from} data-to=${to}>${from} depends on ${to}</li>`,
            )
      }
    </ul>
  `;
}
