// Development secrets and tokens for `npm start`: fills TOKEN_SECRET,
// ADMIN_TOKEN, LOG_SIGNER_KEY and PAYLOAD_KEK in .dev.vars with fresh values when they are
// missing or still the placeholder from .dev.vars.example, and prints the
// dashboard's address (with a read-only token) and a ready agent token.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
} from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { sign } from 'hono/jwt';

const PLACEHOLDER = 'generated-on-first-npm-start';

export function readVars(file) {
  const vars = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*)$/.exec(line);
    if (match) vars.set(match[1], match[2].trim().replace(/^"(.*)"$/, '$1'));
  }
  return vars;
}

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function keyId(name, pub) {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.of(1), pub]))
    .digest()
    .subarray(0, 4)
    .toString('hex');
}

/**
 * A C2SP signer key for log mode's checkpoints (src/anchor/log/note.ts):
 * `PRIVATE+KEY+<name>+<key id>+<base64(0x01 ‖ ed25519 seed)>`.
 */
export function logSignerKey(name = 'wirestream.local') {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return `PRIVATE+KEY+${name}+${keyId(name, pub)}+${Buffer.concat([Buffer.of(1), seed]).toString('base64')}`;
}

/**
 * The C2SP verifier key (`<name>+<key id>+<base64(0x01 ‖ public key)>`) of a
 * signer key; throws if `signer` is not one.
 */
export function logVerifierKey(signer) {
  const [p1, p2, name = '', id = '', ...rest] = signer.trim().split('+');
  const bytes = Buffer.from(rest.join('+'), 'base64');
  if (p1 !== 'PRIVATE' || p2 !== 'KEY' || name === '' || bytes.length !== 33 || bytes[0] !== 1)
    throw new Error('not a signer key PRIVATE+KEY+<name>+<id>+<key>');
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, bytes.subarray(1)]),
    format: 'der',
    type: 'pkcs8',
  });
  const pub = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  if (keyId(name, pub) !== id) throw new Error(`the key id ${id} does not match the key`);
  return `${name}+${id}+${Buffer.concat([Buffer.of(1), pub]).toString('base64')}`;
}

const FRESH = {
  TOKEN_SECRET: () => randomBytes(32).toString('base64url'),
  ADMIN_TOKEN: () => randomBytes(32).toString('base64url'),
  LOG_SIGNER_KEY: () => logSignerKey(),
  // Private payloads' key-encryption key (README, Private payloads): <kid>:<base64 32 bytes>.
  PAYLOAD_KEK: () =>
    `dev-${new Date().toISOString().slice(0, 10)}:${randomBytes(32).toString('base64')}`,
};

/** Makes sure `file` holds real secrets; returns them. */
export function ensureDevSecrets(file = '.dev.vars') {
  const vars = readVars(file);
  let text = readFileSync(file, 'utf8');
  for (const [name, make] of Object.entries(FRESH)) {
    const value = vars.get(name);
    if (value && value !== PLACEHOLDER) continue;
    const fresh = make();
    const line = `${name}=${fresh}`;
    text =
      value === undefined
        ? `${text.trimEnd()}\n${line}\n`
        : text.replace(new RegExp(`^\\s*${name}\\s*=.*$`, 'm'), line);
    vars.set(name, fresh);
    console.log(`generated ${name} in ${file}`);
  }
  writeFileSync(file, text);
  return { tokenSecret: vars.get('TOKEN_SECRET'), adminToken: vars.get('ADMIN_TOKEN') };
}

/** A 24-hour token signed like `POST /v1/tokens` signs them (an agent's, by default). */
export async function devToken(
  tokenSecret,
  sub = 'agent:dev',
  scopes = ['append', 'read', 'claim'],
) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub, roles: [], scopes, iat: now, exp: now + 24 * 3600 };
  return sign(claims, tokenSecret, 'HS256');
}

/**
 * What `npm start` prints once the Worker answers: the dashboard's address
 * with a read-only token in its fragment (a link to click; the fragment never
 * reaches the server), the agent and admin tokens, and a curl line.
 */
export async function devBanner(base, secrets) {
  const token = await devToken(secrets.tokenSecret);
  const viewer = await devToken(secrets.tokenSecret, 'human:dev', ['read']);
  const wire = `{"wire":"1.0","type":"agent.started","sender":"agent:dev","ts":"${new Date().toISOString()}","payload":{}}`;
  return [
    '',
    '─── Wirestream is up ───────────────────────────────────────────────',
    `dashboard (signed in as human:dev, read only, 24 h):\n  ${base}/#token=${viewer}`,
    `agent token (agent:dev; append, read, claim; 24 h):\n  ${token}`,
    `admin token (issues tokens via POST /v1/tokens):\n  ${secrets.adminToken}`,
    'try it:',
    `  curl -s -H "Authorization: Bearer ${token}" -H 'Content-Type: application/json' -d '${wire}' ${base}/v1/streams/agent:dev/wires`,
    '────────────────────────────────────────────────────────────────────',
    '',
  ].join('\n');
}

/** Prints the banner once the Worker answers. */
export async function printTokensWhenReady(base, secrets) {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/v1/schema/wire.json`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(await devBanner(base, secrets));
}
