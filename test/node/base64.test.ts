import { describe, expect, it } from 'vitest';
import { checkBase64 } from '../support/base64-cases';

describe('base64 without the native methods (Node 20)', () => {
  it('encodes and decodes as RFC 4648 says', () => {
    expect(typeof (Uint8Array as { fromBase64?: unknown }).fromBase64).toBe('undefined');
    checkBase64();
  });
});
