import { Hono } from 'hono';
import * as z from 'zod';
import {
  type AppEnv,
  principalOf,
  problem,
  readJsonBody,
  serveStatic,
} from '../../../api/module-kit';
import { fail } from '../../../protocol';
import { MESSAGE_SCHEMA_ASSET, validateMessage } from '../workspace/messages';
import { appendAs, bodyOf, MAX_BODY_BYTES, workspaceTarget } from './support';

/**
 * Mechanism 1 and the gate adapter: the published message schema, the
 * validator (`heimdall-validate`), validate-on-receipt into a workspace
 * (`POST …/messages`: one retry, then escalation), and `heimdall-gate`.
 */
export const messageRoutes = new Hono<AppEnv>();

export const GateReportBody = z.strictObject({
  report: z
    .looseObject({})
    .meta({ description: "A gate's report.json (only gate_id, status, wave are read)" }),
  report_ref: z.string().min(1).max(1000).meta({ description: 'Where the report lives (a path)' }),
  from: z.string().min(1).max(200),
  msg_id: z.string().min(1).max(200),
});

// Built at build time (src/modules/schemas.ts): a static asset.
messageRoutes.get('/schema/heimdall/message-schema.json', (c) =>
  serveStatic(c, MESSAGE_SCHEMA_ASSET, { 'Content-Type': 'application/schema+json' }),
);

messageRoutes.post('/heimdall/validate', async (c) => {
  const body = await readJsonBody(c, MAX_BODY_BYTES);
  if (!body.ok) return problem(c, body);
  const { valid, errors } = validateMessage(body.body);
  return c.json({ valid, errors });
});

messageRoutes.post('/heimdall/gate-report', async (c) => {
  const body = await bodyOf(c, GateReportBody);
  if (!body.ok) return problem(c, body);
  const { report, report_ref, from, msg_id } = body.value;
  // The only fields of report.json this adapter depends on (H-1): gate_id, status, wave.
  const message = {
    type: 'gate_report',
    from,
    msg_id,
    gate_id: report.gate_id,
    status: report.status,
    ...(report.wave === undefined ? {} : { wave: report.wave }),
    report_ref,
  };
  const checked = validateMessage(message);
  if (!checked.valid) {
    return problem(
      c,
      fail('invalid-body', `report: ${checked.errors.join('; ')}`, {
        errors: checked.errors.map((e) => ({ path: `report.${e.split(':')[0]}`, message: e })),
      }),
    );
  }
  return c.json({ message, valid: true, errors: [] });
});

messageRoutes.post('/workspaces/:ws/messages', async (c) => {
  const t = workspaceTarget(c);
  if ('res' in t) return t.res;
  const body = await readJsonBody(c, MAX_BODY_BYTES);
  if (!body.ok) return problem(c, body);
  const haid = principalOf(c).sub;
  const checked = validateMessage(body.body);
  if (checked.valid && checked.message) {
    const result = await appendAs(c, t.stream, 'message.accepted', {
      message: checked.message,
      haid,
    });
    if (!result.ok) return problem(c, result);
    return c.json(
      { accepted: true, msg_id: checked.message.msg_id, wire_id: result.receipt.wire_id },
      201,
    );
  }
  const raw = body.body as Record<string, unknown> | null;
  const msgId = typeof raw?.msg_id === 'string' ? raw.msg_id.slice(0, 200) : null;
  const result = await appendAs(c, t.stream, 'message.rejected', {
    msg_id: msgId,
    errors: checked.errors,
    haid,
  });
  if (!result.ok) return problem(c, result);
  const attempt = Number(result.receipt.attempt ?? 1);
  const escalation = result.receipt.escalation_msg_id;
  const errors = checked.errors.map((e) => ({ path: e.split(':')[0] ?? '(message)', message: e }));
  if (typeof escalation === 'string') {
    return problem(
      c,
      fail(
        'message-escalated',
        `message ${msgId ?? '(no msg_id)'} was invalid again (attempt ${attempt}): escalated as ${escalation}. ${checked.errors.join('; ')}`,
        {
          errors,
          extra: { attempt, escalation_msg_id: escalation, msg_id: msgId, valid: false },
        },
      ),
    );
  }
  return problem(
    c,
    fail(
      'invalid-message',
      `${checked.errors.join('; ')} (attempt ${attempt}: one retry is allowed before escalation)`,
      {
        errors,
        extra: { attempt, retry_allowed: true, msg_id: msgId, valid: false },
      },
    ),
  );
});
