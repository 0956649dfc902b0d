import type { Env } from '../env';
import { firstRow, parseRows, rowShape, type Sql } from '../kernel/sql';
import { type Kek, payloadKeks } from './config';
import { aesKey, unwrapBytes, wrapBytes } from './seal';

/**
 * The private projects' data keys, in the TopicDirectory's SQLite (one per
 * deployment): one random AES-256 key per project, stored only wrapped
 * (AES-256-GCM under a key-encryption key of `PAYLOAD_KEK`, bound to the
 * project and the key's id). Rotating the KEK re-wraps these rows and
 * nothing else: the data keys, so every anchored ciphertext, stay as they are.
 */
export const DATA_KEY_ROW = rowShape('payload_keys', {
  kid: 'text',
  project: 'text',
  kek_kid: 'text',
  wrapped: 'text',
  created_at: 'text',
  rewrapped_at: 'text?',
});
export type DataKeyRow = ReturnType<typeof DATA_KEY_ROW.parse>;

export interface RewrapReport {
  kek_kid: string;
  rewrapped: string[];
  current: number;
  failed: { kid: string; detail: string }[];
}

const labelOf = (row: Pick<DataKeyRow, 'kid' | 'project'>) =>
  `wirestream payload data key ${row.kid} of ${row.project}`;

function keks(env: Pick<Env, 'PAYLOAD_KEK'>): Kek[] {
  const parsed = payloadKeks(env);
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.value;
}

function kekNamed(env: Pick<Env, 'PAYLOAD_KEK'>, kid: string): Kek {
  const kek = keks(env).find((k) => k.kid === kid);
  if (!kek) throw new Error(`PAYLOAD_KEK has no key "${kid}", which wraps this data key`);
  return kek;
}

export class DataKeys {
  constructor(
    private readonly sql: Sql,
    private readonly env: Pick<Env, 'PAYLOAD_KEK'>,
  ) {
    sql`CREATE TABLE IF NOT EXISTS payload_keys (kid TEXT PRIMARY KEY, project TEXT NOT NULL UNIQUE,
      kek_kid TEXT NOT NULL, wrapped TEXT NOT NULL, created_at TEXT NOT NULL, rewrapped_at TEXT)`;
  }

  /** The project's data key, made (and wrapped under the current KEK) on first use. */
  async forProject(project: string): Promise<DataKeyRow> {
    const stored = this.#byProject(project);
    if (stored) return stored;
    const [kek] = keks(this.env);
    if (!kek) throw new Error('PAYLOAD_KEK holds no key');
    const kid = `dk-${[...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
    const wrapped = await wrapBytes(
      await aesKey(kek.key),
      crypto.getRandomValues(new Uint8Array(32)),
      labelOf({ kid, project }),
    );
    // No await from here: a concurrent first use made one already, or this one is kept.
    this.sql`INSERT OR IGNORE INTO payload_keys (kid, project, kek_kid, wrapped, created_at)
      VALUES (${kid}, ${project}, ${kek.kid}, ${wrapped}, ${new Date().toISOString()})`;
    return this.#byProject(project) as DataKeyRow;
  }

  byKid(kid: string): DataKeyRow | null {
    return firstRow(DATA_KEY_ROW, this.sql`SELECT * FROM payload_keys WHERE kid = ${kid}`);
  }

  list(): DataKeyRow[] {
    return parseRows(DATA_KEY_ROW, this.sql`SELECT * FROM payload_keys ORDER BY project`);
  }

  /** Re-wraps every data key not under the current KEK (the first of `PAYLOAD_KEK`). */
  async rewrap(): Promise<RewrapReport> {
    const [current] = keks(this.env);
    if (!current) throw new Error('PAYLOAD_KEK holds no key');
    const report: RewrapReport = { kek_kid: current.kid, rewrapped: [], current: 0, failed: [] };
    const target = await aesKey(current.key);
    for (const row of this.list()) {
      if (row.kek_kid === current.kid) {
        report.current++;
        continue;
      }
      try {
        const old = await aesKey(kekNamed(this.env, row.kek_kid).key);
        const raw = await unwrapBytes(old, row.wrapped, labelOf(row));
        const wrapped = await wrapBytes(target, raw, labelOf(row));
        this.sql`UPDATE payload_keys SET kek_kid = ${current.kid}, wrapped = ${wrapped},
          rewrapped_at = ${new Date().toISOString()} WHERE kid = ${row.kid} AND kek_kid = ${row.kek_kid}`;
        report.rewrapped.push(row.kid);
      } catch (error) {
        report.failed.push({ kid: row.kid, detail: (error as Error).message });
      }
    }
    return report;
  }

  #byProject(project: string): DataKeyRow | null {
    return firstRow(DATA_KEY_ROW, this.sql`SELECT * FROM payload_keys WHERE project = ${project}`);
  }
}

/** A stored data key's raw 32 bytes, unwrapped with the KEK that wrapped it (a clear error if it is gone). */
export async function unwrapDataKeyBytes(
  env: Pick<Env, 'PAYLOAD_KEK'>,
  row: DataKeyRow,
): Promise<Uint8Array> {
  const kek = await aesKey(kekNamed(env, row.kek_kid).key);
  try {
    return await unwrapBytes(kek, row.wrapped, labelOf(row));
  } catch {
    throw new Error(`PAYLOAD_KEK key "${row.kek_kid}" does not open data key ${row.kid}`);
  }
}

/** A stored data key, unwrapped with the KEK that wrapped it, as a key for AES-GCM. */
export async function unwrapDataKey(
  env: Pick<Env, 'PAYLOAD_KEK'>,
  row: DataKeyRow,
): Promise<CryptoKey> {
  return aesKey(await unwrapDataKeyBytes(env, row));
}
