import { type Failure, type FieldIssue, fail } from './failure';

/**
 * HCS is public and permanent, so a Wire that carries a secret-shaped value is
 * refused before it is stored. Patterns follow the published formats of each
 * issuer (GitHub, npm, AWS, PKCS#8 DER, RFC 7519) and err on the side of
 * refusing; the error names the field, never the value.
 */
interface SecretShape {
  name: string;
  pattern: RegExp;
}

const HEX_DER_PRIVATE =
  // PKCS#8 Ed25519 (Hedera's DER form), PKCS#8 secp256k1, SEC1 ECPrivateKey.
  /(302e020100300506032b657004220420|3030020100300706052b8104000a04220420|30(74|77)020101042)[0-9a-f]{40,}/i;

const SHAPES: SecretShape[] = [
  { name: 'a PEM private key', pattern: /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/ },
  { name: 'a DER-hex private key', pattern: HEX_DER_PRIVATE },
  { name: 'an AWS access key id', pattern: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/ },
  {
    name: 'an AWS secret access key',
    pattern: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}/i,
  },
  { name: 'a GitHub token', pattern: /\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}/ },
  { name: 'a GitHub token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/ },
  { name: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}/ },
  { name: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: 'a Stripe secret key', pattern: /\b[sr]k_live_[A-Za-z0-9]{16,}/ },
  { name: 'a JWT', pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/ },
  { name: 'a bearer credential', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{12,}=*/i },
  { name: 'a basic-auth credential', pattern: /\bBasic\s+[A-Za-z0-9+/]{12,}=*/ },
  {
    name: 'a private key assignment',
    pattern: /(private|secret|operator)[_-]?key["']?\s*[:=]\s*["']?(0x)?[0-9a-fA-F]{64}\b/i,
  },
];

/** Field names under which a bare 32-byte hex value is a (Hedera-form) private key. */
const KEY_NAME =
  /(private|secret|operator|signing)[_-]?key|priv[_-]?key|^key$|mnemonic|seed[_-]?phrase/i;
const RAW_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
/** A 12- or 24-word recovery phrase under a key-like name. */
const MNEMONIC = /^([a-z]+ ){11}[a-z]+$|^([a-z]+ ){23}[a-z]+$/;

/**
 * Every shape in one case-insensitive alternation: a superset of SHAPES (some
 * are case-sensitive), so a string it does not match matches none of them and
 * skips the thirteen separate tests; one it matches is named by the loop.
 */
const ANY_SHAPE = new RegExp(SHAPES.map((shape) => `(?:${shape.pattern.source})`).join('|'), 'i');

function shapeOf(value: string, key: string): string | null {
  if (ANY_SHAPE.test(value)) {
    for (const shape of SHAPES) if (shape.pattern.test(value)) return shape.name;
  }
  if (KEY_NAME.test(key) && (RAW_KEY.test(value.trim()) || MNEMONIC.test(value.trim()))) {
    return 'a raw private key';
  }
  return null;
}

const join = (at: string, key: string | number) => (at === '' ? String(key) : `${at}.${key}`);

/**
 * Every string (and key) in `value` that looks like a secret, with its field
 * path (`payload.note`; with `path` '' the body's own members: `correlation_id`).
 */
export function findSecrets(value: unknown, path = 'payload'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const visit = (node: unknown, at: string, key: string): void => {
    if (typeof node === 'string') {
      const shape = shapeOf(node, key);
      if (shape)
        issues.push({
          path: at || '(envelope)',
          message: `looks like ${shape}; secrets must never reach the ledger`,
        });
    } else if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) visit(item, join(at, i), key);
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        const shape = shapeOf(k, '');
        // The path stops at the parent: the key itself is the secret.
        if (shape) {
          issues.push({
            path: at || '(envelope)',
            message: `a field name here looks like ${shape}`,
          });
        }
        visit(v, join(at, k), k);
      }
    }
  };
  visit(value, path, '');
  return issues;
}

/**
 * The one secret check of the append path: every string a body carries —
 * payload, envelope fields, a dialect's own members — before it is decoded,
 * so each entry point and dialect refuses alike, naming the client's field.
 */
export function bodySecretsProblem(body: unknown): Failure | null {
  const issues = findSecrets(body, '');
  if (issues.length === 0) return null;
  return fail(
    'secret-in-payload',
    `refused before storing, the Wire holds a secret-shaped value: ${issues.map((s) => `${s.path} ${s.message}`).join('; ')}`,
    { errors: issues },
  );
}
