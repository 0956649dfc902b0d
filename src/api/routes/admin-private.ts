import { Hono } from 'hono';
import { payloadKeks, privateProjects } from '../../private/config';
import { fail } from '../../protocol';
import { directoryStub } from '../../topic/topic-directory';
import type { AppEnv } from '../app-env';
import { requireAllStreams, requireScope } from '../auth';
import { problem } from '../problem';

/**
 * Private payloads (src/private/), for the operator:
 *  - `GET /v1/admin/private-keys`: the private projects, the KEKs by id (never
 *    their bytes) and every data key, wrapped (safe to back up: useless
 *    without `PAYLOAD_KEK`), with the KEK that wraps it;
 *  - `POST /v1/admin/private-keys/rewrap`: KEK rotation, every data key
 *    re-wrapped under the first key of `PAYLOAD_KEK`. Nothing is re-anchored.
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
