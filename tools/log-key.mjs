#!/usr/bin/env node
// Log mode's signing key (README, Rotating the log key):
//   npm run log-key -- [--name NAME]     a new signer key and its verifier key
//   npm run log-key -- --rotate [--vars FILE]
//       a new key with the current key's name (the log's origin is <name>/<topic>),
//       the current one's verifier key, and the LOG_VERIFIER_KEYS value that keeps
//       the checkpoints it signed verifiable. The current LOG_SIGNER_KEY and
//       LOG_VERIFIER_KEYS are read from the environment, else from FILE (.dev.vars).
// It prints; it changes nothing: `wrangler secret put` and the var are yours to set.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { logSignerKey, logVerifierKey, readVars } from './dev-tokens.mjs';

const { values } = parseArgs({
  options: {
    rotate: { type: 'boolean' },
    name: { type: 'string' },
    vars: { type: 'string', default: '.dev.vars' },
    json: { type: 'boolean' },
  },
});

function current() {
  const vars = existsSync(values.vars) ? readVars(values.vars) : new Map();
  const signer = process.env.LOG_SIGNER_KEY ?? vars.get('LOG_SIGNER_KEY');
  const earlier = process.env.LOG_VERIFIER_KEYS ?? vars.get('LOG_VERIFIER_KEYS') ?? '';
  if (!signer)
    throw new Error(`--rotate needs the current LOG_SIGNER_KEY (environment, or ${values.vars})`);
  return { verifier: logVerifierKey(signer), earlier: earlier.split(/[\s,]+/).filter(Boolean) };
}

try {
  const old = values.rotate ? current() : null;
  if (old && values.name && values.name !== old.verifier.split('+')[0])
    throw new Error('--rotate keeps the key name (a key with another name is another log)');
  const name = old ? old.verifier.split('+')[0] : (values.name ?? 'wirestream.local');
  const signer = logSignerKey(name);
  const verifier = logVerifierKey(signer);
  const verifierKeys = old ? [old.verifier, ...old.earlier.filter((k) => k !== old.verifier)] : [];
  if (values.json) {
    const out = { signer, verifier, ...(old ? { verifier_keys: verifierKeys.join(',') } : {}) };
    console.log(JSON.stringify(out));
  } else {
    console.log(`LOG_SIGNER_KEY (secret: wrangler secret put LOG_SIGNER_KEY):\n  ${signer}`);
    console.log(
      `its verifier key (publish it; pin it with wirestream verify --key):\n  ${verifier}`,
    );
    if (old)
      console.log(
        `LOG_VERIFIER_KEYS (wrangler.toml [vars], or wrangler deploy --var):\n  LOG_VERIFIER_KEYS = "${verifierKeys.join(',')}"`,
      );
  }
} catch (error) {
  console.error(`log-key: ${error.message}`);
  process.exit(2);
}
