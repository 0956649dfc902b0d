import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { RunsClient, WirestreamClient } from '../../src/client';
import { tokenFor } from './helpers/auth';
import { CONDUCTOR, createRun, note, WORKER, WRITER } from './helpers/writer';

async function runsAs(sender: string) {
  const client = new WirestreamClient({
    baseUrl: 'https://ws.test',
    sender,
    token: await tokenFor({ sub: sender, scopes: ['append', 'read'] }),
    fetch: (input, init) => SELF.fetch(input, init),
  });
  return new RunsClient(client);
}

describe('run documents from the client SDK', () => {
  it('messageActor answers WriterAck / WriterReject; a retry with the same message_id hears the same verdict', async () => {
    const run = await createRun();
    const worker = await runsAs(WORKER);
    const writer = await runsAs(WRITER);
    const proposal = await worker.messageActor(run, note('findings', 'from the SDK', true));
    expect(proposal).toMatchObject({ type: 'WriterAck', outcome: 'proposal', revision: 0 });
    const accept = {
      type: 'WriterAcceptProposal',
      proposal_id: proposal.message_id,
      message_id: 'sdk-accept-1',
      ts: new Date().toISOString(),
    };
    const merged = await writer.messageActor(run, accept);
    expect(await writer.messageActor(run, accept)).toEqual(merged);
    expect(merged).toMatchObject({ type: 'WriterAck', outcome: 'merged', revision: 1 });
    const refused = await worker.messageActor(run, note('findings', 'x', false));
    expect(refused.type).toBe('WriterReject');
    const asked = await worker.requestConductor(run, 'spawn.worker', { role: 'critic' }, 'diag-7');
    expect(asked).toMatchObject({ type: 'WriterAck', outcome: 'delivered' });
    const doc = await writer.document<{
      revision: number;
      document: { sections: Record<string, { notes: string[] }> };
    }>(run);
    expect(doc.revision).toBe(1);
    expect(doc.document.sections.findings?.notes).toEqual(['from the SDK']);
    expect(await writer.revisions<{ latest_revision: number }>(run)).toMatchObject({
      latest_revision: 1,
    });
    expect(await writer.diff<{ ops: unknown[] }>(run, 0, 1)).toMatchObject({
      ops: [{ op: 'add', path: '/sections/findings/notes/-' }],
    });
    const conductor = await runsAs(CONDUCTOR);
    expect(
      (
        await conductor.messageActor(run, {
          type: 'WriterMarkSectionState',
          section: 'findings',
          state: 'final',
        })
      ).type,
    ).toBe('WriterReject');
  });
});
