import * as z from 'zod';
import { ExportBody } from '../routes/admin-private';
import { AUTH, BODY, type Operation } from './operation';

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

const ExportedKey = z.object({
  project: z.string(),
  kid: z
    .string()
    .meta({ description: 'The data key id, as sealed envelopes name it in `enc.kid`' }),
  alg: z.literal('A256GCM'),
  key: z.string().meta({ description: 'The raw 32-byte AES-256 key, base64url without padding' }),
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
  {
    method: 'post',
    path: '/v1/admin/private-keys/export',
    operationId: 'exportPrivateKey',
    tag: 'Admin',
    summary: "One private project's data key in the clear, for an auditor",
    description:
      "For `wirestream keys check … --data-key FILE` (save the answer as FILE): whoever holds it decrypts every payload of the project ever anchored, from mirror data alone, and rotating `PAYLOAD_KEK` does not take that back. Hand it only to whom may read the project's whole history.",
    access: 'bearer',
    scope: ADMIN,
    body: { schema: ExportBody, required: true, description: 'Which project' },
    answers: { 200: { description: 'The data key', schema: ExportedKey } },
    problems: [...AUTH, ...BODY, 'invalid-body', 'not-found', 'private-payloads-unavailable'],
  },
];
