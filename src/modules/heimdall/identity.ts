import * as z from 'zod';
import { fail, type Result } from '../../protocol';

/** A workspace id (`/v1/workspaces/{ws}`): workspaces exist at their first write. */
export const WorkspaceId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    'a workspace id is 1-64 characters: lower-case letters, digits, . _ - (starting with a letter or digit)',
  );

/** The client part of a sub-identity `<subject>/<client>` (the seed's HAID `{root}/{client}`). */
export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const Haid = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^(agent|human|coordinator):[A-Za-z0-9][A-Za-z0-9._@-]{0,110}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,63})?$/,
    'haid must be a token subject such as "agent:quinn", optionally with "/<client>" ("agent:quinn/cursor")',
  );

/** Does `sender` (a token subject, or `system`) speak for `haid`? */
export function speaksFor(sender: string, haid: string): boolean {
  return sender === 'system' || haid === sender || haid.startsWith(`${sender}/`);
}

/**
 * The identity a request acts as: the body's `haid` when it is the token's
 * subject or one of its sub-identities, the subject itself when absent.
 */
export function haidOf(subject: string, asked: unknown): Result<{ haid: string }> {
  if (asked === undefined || asked === null) return { ok: true, haid: subject };
  if (typeof asked !== 'string') return fail('forbidden', 'haid must be a string');
  const client = asked.startsWith(`${subject}/`) ? asked.slice(subject.length + 1) : null;
  if (asked === subject || (client !== null && CLIENT_NAME.test(client))) {
    return { ok: true, haid: asked };
  }
  return fail(
    'forbidden',
    `haid "${asked}" is neither the token's subject "${subject}" nor a sub-identity "${subject}/<client>"`,
    { extra: { field: 'haid', haid: asked, token_sub: subject } },
  );
}

export function surfacesStream(workspace: string): string {
  return `surfaces:${workspace}`;
}

export function workspaceStream(workspace: string): string {
  return `workspace:${workspace}`;
}

/** The workspace a heimdall stream id belongs to. */
export function workspaceOf(streamId: string): string {
  return streamId.slice(streamId.indexOf(':') + 1);
}
