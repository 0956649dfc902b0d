import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { authHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { racerSurfaces } from './helpers/heimdall';
import { call, connect } from './helpers/mcp';

// Issue 27's acceptance: 50 identities racing `make_claim` over MCP (the
// official SDK client, 50 connections) for overlapping globs — exactly one
// holds each contested surface, and every loser's tool error names it.

describe('50 identities racing make_claim over MCP', () => {
  it('one holder per contested surface; every loser is told the holder', async () => {
    const ws = uid('race').toLowerCase();
    const AREAS = 5;
    const subs = Array.from({ length: 50 }, (_, i) => `agent:${uid(`mcp-racer-${i}-`)}`);
    const clients = await Promise.all(
      subs.map((sub, i) =>
        connect(i % 2 === 0 ? 'sessionless' : 'session', { sub, name: 'racer' }),
      ),
    );
    try {
      const results = await Promise.all(
        clients.map((c, i) =>
          call(c, 'make_claim', {
            workspace: ws,
            surfaces: racerSurfaces(i, AREAS),
            task: `T-${i}`,
          }),
        ),
      );
      const res = await SELF.fetch(`http://localhost/v1/workspaces/${ws}/claims`, {
        headers: await authHeaders('agent:reader'),
      });
      const live = ((await res.json()) as { claims: { haid: string; surfaces: string[] }[] })
        .claims;
      expect(live).toHaveLength(AREAS);
      for (let area = 0; area < AREAS; area++) {
        const holder = live.find((c) => String(c.surfaces[0]).startsWith(`area${area}/`));
        expect(holder, `area ${area}`).toBeDefined();
        results.forEach((r, i) => {
          if (i % AREAS !== area) return;
          if (`${subs[i]}/racer` === holder?.haid) {
            expect(r.isError, `racer ${i}`).toBeFalsy();
          } else {
            expect(r.isError, `racer ${i}`).toBe(true);
            expect(r.text.problem).toMatchObject({
              argument: 'surfaces',
              status: 409,
              holder: holder?.haid,
            });
          }
        });
      }
      expect(results.filter((r) => !r.isError)).toHaveLength(AREAS);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
