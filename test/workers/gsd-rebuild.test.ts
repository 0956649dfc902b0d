import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { eventOf } from '../../src/modules/gsd/event';
import { gsdDecider } from '../../src/modules/gsd/kinds/gsd-decider';
import { workspaceDecider } from '../../src/modules/heimdall/workspace/decider';
import type { Wire } from '../../src/protocol';
import { mirrorMessages, standinUrl, untilAnchored } from './helpers/anchoring';
import { uid } from './helpers/coordination';
import { as, emit, type Json, SEED_EVENTS, view } from './helpers/gsd';

const at = '2024-01-15T10:20:00Z';

describe('rebuilding a GSD project from HCS', () => {
  it('reproduces the events view, dependency state, claims and decision log from the topic alone', async () => {
    const project = uid('hcs');
    const streamId = `gsd:${project}`;
    await emit(project, [
      { type: 'plan:waiting', plan: '01-02', waitsOn: ['src/models/user.ts'], timestamp: at },
      { type: 'plan:waiting', plan: '01-03', waitsOn: ['User'], timestamp: at },
      SEED_EVENTS.taskStarted,
      SEED_EVENTS.fileClaimed,
    ]);
    await emit(project, SEED_EVENTS.artifactCreated);
    await emit(project, [
      SEED_EVENTS.decisionMade,
      SEED_EVENTS.checkpointReached,
      SEED_EVENTS.taskCompleted,
    ]);

    const anchored = await untilAnchored(streamId, [`gsd.${project}`]);
    expect(anchored.every((w) => w.anchor.status === 'anchored')).toBe(true);
    const topicId = String(anchored[0]?.anchor.hcs_topic_id);
    // What a verifier with nothing but the mirror node would read: canonical JSON Wires.
    const fromHcs = (await mirrorMessages(topicId)).map((m) => JSON.parse(atob(m.message)) as Wire);
    expect(fromHcs.map((w) => w.stream_seq)).toEqual(anchored.map((w) => w.stream_seq));

    const live = await view(project);
    expect({ events: fromHcs.map(eventOf), lastEventId: fromHcs.length }).toEqual({
      events: live.body.events,
      lastEventId: live.body.lastEventId,
    });
    const rebuilt = fromHcs.reduce(
      (state, wire) => gsdDecider.evolve(state, wire, null),
      gsdDecider.initialState(),
    );
    const res = await SELF.fetch(`https://ws.test/v1/coordination/${streamId}`, {
      headers: await as('agent:viewer'),
    });
    const coordination = (await res.json()) as { kind: string; state: Json };
    expect(coordination.kind).toBe('gsd');
    expect(rebuilt).toEqual(coordination.state);
    expect(rebuilt.plans['01-03']?.satisfied.User?.artifact).toBe('src/models/user.ts');
    expect(rebuilt.decisions).toHaveLength(1);
    expect(Object.keys(rebuilt.claims)).toEqual(['src/api/users.ts']);

    // The workspace decision log the decision reached is anchored too (on the default
    // topic): its HCS copy, folded by the workspace decider, is the log REST serves.
    const [entry] = await untilAnchored(`workspace:${project}`, ['default']);
    expect(entry?.anchor.status).toBe('anchored');
    const res2 = await fetch(
      `${standinUrl()}/api/v1/topics/${entry?.anchor.hcs_topic_id}/messages?sequencenumber=${entry?.anchor.hcs_sequence_number}`,
    );
    const [message] = ((await res2.json()) as { messages: { message: string }[] }).messages;
    const decisionWire = JSON.parse(atob(String(message?.message))) as Wire;
    const decisionEvent = fromHcs.find((w) => w.type === 'gsd.decision.made');
    expect(decisionWire.causation_id).toBe(decisionEvent?.wire_id);
    const log = workspaceDecider.evolve(workspaceDecider.initialState(), decisionWire, null);
    const served = await SELF.fetch(`https://ws.test/v1/workspaces/${project}/decisions`, {
      headers: await as('agent:viewer'),
    });
    // The fold keeps where the entry's body is (its Wire); REST reads the body from there.
    expect(log.decisions.map((d) => d.wire_seq)).toEqual([decisionWire.stream_seq]);
    expect(((await served.json()) as { decisions: unknown[] }).decisions).toEqual(
      log.decisions.map(({ wire_seq: _at, ...d }) => ({ ...d, body: decisionWire.payload.body })),
    );
  });
});
