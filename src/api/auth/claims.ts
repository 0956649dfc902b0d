import * as z from 'zod';

/** What a token may allow. `admin` implies every other scope. */
export const SCOPES = ['append', 'read', 'claim', 'admin'] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/**
 * Token subjects are `agent:<id>` or `human:<id>`; `coordinator:<id>` names
 * the orchestrating process. `system` is never a subject: it is reserved for
 * Wires the coordinator writes itself.
 */
export const Subject = z
  .string()
  .regex(
    /^(agent|human|coordinator):[A-Za-z0-9][A-Za-z0-9._@-]{0,110}$/,
    'sub must look like "agent:<id>", "human:<id>" or "coordinator:<id>" (id: letters, digits, . _ @ -)',
  );

const Role = z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'roles are lower-case names');
/**
 * The start of a stream id (`project:`, `task:T-1:`, `agent`): a kind, then
 * `:`-separated ids that each start with a letter or digit, as stream ids do.
 * No `/`, no leading `.`: a prefix is never a path.
 */
const StreamPrefix = z
  .string()
  .min(1)
  .max(128)
  .regex(
    /^[a-z][a-z0-9_-]*(:([A-Za-z0-9][A-Za-z0-9._~-]*)?)*$/,
    'a stream prefix is the start of a stream id, such as "project:" or "task:T-1:" (a kind, then ids of letters, digits, . _ ~ -, each starting with a letter or digit)',
  );

/** The claims Wirestream puts in (and requires of) a bearer token. */
export const TokenClaims = z.object({
  sub: Subject,
  roles: z.array(Role).max(16).default([]),
  scopes: z.array(Scope).min(1).max(SCOPES.length),
  streams: z.array(StreamPrefix).max(32).optional(),
  /** Ticket tokens are single-purpose: they open one WebSocket, nothing else. */
  purpose: z.literal('ws').optional(),
  iat: z.number().int(),
  exp: z.number().int(),
});
export type TokenClaims = z.infer<typeof TokenClaims>;

/** The caller, as routes see it through `c.get('principal')`. */
export interface Principal {
  sub: string;
  roles: string[];
  scopes: Scope[];
  /** Allowed stream-id prefixes; undefined means every stream. */
  streams?: string[];
  purpose?: 'ws';
  /** The admin secret itself (bootstrap identity that issues tokens). */
  admin?: boolean;
  exp: number;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes('admin');
}

export function mayTouchStream(principal: Principal, streamId: string): boolean {
  return !principal.streams || principal.streams.some((prefix) => streamId.startsWith(prefix));
}

/** Coordinator and admin identities may post orchestration Wires. */
export function isCoordinator(principal: Principal): boolean {
  return (
    principal.admin === true ||
    principal.scopes.includes('admin') ||
    principal.roles.includes('coordinator') ||
    principal.sub.startsWith('coordinator:')
  );
}
