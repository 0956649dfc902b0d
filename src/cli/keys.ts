import { rmSync } from 'node:fs';
import { type AgentKey, generateAgentKeyJwk, type WirestreamClient } from '../client';
import { emit, type Output } from './format';
import { readKeyFile, writeKeyFile } from './key-file';
import { keysCheck } from './keys-check';
import { envClient, envToken, processOutput, reportError, subjectOf } from './sub-main';
import { parseLine, UsageError, valueFlags } from './usage';

/**
 * `wirestream keys new|register|rotate|revoke|check`: an agent's Ed25519 signing
 * keys (agent-signed Wires). Registration, rotation and revocation are Wires
 * on the agent's own stream `agent:<id>`; once it has a key, every Wire the
 * agent posts must be signed: set WIRESTREAM_KEY to its key file and the CLI
 * (and any `envClient`) signs them.
 */
export const KEYS_COMMANDS = new Set(['keys']);

export const KEYS_USAGE = `signing keys (agent-signed Wires; WIRESTREAM_KEY: the key file the CLI signs with):
  keys new [--kid K] [--out FILE]                 write a new Ed25519 key file (0600, ~/.wirestream/keys/)
  keys register --key FILE [--agent agent:ID]     register its public key (agent.key.registered)
  keys rotate [--key FILE] [--out FILE] [--kid K] a new key replaces FILE's (default WIRESTREAM_KEY)
  keys revoke KID [--agent agent:ID] [--reason R] refuse KID's signatures from now on
  keys check TOPIC SEQ [--keys-topic T] [--coordinator ACCOUNT] [--mirror URL] [--data-key FILE]
                                                  did the agent sign this HCS message? (mirror only)`;

function parse(argv: string[]) {
  return parseLine(argv, {
    ...valueFlags(
      'kid',
      'out',
      'key',
      'agent',
      'reason',
      'keys-topic',
      'coordinator',
      'mirror',
      'data-key',
    ),
  });
}
type Flags = ReturnType<typeof parse>['values'];

/** The CLI's client, signing with `key` (else WIRESTREAM_KEY), as the token's subject. */
function clientFor(output: Output, key?: AgentKey): WirestreamClient {
  const sender = subjectOf(envToken());
  if (!sender) throw new UsageError('keys needs WIRESTREAM_TOKEN (the agent, or an admin)');
  return envClient(output, sender, key);
}

function agentOf(flags: Flags): string {
  const agent = flags.agent ?? subjectOf(envToken());
  if (!agent?.startsWith('agent:')) {
    throw new UsageError(
      'whose keys? pass --agent agent:ID (or use a token whose subject is an agent)',
    );
  }
  return agent;
}

async function register(flags: Flags, output: Output): Promise<number> {
  if (!flags.key) throw new UsageError('missing: --key FILE (from `wirestream keys new`)');
  const key = await readKeyFile(flags.key);
  const agent = agentOf(flags);
  // A first key signs its own registration; later ones need the current key (WIRESTREAM_KEY).
  const self = subjectOf(envToken()) === agent && !process.env.WIRESTREAM_KEY ? key : undefined;
  const { receipt } = await clientFor(output, self).append(agent, {
    type: 'agent.key.registered',
    payload: { kid: key.kid, alg: 'Ed25519', public_key: key.public_key },
  });
  emit(
    output,
    { agent, kid: key.kid, receipt },
    `registered ${key.kid} for ${agent} (seq ${receipt.stream_seq})`,
  );
  return 0;
}

async function rotate(flags: Flags, output: Output): Promise<number> {
  const file = flags.key ?? process.env.WIRESTREAM_KEY;
  if (!file) throw new UsageError('missing: --key FILE (the key in use), or WIRESTREAM_KEY');
  const old = await readKeyFile(file);
  const jwk = await generateAgentKeyJwk(flags.kid);
  // Written first: if the answer is lost after the server took the rotation, the key is not.
  const written = writeKeyFile(jwk, flags.out);
  const agent = agentOf(flags);
  try {
    await clientFor(output, old).append(agent, {
      type: 'agent.key.rotated',
      payload: { kid: jwk.kid, alg: 'Ed25519', public_key: jwk.x, previous_kid: old.kid },
    });
  } catch (error) {
    if ((error as { status?: number }).status !== undefined) rmSync(written, { force: true });
    throw error;
  }
  emit(
    output,
    { agent, kid: jwk.kid, previous_kid: old.kid, file: written },
    `${agent}: ${jwk.kid} replaces ${old.kid} (now retired)\nkey file: ${written}\nsign with it: export WIRESTREAM_KEY=${written}`,
  );
  return 0;
}

async function revoke(kid: string | undefined, flags: Flags, output: Output): Promise<number> {
  if (!kid) throw new UsageError('missing: wirestream keys revoke KID');
  const agent = agentOf(flags);
  const payload: Record<string, string> = flags.reason ? { kid, reason: flags.reason } : { kid };
  const { receipt } = await clientFor(output).append(agent, { type: 'agent.key.revoked', payload });
  emit(output, { agent, kid, receipt }, `revoked ${kid} of ${agent} (seq ${receipt.stream_seq})`);
  return 0;
}

/** Runs `keys …`; the exit code. */
export async function keysMain(argv: string[]): Promise<number> {
  const output = processOutput(argv);
  try {
    const { values, positionals } = parse(argv);
    switch (positionals[1]) {
      case 'new': {
        const jwk = await generateAgentKeyJwk(values.kid);
        const file = writeKeyFile(jwk, values.out);
        emit(output, { kid: jwk.kid, public_key: jwk.x, file }, `${jwk.kid}\t${file}`);
        return 0;
      }
      case 'register':
        return await register(values, output);
      case 'rotate':
        return await rotate(values, output);
      case 'revoke':
        return await revoke(positionals[2], values, output);
      case 'check':
        return await keysCheck(positionals[2], positionals[3], values, output);
      default:
        throw new UsageError(
          `unknown keys command "${positionals[1] ?? ''}": new|register|rotate|revoke`,
        );
    }
  } catch (error) {
    return reportError(error, output, KEYS_USAGE);
  }
}
