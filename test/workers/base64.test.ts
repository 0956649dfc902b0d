import { describe, expect, it } from 'vitest';
import { checkBase64 } from '../support/base64-cases';

describe('base64 with workerd’s native methods', () => {
  it('encodes and decodes as RFC 4648 says', () => {
    expect(typeof (Uint8Array as { fromBase64?: unknown }).fromBase64).toBe('function');
    checkBase64();
  });
});
