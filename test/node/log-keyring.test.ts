import { describe, expect, it } from 'vitest';
import { logKeys } from '../../src/anchor/log/keyring';
import { generateKeys, verifierKeyOf } from '../../src/anchor/log/note';

/**
 * `LOG_SIGNER_KEY` and `LOG_VERIFIER_KEYS` read once (README, Rotating the log
 * key): the earlier keys, comma- or space-separated, of the same name; each
 * mistake named by its entry. test/node/log-key-rotation.test.ts shows what a
 * deployment does with them.
 */
describe('the log keyring', () => {
  it('lists the current key first, then the earlier ones, separated by commas or whitespace', async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => generateKeys('keyring.test')));
    if (!a || !b || !c) throw new Error('keys');
    const keys = await logKeys({
      LOG_SIGNER_KEY: c.signer,
      LOG_VERIFIER_KEYS: ` ${b.verifier},\n${a.verifier}  ${b.verifier}, ${c.verifier}`,
    });
    if (!keys.ok) throw new Error(keys.detail);
    // The current key and repeats are listed once.
    expect(keys.value.verifiers.map(verifierKeyOf)).toEqual([c.verifier, b.verifier, a.verifier]);
    const none = await logKeys({ LOG_SIGNER_KEY: c.signer, LOG_VERIFIER_KEYS: '' });
    expect(none.ok && none.value.verifiers.map(verifierKeyOf)).toEqual([c.verifier]);
  });

  it('names the entry that is not a verifier key, or of another log, and a bad signer key', async () => {
    const current = await generateKeys('keyring.test');
    const other = await generateKeys('another.log');
    const mangled = `${current.verifier.slice(0, -4)}AAA=`;
    expect(
      await logKeys({ LOG_SIGNER_KEY: current.signer, LOG_VERIFIER_KEYS: `${other.verifier}` }),
    ).toEqual({
      ok: false,
      field: 'LOG_VERIFIER_KEYS',
      detail: `LOG_VERIFIER_KEYS entry 1 is a key of the log "another.log", not "keyring.test" (LOG_SIGNER_KEY's): a rotated key keeps its name`,
    });
    for (const [entries, n, shown] of [
      [`${current.verifier},${mangled}`, 2, mangled],
      ['PRIVATE+KEY+keyring.test+00000000+AAAA', 1, 'PRIVATE+KEY+keyring.test+00000000+AAAA'],
    ] as const) {
      const read = await logKeys({ LOG_SIGNER_KEY: current.signer, LOG_VERIFIER_KEYS: entries });
      expect(read).toEqual({
        ok: false,
        field: 'LOG_VERIFIER_KEYS',
        detail: `LOG_VERIFIER_KEYS entry ${n} ("${shown}") is not a verifier key <name>+<key id>+<base64 key>`,
      });
    }
    const unsigned = await logKeys({ LOG_SIGNER_KEY: 'nope', LOG_VERIFIER_KEYS: current.verifier });
    expect(unsigned).toMatchObject({ ok: false, field: 'LOG_SIGNER_KEY' });
  });
});
