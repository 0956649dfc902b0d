import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { coordinatorHeaders } from './helpers/auth';
import { uid } from './helpers/coordination';
import { emit, type Json, projectState } from './helpers/gsd';

/** `event_handlers` (PUT …/config) holds only what will run: a built-in on a type it acts on. */

async function putConfig(project: string, config: unknown) {
  const res = await SELF.fetch(`https://ws.test/v1/projects/${project}/config`, {
    method: 'PUT',
    headers: {
      ...(await coordinatorHeaders('coordinator:orch')),
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(config),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('event_handlers built-ins', () => {
  it('refuses a built-in mapped to a type outside its row of the table, naming handler and type', async () => {
    const project = uid('handlers-type');
    const refused = await putConfig(project, {
      event_handlers: { 'verify:failed': ['builtin:error-handler'] },
    });
    expect(refused.status).toBe(422);
    expect(String(refused.body.detail)).toContain('builtin:error-handler');
    expect(String(refused.body.detail)).toContain('task:failed');
    expect(String(refused.body.detail)).toContain('verify:failed');
    const failed = {
      type: 'verify:failed',
      plan: '01-02',
      task: 1,
      error: 'lint failed',
      timestamp: '2024-01-15T10:45:00Z',
    };
    expect((await emit(project, failed)).status).toBe(201);
    expect((await projectState(project)).config).toMatchObject({ event_handlers: null });
  });

  it('refuses a built-in name the seed does not have, naming it', async () => {
    const project = uid('handlers-typo');
    const refused = await putConfig(project, {
      event_handlers: { 'task:completed': ['builtin:blackboard-synk'] },
    });
    expect(refused.status).toBe(422);
    expect(String(refused.body.detail)).toContain('builtin:blackboard-synk');
    expect((await projectState(project)).lastEventId).toBe(0);
  });

  it('accepts every built-in on the types of its row', async () => {
    const project = uid('handlers-ok');
    const accepted = await putConfig(project, {
      event_handlers: {
        'task:completed': ['builtin:blackboard-sync'],
        'artifact:modified': ['builtin:dependency-resolver'],
        'plan:waiting': ['builtin:dependency-resolver'],
        'decision:made': ['builtin:decision-tracker'],
        'checkpoint:reached': ['builtin:orchestrator'],
        'task:failed': ['builtin:error-handler', 'custom:pagerduty-alert'],
        'verify:failed': ['custom:pagerduty-alert'],
      },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  });
});
