import * as z from 'zod';
import type { McpBackend } from './contract';

/**
 * The seed's identity model: a client declares itself once at `initialize`
 * (`clientInfo.name`), in each 2026-07-28 request's `_meta`, or per call with
 * `client_identity`; its HAID is `{root}/{client}`, root = the token's subject.
 */

/** A client name as it may appear in a HAID (`agent:quinn/cursor`). */
export const ClientIdentity = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a client name: lowercase letters, digits, . _ - (1-64)')
  .meta({ description: 'Per-call client name (HAID suffix)' });

/** A declared `clientInfo.name` as a HAID suffix: `Claude Code` → `claude-code`; null if nothing is left. */
export function clientSlug(name: string | undefined | null): string | null {
  if (!name) return null;
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug === '' ? null : slug;
}

export function haidOf(root: string, client: string | null): string {
  return client ? `${root}/${client}` : root;
}

/** HAIDs this isolate registered already (a registration per HAID per isolate, not per call). */
const registered = new Set<string>();

/** Registers the HAID as active (role = the client), once per isolate. */
export async function registerHaid(
  backend: McpBackend,
  root: string,
  client: string | null,
): Promise<void> {
  const haid = haidOf(root, client);
  if (registered.has(haid)) return;
  await backend.registerHaid(haid, root, client, new Date().toISOString());
  registered.add(haid);
}
