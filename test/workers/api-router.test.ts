import { RegExpRouter } from 'hono/router/reg-exp-router';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app';

// Hono's default router matches with one regular expression per method
// (RegExpRouter) and falls back, for the whole table, to a trie walk that
// costs every request ~60 µs of CPU when one route puts a literal segment
// where another has a parameter (ARCHITECTURE.md, "One parameter per position").
describe('the route table', () => {
  it('is one the regular-expression router can match: no literal beside a parameter', () => {
    const router = new RegExpRouter<string>();
    const conflicts: string[] = [];
    for (const route of createApp().routes) {
      try {
        router.add(route.method, route.path, route.path);
      } catch {
        conflicts.push(`${route.method} ${route.path}`);
      }
    }
    expect(conflicts).toEqual([]);
    expect(() => router.match('POST', '/v1/streams/project:a/wires')).not.toThrow();
  });
});
