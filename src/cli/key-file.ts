import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { type AgentKey, type AgentKeyJwk, agentKeyFromJwk } from '../client';
import { UsageError } from './usage';

/**
 * Key files for agent-signed Wires: an Ed25519 private JWK with its `kid`,
 * mode 0600, by default under `~/.wirestream/keys/` — never inside a git
 * work tree, where a commit would publish it.
 */

export const keyDir = () => path.join(homedir(), '.wirestream', 'keys');

/** The key a file holds; a UsageError naming the file when it holds none. */
export async function readKeyFile(file: string): Promise<AgentKey> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the key file ${file}: ${(error as Error).message}`);
  }
  try {
    return await agentKeyFromJwk(JSON.parse(text));
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
}

/** The git work tree holding `dir`, if any. */
function workTreeOf(dir: string): string | null {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git'))) return at;
    if (path.dirname(at) === at) return null;
  }
}

/** Writes a new key file (0600, never over an existing file); its path. */
export function writeKeyFile(jwk: AgentKeyJwk, file?: string): string {
  const target = path.resolve(file ?? path.join(keyDir(), `${jwk.kid}.jwk`));
  const repo = workTreeOf(path.dirname(target));
  if (repo !== null) {
    throw new UsageError(
      `${target} is inside the git work tree ${repo}: keep private keys out of repositories (default: ${keyDir()})`,
    );
  }
  mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(target, `${JSON.stringify(jwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw new UsageError(`cannot write ${target}: ${(error as Error).message}`);
  }
  return target;
}
