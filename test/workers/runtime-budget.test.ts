import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  budgetViolations,
  PAYLOAD_BUDGETS,
  payloadBytes,
  V1_MESSAGE_TYPES,
} from '../../src/modules/runtime/payloads';
import { eventually, session } from './helpers/runtime';

describe('Runtime v1 token economy', () => {
  it('acceptance 5: no message type exceeds its documented payload budget (average or largest)', async () => {
    await session();
    const rows = await eventually(async () => {
      const r = await env.DB.prepare(
        `SELECT type, payload FROM wire_events WHERE type LIKE 'runtime.%'`,
      ).all<{
        type: string;
        payload: string;
      }>();
      const types = new Set(r.results.map((x) => x.type.slice('runtime.'.length)));
      return V1_MESSAGE_TYPES.every((t) => types.has(t)) ? r.results : null;
    }, 20_000);
    const samples = rows.map((r) => ({
      messageType: r.type.slice('runtime.'.length),
      bytes: payloadBytes(JSON.parse(r.payload)),
    }));
    const table = Object.keys(PAYLOAD_BUDGETS).map((type) => {
      const sizes = samples.filter((s) => s.messageType === type).map((s) => s.bytes);
      const avg = sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : 0;
      return `${type.padEnd(28)} n=${String(sizes.length).padStart(3)} avg=${String(avg).padStart(5)} max=${String(Math.max(0, ...sizes)).padStart(5)} budget=${PAYLOAD_BUDGETS[type as keyof typeof PAYLOAD_BUDGETS].avg}/${PAYLOAD_BUDGETS[type as keyof typeof PAYLOAD_BUDGETS].max}`;
    });
    console.log(`payload bytes per message type:\n${table.join('\n')}`);
    expect(budgetViolations(samples)).toEqual([]);
  });

  it('fails when a type goes over its budget', () => {
    const budget = PAYLOAD_BUDGETS['worker.progress'];
    expect(budgetViolations([{ messageType: 'worker.progress', bytes: budget.max + 1 }])).toEqual([
      `worker.progress: average ${budget.max + 1} B > budget ${budget.avg} B`,
      `worker.progress: largest ${budget.max + 1} B > budget ${budget.max} B`,
    ]);
    expect(budgetViolations([{ messageType: 'mystery.type', bytes: 1 }])).toEqual([
      'mystery.type: no documented budget',
    ]);
  });
});
