import { expect } from 'vitest';
import { fromBase64, parseBase64, toBase64 } from '../../src/protocol/base64';

/**
 * What `src/protocol/base64.ts` must do in whichever runtime runs it: the
 * workers pool takes its native path (workerd has `Uint8Array.fromBase64`),
 * the node pool its fallback (Node 20 does not). Checked against RFC 4648's
 * vectors and a byte-at-a-time reference over lengths around every boundary.
 */
export function checkBase64(): void {
  const vectors: [string, string][] = [
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg=='],
    ['fooba', 'Zm9vYmE='],
    ['foobar', 'Zm9vYmFy'],
  ];
  for (const [plain, encoded] of vectors) {
    expect(toBase64(new TextEncoder().encode(plain))).toBe(encoded);
    expect(new TextDecoder().decode(fromBase64(encoded))).toBe(plain);
  }
  // Every byte value, and lengths past the fallback's 32 KiB chunks.
  for (const length of [1, 2, 3, 255, 256, 257, 600, 0x8000 - 1, 0x8000, 0x8000 + 1, 70_001]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + (i >> 8)) & 0xff);
    let reference = '';
    for (const b of bytes) reference += String.fromCharCode(b);
    const encoded = btoa(reference);
    expect(toBase64(bytes)).toBe(encoded);
    expect(fromBase64(encoded)).toEqual(bytes);
  }
  // Untrusted text: only canonical, padded base64 decodes.
  expect(parseBase64('Zm9vYg==')).toEqual(new TextEncoder().encode('foob'));
  for (const bad of ['Zm9vYg', 'Zm9v Yg==', 'Zm9vYg=!', 'Z==='])
    expect(parseBase64(bad)).toBeNull();
  // Text that is not base64 throws rather than decoding to garbage.
  expect(() => fromBase64('Zm9v*')).toThrow();
}
