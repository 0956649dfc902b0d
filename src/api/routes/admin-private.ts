import { Hono } from 'hono';
import * as z from 'zod';
import { payloadKeks, privateProjects } from '../../private/config';
import { unwrapDataKeyBytes } from '../../private/key-store';
import { ALG } from '../../private/seal';
import { fail } from '../../protocol';
import { toBase64Url } from '../../protocol/base64';
import { directoryStub } from '../../topic/topic-directory';
import type { AppEnv } from '../app-env';
import { requireAllStreams, requireScope } from '../auth';
import { bodyProblem } from '../body-problem';
import { problem } from '../problem';
import { readJsonBody } from '../read-json-body';

/**
 * Private payloads (src/private/), for the operator:
 *  - `GET /v1/admin/private-keys`: the private projects, the KEKs by id (never
 *    their bytes) and every data key, wrapped (safe to back up: useless
 *    without `PAYLOAD_KEK`), with the KEK that wraps it;
 *  - `POST /v1/admin/private-keys/rewrap`: KEK rotation, every data key
 *    re-wrapped under the first key of `PAYLOAD_KEK`. Nothing is re-anchored;
 *  - `POST /v1/admin/private-keys/export`: one project's data key in the
 *    clear, for an auditor's `wirestream keys check --data-key`. Whoever holds
 *    it reads every payload of the project ever anchored, and rotating the
 *    KEK does not take that back (the data key stays the same).
 */
export const adminPrivate = new Hono<AppEnv>();

adminPrivate.get('/admin/private-keys', async (c) => {
  const denied = requireScope(c, 'admin') ?? requireAllStreams(c, 'GET /v1/admin/private-keys');
  if (denied) return denied;
  const projects = privateProjects(c.env);
  const keks = payloadKeks(c.env);
  return Response.json({
    projects: projects.ok ? projects.value : [],
    kek_kids: keks.ok ? keks.value.map((k) => k.kid) : [],
    problems: [projects, keks].flatMap((p) => (p.ok ? [] : [p.detail])),
    keys: await directoryStub(c.env).dataKeys(),
  });
});

adminPrivate.post('/admin/private-keys/rewrap', async (c) => {
  const denied =
    requireScope(c, 'admin') ?? requireAllStreams(c, 'POST /v1/admin/private-keys/rewrap');
  if (denied) return denied;
  const keks = payloadKeks(c.env);
  if (!keks.ok) return problem(c, fail('private-payloads-unavailable', keks.detail));
  return Response.json(await directoryStub(c.env).rewrapDataKeys());
});

export const ExportBody = z.strictObject({
  project: z.string().meta({
    description: 'A project named in PRIVATE_PROJECTS, or one taken out of it that has a data key',
  }),
});

adminPrivate.post('/admin/private-keys/export', async (c) => {
  const denied =
    requireScope(c, 'admin') ?? requireAllStreams(c, 'POST /v1/admin/private-keys/export');
  if (denied) return denied;
  const body = await readJsonBody(c, 1024);
  if (!body.ok) return problem(c, body);
  const parsed = ExportBody.safeParse(body.body);
  if (!parsed.success) return problem(c, bodyProblem(parsed.error));
  const { project } = parsed.data;
  const projects = privateProjects(c.env);
  if (!projects.ok) return problem(c, fail('private-payloads-unavailable', projects.detail));
  // A project taken out of PRIVATE_PROJECTS keeps its sealed Wires and their
  // data key: its key is exported as long as one is stored.
  const row = (await directoryStub(c.env).dataKeys()).find((k) => k.project === project);
  if (!row && !projects.value.some((p) => p.name === project)) {
    const detail = `project: "${project}" is not a private project of this deployment (PRIVATE_PROJECTS) and has no data key`;
    return problem(
      c,
      fail('invalid-body', detail, { errors: [{ path: 'project', message: detail }] }),
    );
  }
  if (!row) {
    return problem(
      c,
      fail('not-found', `project "${project}" has no data key yet: none of its Wires was sealed`),
    );
  }
  let raw: Uint8Array;
  try {
    raw = await unwrapDataKeyBytes(c.env, row);
  } catch (error) {
    return problem(c, fail('private-payloads-unavailable', (error as Error).message));
  }
  return Response.json(
    { project, kid: row.kid, alg: ALG, key: toBase64Url(raw) },
    { headers: { 'Cache-Control': 'no-store' } },
  );
});
