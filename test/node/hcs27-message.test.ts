// A log-mode checkpoint's HCS message is an HCS-27 `register` message (issue
// 31): HCS-27's schema rules (written down in independent-hcs27.ts from the
// standards-sdk's schema, not imported) accept it, it fits one HCS chunk with
// the longest key name and topic id allowed, it states what its C2SP note
// states, and a reader refuses metadata that disagrees with the note.
import { describe, expect, it } from 'vitest';
import { checkpointMessage, readCheckpointMessage } from '../../src/anchor/log/hcs27';
import {
  checkpointText,
  generateKeys,
  MAX_KEY_NAME_BYTES,
  openNote,
  parseSignerKey,
  signNote,
} from '../../src/anchor/log/note';
import { HCS_MESSAGE_BYTES, hcs27SchemaProblems, readHcs27 } from './independent-hcs27';

const LONGEST_TOPIC = '9999999999999999999.9999999999999999999.9999999999999999999';
const LARGEST_SIZE = 9_007_199_254_740_991; // 16 digits, the most a checkpoint size has

async function chainOf(name: string, topic: string, sizes: number[]) {
  const keys = await generateKeys(name);
  const signer = await parseSignerKey(keys.signer);
  if (!signer) throw new Error('no signer');
  const messages: string[] = [];
  let prevNote: string | null = null;
  for (const [i, size] of sizes.entries()) {
    const root = crypto.getRandomValues(new Uint8Array(32));
    const prevHash = prevNote
      ? Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(prevNote))).toString('base64')
      : null;
    const extensions = prevHash ? [`prev ${prevHash}`] : [];
    const note = await signNote(
      checkpointText({ origin: `${name}/${topic}`, size, root, extensions }),
      signer,
    );
    messages.push(checkpointMessage(note, messages[i - 1] ?? null));
    prevNote = note;
  }
  return { messages, signer };
}

describe('the HCS-27 checkpoint message', () => {
  it('passes HCS-27 schema rules and fits one HCS chunk with the longest key name and topic id', async () => {
    // 64 bytes, two of them in an 'é': the limit is in bytes.
    const name = `é${'w'.repeat(MAX_KEY_NAME_BYTES - 5)}.io`;
    const { messages, signer } = await chainOf(name, LONGEST_TOPIC, [
      LARGEST_SIZE - 1,
      LARGEST_SIZE,
    ]);
    const bytes = messages.map((m) => Buffer.byteLength(m, 'utf8'));
    console.log(
      `hcs27-message: ${bytes.join(', ')} bytes with a ${Buffer.byteLength(name)}-byte key name (limit ${HCS_MESSAGE_BYTES})`,
    );
    for (const m of messages) {
      expect(hcs27SchemaProblems(JSON.parse(m))).toEqual([]);
      expect(Buffer.byteLength(m, 'utf8')).toBeLessThanOrEqual(HCS_MESSAGE_BYTES);
    }
    const [first, second] = messages.map((m) => readHcs27(m));
    expect(first?.prev).toBeNull();
    expect(second?.prev).toEqual({ size: first?.size, root: first?.root });
    expect(second?.logId).toBe(`${name}/${LONGEST_TOPIC}`);
    // The note inside still opens with the log's key, as C2SP tooling would.
    const opened = await openNote(second?.note ?? '', signer);
    expect(opened.ok).toBe(true);
    await expect(generateKeys(`${name}x`)).rejects.toThrow(/at most 64 bytes/);
    await expect(generateKeys('a"b')).rejects.toThrow(/at most 64 bytes/);
  });

  it('is read only when its metadata states what its signed note states', async () => {
    const { messages } = await chainOf('wirestream.hcs27.test', '0.0.1234', [10, 20]);
    const good = readCheckpointMessage(messages[1] as string);
    expect(good).toMatchObject({ ok: true, checkpoint: { size: 20 }, prev: { size: 10 } });
    const tamper = (edit: (md: Record<string, Record<string, string>>) => void) => {
      const m = JSON.parse(messages[1] as string);
      edit(m.metadata);
      return readCheckpointMessage(JSON.stringify(m));
    };
    const otherRoot = Buffer.alloc(32, 5).toString('base64url');
    const cases: [string, ReturnType<typeof tamper>, RegExp][] = [
      [
        'another root',
        tamper((md) => {
          (md.root as Record<string, string>).rootHashB64u = otherRoot;
        }),
        /metadata\.root\.rootHashB64u is .*, the signed note says/,
      ],
      [
        'another size',
        tamper((md) => {
          (md.root as Record<string, string>).treeSize = '21';
        }),
        /metadata\.root\.treeSize is 21, the signed note says 20/,
      ],
      [
        'no prev',
        tamper((md) => delete md.prev),
        /metadata\.prev is missing, the signed note has a prev line/,
      ],
      [
        'another log',
        tamper((md) => {
          (md.stream as Record<string, string>).log_id = 'other/0.0.1234';
        }),
        /metadata\.stream\.log_id is other\/0\.0\.1234/,
      ],
      [
        'padded base64',
        tamper((md) => {
          (md.root as Record<string, string>).rootHashB64u += '=';
        }),
        /metadata\.root needs/,
      ],
    ];
    for (const [what, read, reason] of cases) {
      expect([what, read?.ok]).toEqual([what, false]);
      expect(read?.ok === false && read.reason).toMatch(reason);
    }
    expect(readCheckpointMessage('{"wire_id":"w"}')).toBeNull();
    expect(readCheckpointMessage('not json')).toBeNull();
  });
});
