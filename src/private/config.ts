import type { Env } from '../env';
import { parseBase64 } from '../protocol/base64';

/**
 * Private payloads (issue 31): which Wires are private, and the key-encryption
 * keys. A project is private when `PRIVATE_PROJECTS` names it:
 *
 *   PRIVATE_PROJECTS = '{"acme": {"streams": ["project:acme", "task:acme-"], "correlations": ["acme"]}}'
 *
 * A Wire belongs to the first project (in that order) one of whose stream
 * prefixes starts its `stream_id`, or one of whose correlation prefixes starts
 * its `correlation_id`. `PAYLOAD_KEK` (a secret) holds the key-encryption keys
 * as `<kid>:<base64 of 32 bytes>`, comma-separated: the first wraps new data
 * keys and is the one `rewrap` moves every data key to; the others stay
 * readable during a rotation.
 *
 * A mistake in either is never read as "public": every Wire the deployment
 * cannot tell is public, or cannot encrypt, is refused (`privacyProblem`), and
 * the TopicObject will not anchor it.
 */
export interface PrivateProject {
  name: string;
  streams: string[];
  correlations: string[];
}

export interface Kek {
  kid: string;
  key: Uint8Array;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; detail: string };

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const KID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const projectsCache = new Map<unknown, Parsed<PrivateProject[]>>();

/** `PRIVATE_PROJECTS` (a JSON string, or a table in wrangler.toml's [vars]); [] when unset. */
export function privateProjects(env: Pick<Env, 'PRIVATE_PROJECTS'>): Parsed<PrivateProject[]> {
  const raw = env.PRIVATE_PROJECTS;
  let parsed = projectsCache.get(raw);
  if (!parsed) {
    parsed = parseProjects(raw);
    projectsCache.set(raw, parsed);
  }
  return parsed;
}

function parseProjects(raw: unknown): Parsed<PrivateProject[]> {
  if (raw === undefined || raw === null || raw === '') return { ok: true, value: [] };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return { ok: false, detail: 'PRIVATE_PROJECTS is not JSON' };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, detail: 'PRIVATE_PROJECTS must be a JSON object: project name → matchers' };
  const projects: PrivateProject[] = [];
  for (const [name, spec] of Object.entries(value)) {
    const where = `PRIVATE_PROJECTS.${name}`;
    if (!NAME.test(name))
      return { ok: false, detail: `${where}: a project name is 1-64 of a-z 0-9 . _ -` };
    const s = (spec ?? {}) as Record<string, unknown>;
    const extra = Object.keys(s).filter((k) => k !== 'streams' && k !== 'correlations');
    if (extra.length > 0)
      return { ok: false, detail: `${where}.${extra[0]}: only "streams" and "correlations"` };
    const streams = prefixes(s.streams);
    const correlations = prefixes(s.correlations);
    if (streams === null) return { ok: false, detail: `${where}.streams: a list of prefixes` };
    if (correlations === null)
      return { ok: false, detail: `${where}.correlations: a list of prefixes` };
    if (streams.length + correlations.length === 0)
      return { ok: false, detail: `${where}: names no stream or correlation prefix` };
    projects.push({ name, streams, correlations });
  }
  return { ok: true, value: projects };
}

function prefixes(value: unknown): string[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return null;
  return value.every((p) => typeof p === 'string' && p.length > 0) ? (value as string[]) : null;
}

/** The private project a Wire belongs to, or null for a public Wire. */
export function projectOf(
  projects: PrivateProject[],
  wire: { stream_id: string; correlation_id: string | null },
): string | null {
  const correlation = wire.correlation_id ?? null;
  for (const p of projects) {
    if (p.streams.some((prefix) => wire.stream_id.startsWith(prefix))) return p.name;
    if (correlation !== null && p.correlations.some((prefix) => correlation.startsWith(prefix)))
      return p.name;
  }
  return null;
}

/** `PAYLOAD_KEK`: the key-encryption keys, current first. */
export function payloadKeks(env: Pick<Env, 'PAYLOAD_KEK'>): Parsed<Kek[]> {
  const raw = env.PAYLOAD_KEK?.trim() ?? '';
  if (raw === '' || raw === PLACEHOLDER)
    return { ok: false, detail: 'PAYLOAD_KEK is not set (a secret: <kid>:<base64 of 32 bytes>)' };
  const keks: Kek[] = [];
  for (const [i, entry] of raw.split(',').entries()) {
    const [kid = '', b64 = '', ...rest] = entry.trim().split(':');
    const key = parseBase64(b64);
    if (!KID.test(kid) || rest.length > 0 || key?.length !== 32)
      return {
        ok: false,
        detail: `PAYLOAD_KEK entry ${i + 1} is not <kid>:<base64 of 32 bytes> (kid: 1-64 of A-Z a-z 0-9 . _ -)`,
      };
    if (keks.some((k) => k.kid === kid))
      return { ok: false, detail: `PAYLOAD_KEK names kid "${kid}" twice` };
    keks.push({ kid, key });
  }
  return { ok: true, value: keks };
}

const PLACEHOLDER = 'generated-on-first-npm-start';

/**
 * Why this Wire cannot be appended, or null: the deployment cannot tell
 * whether it is private (bad `PRIVATE_PROJECTS`), or it is private and there
 * is no usable `PAYLOAD_KEK` to encrypt it with.
 */
export function privacyProblem(
  env: Pick<Env, 'PRIVATE_PROJECTS' | 'PAYLOAD_KEK'>,
  wire: { stream_id: string; correlation_id: string | null },
): string | null {
  const projects = privateProjects(env);
  if (!projects.ok) return `${projects.detail}: no Wire is anchored until it is fixed`;
  const project = projectOf(projects.value, wire);
  if (project === null) return null;
  const keks = payloadKeks(env);
  return keks.ok ? null : `private project "${project}": ${keks.detail}`;
}
