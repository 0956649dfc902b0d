import { describe, expect, it } from 'vitest';
import { MAX_ENTRY_BYTES } from '../../src/anchor/log/tiles';
import { aesKey, sealWire } from '../../src/private/seal';
import { parseAppend, type Wire, wireMessage } from '../../src/protocol';
import {
  ADDED_BYTES,
  anchoredBytes,
  entrySizeCheck,
  largestAnchoredBytes,
  largestLogWireBytes,
  wireSizeProblem,
} from '../../src/topic/log-unavailable';

/**
 * The bound behind log mode's WIRE_MAX_BYTES check (src/topic/log-unavailable.ts):
 * an accepted envelope of B bytes, once the server has filled in its fields
 * (and sealed its payload, for a private project), is never longer than
 * `largestAnchoredBytes(B)`, so under the largest WIRE_MAX_BYTES it allows,
 * every anchored envelope fits a tlog-tiles entry.
 */

const UTF8 = new TextEncoder();
const bytes = (text: string) => UTF8.encode(text).byteLength;
/** A longest stream id (256 characters: a generic kind, its id and a sub-id). */
const LONGEST_STREAM = `${'k'.repeat(32)}:${'a'.repeat(128)}:${'b'.repeat(94)}`;

/** A body of exactly `size` bytes, its payload padded. */
function bodyOf(size: number, envelope: Record<string, unknown>): Record<string, unknown> {
  const body = { ...envelope, payload: { concern: 'naming', notes: '' } };
  const pad = size - bytes(JSON.stringify(body));
  return { ...body, payload: { concern: 'naming', notes: 'n'.repeat(pad) } };
}

/** The Wire the server stores for `body`, with the largest sequence number. */
function accepted(body: Record<string, unknown>, stream = LONGEST_STREAM): Wire {
  const parsed = parseAppend(body, stream);
  if (!parsed.ok) throw new Error(parsed.detail);
  return { ...parsed.draft, stream_seq: Number.MAX_SAFE_INTEGER };
}

describe("the largest anchored envelope for an accepted envelope's size", () => {
  it('states the figures the README gives', () => {
    expect(ADDED_BYTES).toBe(2591);
    expect(largestLogWireBytes(false)).toBe(62_944);
    expect(largestLogWireBytes(true)).toBe(47_060);
    for (const sealed of [false, true]) {
      expect(largestAnchoredBytes(largestLogWireBytes(sealed), sealed)).toBeLessThanOrEqual(
        MAX_ENTRY_BYTES,
      );
      expect(largestAnchoredBytes(largestLogWireBytes(sealed) + 1, sealed)).toBeGreaterThan(
        MAX_ENTRY_BYTES,
      );
    }
  });

  it('bounds a Wire 1.0 body, to which the server adds wire_id, stream_id, stream_seq and both ids', () => {
    const size = largestLogWireBytes(false);
    const body = bodyOf(size, {
      wire: '1.0',
      type: 'review.concern',
      sender: 'agent:quinn-07',
      ts: '2026-11-27T18:00:00Z',
    });
    expect(bytes(JSON.stringify(body))).toBe(size);
    expect(LONGEST_STREAM).toHaveLength(256);
    const anchored = bytes(wireMessage(accepted(body)));
    expect(anchored).toBeGreaterThan(size);
    expect(anchored).toBeLessThanOrEqual(largestAnchoredBytes(size, false));
  });

  it('bounds a private Wire sealed with a committed signature and the longest ids', async () => {
    const size = largestLogWireBytes(true);
    const body = bodyOf(size, {
      wire: '1.1',
      wire_id: 'w'.repeat(128),
      stream_id: LONGEST_STREAM,
      correlation_id: '€'.repeat(256),
      type: 'review.concern',
      sender: `agent:${'q'.repeat(122)}`,
      ts: '2026-11-27T18:00:00.000+05:30',
      sig: { kid: 'k'.repeat(64), alg: 'Ed25519', value: 'A'.repeat(86), salt: 'A'.repeat(43) },
    });
    const key = await aesKey(crypto.getRandomValues(new Uint8Array(32)));
    const sealed = bytes(await sealWire(accepted(body), 'dk-0123456789abcdef', key));
    expect(sealed).toBeGreaterThan(size);
    expect(sealed).toBeLessThanOrEqual(largestAnchoredBytes(bytes(JSON.stringify(body)), true));
    expect(sealed).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
  });

  it('names WIRE_MAX_BYTES and the largest it may be, with private projects or without', () => {
    expect(wireSizeProblem({})).toBeNull();
    expect(wireSizeProblem({ WIRE_MAX_BYTES: '62944' })).toBeNull();
    expect(wireSizeProblem({ WIRE_MAX_BYTES: '62945' })).toContain(
      'a log needs WIRE_MAX_BYTES at most 62944',
    );
    const privately = { PRIVATE_PROJECTS: '{"acme":{"streams":["project:acme"]}}' };
    expect(wireSizeProblem({ ...privately, WIRE_MAX_BYTES: '47060' })).toBeNull();
    expect(wireSizeProblem({ ...privately, WIRE_MAX_BYTES: '62944' })).toContain(
      'a log needs WIRE_MAX_BYTES at most 47060',
    );
  });
});

