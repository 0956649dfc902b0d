import { describe, expect, it } from 'vitest';
import { type LogProof, WirestreamClient } from '../../src/client';
import { crashMidBurst } from '../support/crash-burst';
import { devServerForFile } from '../support/dev-server';
import { checkChain, checkProof, newLogKey } from './independent-log-verifier';

/**
 * Log mode under a crash: the whole runtime is killed with SIGKILL in the
 * middle of a burst, while leaves are being added in batches, checkpoints are
 * signed and their submits are in flight without an answer, then started
 * again on the same state. Every acknowledged Wire must become exactly one
 * leaf of one tree (leaves 0…n-1, no gap, none twice), each proof and the
 * checkpoint chain must hold for an independent verifier reading the mirror.
 */
const SENDER = 'agent:crash-log';
const CLIENTS = 8;
const KEY = newLogKey('wirestream.crashlog.test');
const dev = devServerForFile(SENDER, 120_000, {
  ANCHOR_MODE: 'log',
  LOG_SIGNER_KEY: KEY.signer,
  LOG_CHECKPOINT_EVERY: '40',
  LOG_CHECKPOINT_MS: '300',
});

describe('a crash of the whole runtime mid-burst, in log mode', () => {
  it('makes every accepted Wire one leaf of one consistent, checkpointed tree', async () => {
    const run = Date.now().toString(36);
    const project = `project:crashlog-${run}`;
    const streams = [project, `note:crashlog-${run}-a`, `note:crashlog-${run}-b`];
    const url = dev.server.url;
    const headers = {
      'Content-Type': 'application/json',
      ...(dev.token ? { Authorization: `Bearer ${dev.token}` } : {}),
    };
    const acked = new Map<string, string>(); // wire_id → stream_id
    const unknown = new Map<string, { streamId: string; body: string }>();
    let crashing = false;
    const post = async (streamId: string, body: string) => {
      const res = await fetch(`${url}/v1/streams/${encodeURIComponent(streamId)}/wires`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      return res.status;
    };
    const appender = async (c: number) => {
      for (let i = 0; ; i++) {
        const wireId = `crashlog-${run}-${c}-${i}`;
        const streamId = streams[(c + i) % streams.length] as string;
        const body = JSON.stringify({
          wire: '1.1',
          wire_id: wireId,
          stream_id: streamId,
          correlation_id: project,
          causation_id: null,
          type: 'review.concern',
          sender: SENDER,
          ts: new Date().toISOString(),
          payload: { concern: `client ${c} wire ${i}` },
        });
        try {
          const status = await post(streamId, body);
          if (status !== 201) throw new Error(`append ${wireId} answered ${status}`);
          acked.set(wireId, streamId);
        } catch (error) {
          if (!crashing) throw error;
          unknown.set(wireId, { streamId, body }); // no answer: taken or not
          return;
        }
      }
    };
    // The network takes checkpoint submits but holds its answers: at the
    // crash, checkpoints are signed and sent without an answer seen.
    await crashMidBurst(dev.server, {
      clients: CLIENTS,
      appender,
      acked: () => acked.size,
      atLeast: 400,
      beforeCrash: () => {
        crashing = true;
      },
    });
    const ackedBeforeCrash = acked.size;
    // A client retries what it never heard back about: the same Wire, never a second one.
    for (const [wireId, { streamId, body }] of unknown) {
      expect([200, 201], `retry of ${wireId}`).toContain(await post(streamId, body));
      acked.set(wireId, streamId);
    }

    // Every acknowledged Wire gets a log proof, with nothing appended since.
    const client = new WirestreamClient({ baseUrl: url, token: dev.token ?? '', sender: SENDER });
    const proofs: LogProof[] = [];
    for (const [wireId, streamId] of acked) {
      const proof = (await client.proof(wireId, {
        streamId,
        waitMs: 60_000,
      })) as unknown as LogProof;
      expect([wireId, proof.mode, JSON.parse(proof.leaf).wire_id]).toEqual([wireId, 'log', wireId]);
      proofs.push(proof);
    }

    // One leaf each, in one tree: leaves 0…n-1, none missing, none twice, and
    // nothing else in the streams.
    const topics = new Set(proofs.map((p) => p.checkpoint_anchor.hcs_topic_id));
    expect(topics.size).toBe(1);
    const leaves = proofs.map((p) => p.leaf_index).sort((a, b) => a - b);
    expect(leaves).toEqual([...Array(acked.size).keys()]);
    let stored = 0;
    for (const streamId of streams) {
      const page = await client.get<{ wires: unknown[] }>(
        `/v1/streams/${encodeURIComponent(streamId)}/wires?limit=1000`,
      );
      stored += page.wires.length;
    }
    expect(stored).toBe(acked.size);

    // An outsider with the mirror alone: a spread of proofs, then every checkpoint and
    // the consistency of each with the one before.
    const mirror = dev.server.standin.url;
    const step = Math.max(1, Math.floor(proofs.length / 25));
    for (let i = 0; i < proofs.length; i += step) {
      const p = proofs[i] as LogProof;
      expect([p.wire_id, await checkProof(mirror, KEY.verifier, p)]).toEqual([p.wire_id, []]);
    }
    const topicId = [...topics][0] as string;
    const chain = await checkChain(mirror, KEY.verifier, topicId, async (from, to) => {
      const body = await client.get<{ consistency_path: string[] }>(
        `/v1/topics/${topicId}/log/consistency?from=${from}&to=${to}`,
      );
      return body.consistency_path;
    });
    expect(chain.found).toEqual([]);
    expect(chain.checkpoints).toBeGreaterThanOrEqual(2);
    console.log(
      `log-mode crash test: ${ackedBeforeCrash} acked before the crash, ${unknown.size} unanswered (retried), ${acked.size} leaves under ${chain.checkpoints} checkpoints`,
    );
  }, 180_000);
});
