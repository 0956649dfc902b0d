import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LogProof, WirestreamClient } from '../../src/client';
import { logSignerKey } from '../../tools/dev-tokens.mjs';
import type { TestBrowser } from '../support/chromium';
import { startConsole, stopConsole } from '../support/console';
import { type DevServer, tokenFor } from '../support/dev-server';

/**
 * Issue 31 in Chromium against `wrangler dev` in log mode and the Hedera
 * stand-in: a Wire's proof dialog checks the log proof in the page with the
 * SDK (leaf, inclusion, checkpoint signature, the checkpoint on the mirror,
 * its running hash) and says "verified"; once the mirror serves a wrong
 * running hash for the checkpoint it says "not verified" and which check failed.
 */
const P = `lpf${Date.now().toString(36)}`;
const PROJECT = `project:${P}`;
let server: DevServer;
let browser: TestBrowser;
let page: Page;
let token = '';
let planner: WirestreamClient;
let wireId = '';
let proof: LogProof;
const problems: string[] = [];

beforeAll(async () => {
  ({ server, token, browser, page } = await startConsole(problems, {
    ANCHOR_MODE: 'log',
    LOG_SIGNER_KEY: logSignerKey('wirestream.console.test'),
    LOG_CHECKPOINT_MS: '300',
  }));
  const sender = 'coordinator:lpf';
  const t = (await tokenFor(server, sender, ['coordinator'])) ?? '';
  planner = new WirestreamClient({ baseUrl: server.url, sender, token: t });
  const { receipt } = await planner.append(PROJECT, {
    type: 'task.created',
    payload: { task_id: `${P}-t1`, role: 'developer', title: 'Check the log proof' },
  });
  wireId = receipt.wire_id;
  const served = await planner.proof(wireId, { streamId: PROJECT, waitMs: 30_000 });
  proof = served as unknown as LogProof;
}, 180_000);

afterAll(() => stopConsole({ server, browser }));

const openProof = async () => {
  await page.goto(`${server.url}/#/coordination?project=${P}&token=${token}`);
  await page.click(`#wires tr[data-wire-id="${wireId}"] td.anchor a[data-proof]`, {
    timeout: 20_000,
  });
};

describe('the proof dialog in log mode', () => {
  it('says "verified" once the SDK checked the log proof against the mirror', async () => {
    expect(proof.mode).toBe('log');
    await openProof();
    await page.waitForSelector('#proof-verdict[data-state="verified"]', { timeout: 20_000 });
    const verdict = (await page.textContent('#proof-verdict'))?.replace(/\s+/g, ' ') ?? '';
    const seq = proof.checkpoint_anchor.hcs_sequence_number;
    expect(verdict).toContain(
      `verified — the Wire is leaf ${proof.leaf_index} under a checkpoint signed by the log’s key, which is the mirror’s message #${seq}`,
    );
    expect(await page.textContent('#proof-topic')).toContain(proof.checkpoint_anchor.hcs_topic_id);
    expect(await page.textContent('#proof-seq')).toBe(String(seq));
    expect(await page.textContent('#proof-hash')).toBe(proof.checkpoint_anchor.running_hash);
    expect(await page.textContent('#proof-leaf')).toContain(
      `leaf ${proof.leaf_index} of ${proof.tree_size}`,
    );
    expect(await page.textContent('#proof-message')).toContain(`"wire_id": "${wireId}"`);
    // The same check, run here by the SDK against the same mirror, agrees.
    expect((await planner.checkLogProof(proof)).ok).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#proof', { state: 'detached' });
    expect(problems).toEqual([]);
  }, 90_000);

  it('says "not verified" and names the check when the mirror serves a wrong running hash for the checkpoint', async () => {
    const { hcs_topic_id: topicId, hcs_sequence_number: seq } = proof.checkpoint_anchor;
    const tamper = (restore: boolean) =>
      fetch(`${server.standin.url}/__standin/tamper`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ topicId, sequenceNumber: seq, restore }),
      });
    expect((await tamper(false)).status).toBe(200);
    try {
      await openProof();
      await page.waitForSelector('#proof-verdict[data-state="failed"]', { timeout: 20_000 });
      expect((await page.textContent('#proof-verdict'))?.trim()).toBe(
        `not verified: running-hash: the running hash of ${topicId}#${seq} does not follow from the previous one and this message`,
      );
      expect(await page.textContent('#proof-seq')).toBe(String(seq));
      await page.click('#proof button.close');
      await page.waitForSelector('#proof', { state: 'detached' });
    } finally {
      await tamper(true);
    }
    expect(problems).toEqual([]);
  }, 90_000);
});