describe("each Wire's own anchored size, checked by the stream before it stores it", () => {
  const PRIVATELY = { PRIVATE_PROJECTS: '{"acme":{"streams":["project:acme-"]}}' };
  /** A stored Wire of `stream` whose payload holds `numbers` numbers 1e20 and `notes`. */
  function wireOf(stream: string, numbers: number, notes = '', sig?: Record<string, string>): Wire {
    const body = {
      wire: '1.1',
      wire_id: '01JB7Z0000000000000000ABCD',
      stream_id: stream,
      type: 'review.concern',
      sender: 'agent:quinn-07',
      ts: '2026-11-29T10:00:00.000Z',
      ...(sig ? { sig } : {}),
      payload: { concern: 'naming', notes, n: Array.from({ length: numbers }, () => 1e20) },
    };
    return accepted({ ...body, stream_id: stream }, stream);
  }

  it('counts the bytes anchoring writes, sealed or not, to the byte', async () => {
    const key = await aesKey(crypto.getRandomValues(new Uint8Array(32)));
    const salt = {
      kid: 'k'.repeat(20),
      alg: 'Ed25519',
      value: 'A'.repeat(86),
      salt: 'A'.repeat(43),
    };
    for (const wire of [
      wireOf('project:acme-1', 10),
      wireOf('project:acme-1', 3000, 'é€😀'.repeat(500)),
      wireOf('project:acme-1', 7, '', salt),
      wireOf('project:acme-1', 2999, 'x', salt),
    ]) {
      expect(anchoredBytes(wire, false)).toBe(bytes(wireMessage(wire)));
      const sealed = await sealWire(wire, 'dk-0123456789abcdef', key);
      expect(anchoredBytes(wire, true)).toBe(bytes(sealed));
    }
  });

  it('refuses a Wire whose numbers outgrow an entry once written as RFC 8785 does', () => {
    const check = entrySizeCheck({});
    // 2,900 numbers: 14.5 KB as `1e20`, 64 KB as 21 digits each: fits.
    expect(check(wireOf('project:pub-1', 2_900))).toBeNull();
    const refused = check(wireOf('project:pub-1', 3_000));
    expect(refused?.code).toBe('envelope-too-large');
    expect(refused?.detail).toMatch(/^the Wire would take 66\d{3} bytes once anchored, /);
  });

  it("bounds a private project's Wires by their sealed size, and nothing under a WIRE_MAX_BYTES no log takes", () => {
    const check = entrySizeCheck(PRIVATELY);
    // ~53 KB in the clear: fits unsealed, not once sealed (a third more as base64).
    const wire = wireOf('project:acme-1', 2_400);
    expect(anchoredBytes(wire, false)).toBeLessThan(MAX_ENTRY_BYTES);
    expect(check({ ...wire, stream_id: 'project:pub-1' })).toBeNull();
    expect(check(wire)?.detail).toContain('(its payload sealed: a private project)');
    // No topic keeps a log: envelope mode chunks any size, so no entry bound.
    expect(entrySizeCheck({ WIRE_MAX_BYTES: '200000' })(wireOf('project:pub-1', 9_000))).toBeNull();
  });
});
