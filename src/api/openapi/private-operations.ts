import * as z from 'zod';
import { AUTH, type Operation } from './operation';

/** Private payloads' admin routes (src/api/routes/admin-private.ts). */
const DataKey = z.object({
  kid: z.string(),
  project: z.string(),
  kek_kid: z.string(),
  wrapped: z.string().meta({ description: 'base64 of IV ‖ AES-256-GCM ciphertext under the KEK' }),
  created_at: z.string(),
  rewrapped_at: z.string().nullable(),
});

const PrivateKeys = z.object({
  projects: z.array(
    z.object({ name: z.string(), streams: z.array(z.string()), correlations: z.array(z.string()) }),
  ),
  kek_kids: z.array(z.string()).meta({ description: '`PAYLOAD_KEK` by id, current first' }),
  problems: z.array(z.string()).meta({ description: 'What is wrong with the configuration' }),
  keys: z.array(DataKey),
});

const Rewrap = z.object({
  kek_kid: z.string(),
  rewrapped: z.array(z.string()),
  current: z.int(),
  failed: z.array(z.object({ kid: z.string(), detail: z.string() })),
});

const ADMIN = 'admin (a token without stream prefixes)';

export const PRIVATE_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/v1/admin/private-keys',
    operationId: 'privateKeys',
    tag: 'Admin',
    summary: 'Private projects, key-encryption key ids and the wrapped data keys',
    access: 'bearer',
    scope: ADMIN,
    answers: { 200: { description: 'The keys', schema: PrivateKeys } },
    problems: AUTH,
  },
  {
    method: 'post',
    path: '/v1/admin/private-keys/rewrap',
    operationId: 'rewrapPrivateKeys',
    tag: 'Admin',
    summary: 'Re-wrap every data key under the current PAYLOAD_KEK (KEK rotation)',
    description:
      'Nothing is re-anchored: the data keys stay the same, only their wrapping changes. Keep the old KEK in `PAYLOAD_KEK` (after the new one) until `failed` is empty.',
    access: 'bearer',
    scope: ADMIN,
    answers: { 200: { description: 'What was re-wrapped', schema: Rewrap } },
    problems: [...AUTH, 'private-payloads-unavailable'],
  },
];
