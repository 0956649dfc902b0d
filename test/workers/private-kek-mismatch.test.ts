import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { aesKey, wrapBytes } from '../../src/private/seal';
import { api } from './helpers/anchoring';
import { post, problemOf, uniqueStream, wire11 } from './helpers/wires';

/**
 * A PAYLOAD_KEK that reads but does not open a private project's data key: a
 * key entry under the right id with the wrong bytes (pasted wrong after a
 * rotation, say). The project "wrongkey" (this project's PRIVATE_PROJECTS,
 * `workers-vars` in vitest.config.ts) has its data key wrapped by another key
 * under the id `test-kek-b`. Before the append path tried the key, such a Wire
 * got its 201 and then stayed held in the stream's outbox, never anchored.
 */

const WRONG_KID = 'dk-00000000000000aa';

async function plantUnopenableDataKey(): Promise<void> {
  const other = await aesKey(crypto.getRandomValues(new Uint8Array(32)));
  const label = `wirestream payload data key ${WRONG_KID} of wrongkey`;
  const wrapped = await wrapBytes(other, crypto.getRandomValues(new Uint8Array(32)), label);
  const directory = env.TOPIC_DIRECTORY.get(env.TOPIC_DIRECTORY.idFromName('directory'));
  await runInDurableObject(directory, (_object, state) => {
    state.storage.sql.exec(
      `INSERT OR REPLACE INTO payload_keys (kid, project, kek_kid, wrapped, created_at)
        VALUES (?, 'wrongkey', 'test-kek-b', ?, ?)`,
      WRONG_KID,
      wrapped,
      new Date().toISOString(),
    );
  });
}

describe('a private project whose data key PAYLOAD_KEK cannot open', () => {
  it('refuses its Wires with a 503 naming the key, stores nothing, and takes other projects as before', async () => {
    await plantUnopenableDataKey();
    const streamId = uniqueStream('project').replace('project:', 'project:wrongkey-');
    const res = await post(streamId, wire11(streamId, { correlation_id: null }));
    expect(res.status).toBe(503);
    const problem = await problemOf(res);
    expect(problem.type).toBe('/problems/private-payloads-unavailable');
    expect(problem.detail).toContain('private project "wrongkey"');
    expect(problem.detail).toContain(
      `PAYLOAD_KEK key "test-kek-b" does not open data key ${WRONG_KID}`,
    );
    expect((await api(`/v1/streams/${streamId}`)).status).toBe(404);

    const vault = uniqueStream('project').replace('project:', 'project:vault-');
    expect((await post(vault, wire11(vault, { correlation_id: null }))).status).toBe(201);
  });
});
