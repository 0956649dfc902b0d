import { describe, expect, it } from 'vitest';
import {
  checkpointText,
  generateKeys,
  openNote,
  parseCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifierKeyOf,
} from '../../src/anchor/log/note';

// golang.org/x/mod/sumdb/note's documented example: the note format is C2SP signed-note.
const SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('signed notes (C2SP signed-note, ed25519)', () => {
  it("signs Go's example note byte for byte and opens it", async () => {
    const signer = await parseSignerKey(SKEY);
    expect(signer).not.toBeNull();
    if (!signer) return;
    expect(verifierKeyOf(signer)).toBe(VKEY);
    expect(await signNote(TEXT, signer)).toBe(NOTE);
    const verifier = await parseVerifierKey(VKEY);
    expect(verifier && (await openNote(NOTE, verifier))).toEqual({
      ok: true,
      text: TEXT,
      verifier,
    });
  });

  it('refuses a changed text, another key, and malformed keys', async () => {
    const verifier = await parseVerifierKey(VKEY);
    if (!verifier) throw new Error('the example key parses');
    expect(await openNote(NOTE.replace('cryptography', 'cryptographY'), verifier)).toEqual({
      ok: false,
      reason: 'the signature of PeterNeumann does not verify',
    });
    const other = await generateKeys('PeterNeumann');
    const otherVerifier = await parseVerifierKey(other.verifier);
    expect(otherVerifier && (await openNote(NOTE, otherVerifier))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^no signature by PeterNeumann\+[0-9a-f]{8}$/),
    });
    expect(await parseVerifierKey(VKEY.replace('c74f20a3', 'c74f20a4'))).toBeNull();
    expect(await parseVerifierKey(`${VKEY}+x`)).toBeNull();
    expect(await parseVerifierKey(VKEY.replace('ARpc', 'AhRp'))).toBeNull();
    expect(await parseSignerKey(SKEY.replace('PRIVATE', 'PUBLIC'))).toBeNull();
  });

  it('makes new keys whose notes open with their verifier key', async () => {
    const keys = await generateKeys('wirestream.test/log');
    const signer = await parseSignerKey(keys.signer);
    const verifier = await parseVerifierKey(keys.verifier);
    if (!signer || !verifier) throw new Error('generated keys parse');
    const note = await signNote('hello\n', signer);
    expect(await openNote(note, verifier)).toEqual({ ok: true, text: 'hello\n', verifier });
    await expect(generateKeys('has space')).rejects.toThrow(/no spaces/);
  });

  it('opens a note with whichever of several keys of one name signed it, by key id (rotation)', async () => {
    const [old, current] = await Promise.all([
      generateKeys('wirestream.test/rot'),
      generateKeys('wirestream.test/rot'),
    ]);
    const oldVerifier = await parseVerifierKey(old.verifier);
    const newVerifier = await parseVerifierKey(current.verifier);
    const oldSigner = await parseSignerKey(old.signer);
    if (!oldVerifier || !newVerifier || !oldSigner) throw new Error('generated keys parse');
    const note = await signNote('old era\n', oldSigner);
    expect(await openNote(note, [newVerifier, oldVerifier])).toEqual({
      ok: true,
      text: 'old era\n',
      verifier: oldVerifier,
    });
    const names = `wirestream.test/rot+${current.verifier.split('+')[1]}`;
    expect(await openNote(note, [newVerifier])).toEqual({
      ok: false,
      reason: `no signature by ${names}`,
    });
    const forged = note.replace('old era', 'new era');
    expect(await openNote(forged, [newVerifier, oldVerifier])).toEqual({
      ok: false,
      reason: 'the signature of wirestream.test/rot does not verify',
    });
  });
});

describe('checkpoints (C2SP tlog-checkpoint)', () => {
  it('writes and reads origin, size, root and extension lines', () => {
    const root = new Uint8Array(32).fill(7);
    const text = checkpointText({
      origin: 'wirestream.test/t/0.0.5',
      size: 42,
      root,
      extensions: ['prev abc'],
    });
    expect(text).toBe(
      `wirestream.test/t/0.0.5\n42\n${Buffer.from(root).toString('base64')}\nprev abc\n`,
    );
    expect(parseCheckpoint(text)).toEqual({
      origin: 'wirestream.test/t/0.0.5',
      size: 42,
      root,
      extensions: ['prev abc'],
    });
    expect(parseCheckpoint('o\n01\nAAAA\n')).toBeNull();
    expect(parseCheckpoint('o\n1\nAAAA\n')).toBeNull();
  });
});

describe('the log key npm start generates (tools/dev-tokens.mjs)', () => {
  it('is a signer key note.ts reads, whose verifier opens what it signs', async () => {
    const { logSignerKey } = await import('../../tools/dev-tokens.mjs');
    const signer = await parseSignerKey(logSignerKey('wirestream.local'));
    expect(signer?.name).toBe('wirestream.local');
    if (!signer) return;
    const verifier = await parseVerifierKey(verifierKeyOf(signer));
    if (!verifier) throw new Error('no verifier');
    const note = await signNote(`wirestream.local/0.0.1001\n1\n${'A'.repeat(43)}=\n`, signer);
    expect((await openNote(note, verifier)).ok).toBe(true);
  });
});
