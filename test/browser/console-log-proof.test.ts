import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogProof, WirestreamClient } from '../../src/client';
import { logSignerKey } from '../../tools/dev-tokens.mjs';
import { type ConsoleRig, startConsole, stopConsole } from '../support/console';
import { tokenFor } from '../support/dev-server';
import { whileTampered } from '../support/standin-submit';

/**
 * Issue 31 in Chromium against `wrangler dev` in log mode and the Hedera
 * stand-in: a Wire's proof dialog checks the log proof in the page with the
 * SDK (leaf, inclusion, checkpoint signature, the checkpoint on the mirror,
 * its running hash) and says "verified"; once the mirror serves a wrong
 * running hash for the checkpoint it says "not verified" and which check failed.
 */
const P = `lpf${Date.now().toString(36)}`;
const PROJECT = `project:${P}`;
let rig: ConsoleRig;
let planner: WirestreamClient;
let wireId = '';
let proof: LogProof;
const problems: string[] = [];

beforeAll(async () => {
  rig = await startConsole(problems, {
    ANCHOR_MODE: 'log',
    LOG_SIGNER_KEY: logSignerKey('wirestream.console.test'),
    LOG_CHECKPOINT_MS: '300',
  });
  const sender = 'coordinator:lpf';
  const t = (await tokenFor(rig.server, sender, ['coordinator'])) ?? '';
  planner = new WirestreamClient({ baseUrl: rig.server.url, sender, token: t });
  const { receipt } = await planner.append(PROJECT, {
    type: 'task.created',
    payload: { task_id: `${P}-t1`, role: 'developer', title: 'Check the log proof' },
  });
  wireId = receipt.wire_id;
  const served = await planner.proof(wireId, { streamId: PROJECT, waitMs: 30_000 });
  proof = served as unknown as LogProof;
}, 180_000);

afterAll(() => stopConsole(rig ?? {}));

const openProof = async () => {
  await rig.page.goto(`${rig.server.url}/#/coordination?project=${P}&token=${rig.token}`);
  await rig.page.click(`#wires tr[data-wire-id="${wireId}"] td.anchor a[data-proof]`, {
    timeout: 20_000,
  });
};

describe('the proof dialog in log mode', () => {
  it('says "verified" once the SDK checked the log proof against the mirror', async () => {
    expect(proof.mode).toBe('log');
    await openProof();
    await rig.page.waitForSelector('#proof-verdict[data-state="verified"]', { timeout: 20_000 });
    const verdict = (await rig.page.textContent('#proof-verdict'))?.replace(/\s+/g, ' ') ?? '';
    const seq = proof.checkpoint_anchor.hcs_sequence_number;
    expect(verdict).toContain(
      `verified — the Wire is leaf ${proof.leaf_index} under a checkpoint signed by the log’s key, which is the mirror’s message #${seq}`,
    );
    expect(await rig.page.textContent('#proof-topic')).toContain(
      proof.checkpoint_anchor.hcs_topic_id,
    );
    expect(await rig.page.textContent('#proof-seq')).toBe(String(seq));
    expect(await rig.page.textContent('#proof-hash')).toBe(proof.checkpoint_anchor.running_hash);
    expect(await rig.page.textContent('#proof-leaf')).toContain(
      `leaf ${proof.leaf_index} of ${proof.tree_size}`,
    );
    expect(await rig.page.textContent('#proof-message')).toContain(`"wire_id": "${wireId}"`);
    // The same check, run here by the SDK against the same mirror, agrees.
    expect((await planner.checkLogProof(proof)).ok).toBe(true);
    await rig.page.keyboard.press('Escape');
    await rig.page.waitForSelector('#proof', { state: 'detached' });
    expect(problems).toEqual([]);
  }, 90_000);

  it('says "not verified" and names the check when the mirror serves a wrong running hash for the checkpoint', async () => {
    const { hcs_topic_id: topicId, hcs_sequence_number: seq } = proof.checkpoint_anchor;
    await whileTampered(rig.server.standin.url, topicId, seq, async () => {
      await openProof();
      await rig.page.waitForSelector('#proof-verdict[data-state="failed"]', { timeout: 20_000 });
      expect((await rig.page.textContent('#proof-verdict'))?.trim()).toBe(
        `not verified: running-hash: the running hash of ${topicId}#${seq} does not follow from the previous one and this message`,
      );
      expect(await rig.page.textContent('#proof-seq')).toBe(String(seq));
      await rig.page.click('#proof button.close');
      await rig.page.waitForSelector('#proof', { state: 'detached' });
    });
    expect(problems).toEqual([]);
  }, 90_000);
});
