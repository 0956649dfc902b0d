import { DurableObject } from 'cloudflare:workers';
import { backdatedNow, nextValidStart } from '../anchor';
import type { Env } from '../env';
import { firstRow, parseRows, rebuildIfOutdated, rowShape, sqlOf } from '../kernel/sql';
import { type DataKeyRow, DataKeys, type RewrapReport } from '../private/key-store';

/**
 * The one place that knows every topic (one instance, named "directory"):
 * topic name ↔ HCS topic id, which Wire went to which topic (so
 * `/v1/wires/{id}/proof` needs only the id), the listener's alerts, and the
 * valid starts of the operator's transaction ids.
 */
export interface TopicEntry {
  name: string;
  hcs_topic_id: string;
  created_at: string;
}

export type AlertKind =
  | 'sequence-gap'
  | 'running-hash-mismatch'
  | 'content-mismatch'
  | 'hcs-first-rejected'
  | 'hcs-first-ingested';

export interface Alert {
  id?: number;
  at: string;
  topic: string;
  hcs_topic_id: string;
  kind: AlertKind;
  sequence_number: number | null;
  detail: string;
}

const LOCATION_ROW = rowShape('wire_index', { stream_id: 'text', topic: 'text' });
export type WireLocation = ReturnType<typeof LOCATION_ROW.parse>;
const VALUE_ROW = rowShape('directory meta', { value: 'text' });
const TOPIC_ENTRY_ROW = rowShape('topics', {
  name: 'text',
  hcs_topic_id: 'text',
  created_at: 'text',
});
const ALERT_ROW = rowShape('alerts', {
  id: 'number',
  at: 'text',
  topic: 'text',
  hcs_topic_id: 'text',
  kind: 'text',
  sequence_number: 'number?',
  detail: 'text',
});

export class TopicDirectory extends DurableObject<Env> {
  readonly #sql: ReturnType<typeof sqlOf>;
  /** Private payloads' data keys, wrapped (src/private/key-store.ts). */
  readonly #dataKeys: DataKeys;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = sqlOf(ctx.storage.sql);
    this.#sql = sql;
    sql`CREATE TABLE IF NOT EXISTS topics (name TEXT PRIMARY KEY, hcs_topic_id TEXT NOT NULL,
      created_at TEXT NOT NULL)`;
    // Keyed by stream too: a wire_id is unique within its stream only.
    const createIndex = () => sql`CREATE TABLE IF NOT EXISTS wire_index (wire_id TEXT NOT NULL,
      stream_id TEXT NOT NULL, topic TEXT NOT NULL, PRIMARY KEY (wire_id, stream_id))`;
    rebuildIfOutdated(ctx.storage, 'wire_index', 'wire_id TEXT PRIMARY KEY', createIndex);
    createIndex();
    sql`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`;
    sql`CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL,
      topic TEXT NOT NULL, hcs_topic_id TEXT NOT NULL, kind TEXT NOT NULL,
      sequence_number INTEGER, detail TEXT NOT NULL)`;
    this.#dataKeys = new DataKeys(sql, env);
  }

  /** A private project's data key (wrapped), made on first use. */
  dataKey(project: string): Promise<DataKeyRow> {
    return this.#dataKeys.forProject(project);
  }

  dataKeyById(kid: string): DataKeyRow | null {
    return this.#dataKeys.byKid(kid);
  }

  dataKeys(): DataKeyRow[] {
    return this.#dataKeys.list();
  }

  /** KEK rotation: every data key re-wrapped under the current `PAYLOAD_KEK`. */
  rewrapDataKeys(): Promise<RewrapReport> {
    return this.#dataKeys.rewrap();
  }

  /**
   * First valid starts (ns since the epoch, decimal) for messages of
   * `chunks[i]` transactions each, the chunks of one message 1 ns apart.
   * Every transaction id the coordinator signs is handed out here, strictly
   * after all earlier ones and stored before the caller hears it, so no two
   * TopicObjects, in any isolate, sign two messages under one id (HCS would
   * refuse the second as a duplicate, and its receipt is the other message's).
   */
  validStarts(chunks: number[]): string[] {
    if (chunks.length === 0) return [];
    const last = firstRow(VALUE_ROW, this.#sql`SELECT value FROM meta WHERE key = 'tx_mark'`);
    let next = nextValidStart(backdatedNow(), BigInt(last?.value ?? '0'));
    const starts: string[] = [];
    for (const n of chunks) {
      starts.push(String(next));
      next += BigInt(n);
    }
    this.#sql`INSERT INTO meta (key, value) VALUES ('tx_mark', ${String(next - 1n)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    return starts;
  }

  registerTopic(name: string, hcsTopicId: string): void {
    this.#sql`INSERT OR IGNORE INTO topics (name, hcs_topic_id, created_at)
      VALUES (${name}, ${hcsTopicId}, ${new Date().toISOString()})`;
  }

  topics(): TopicEntry[] {
    return parseRows(
      TOPIC_ENTRY_ROW,
      this.#sql`SELECT name, hcs_topic_id, created_at FROM topics ORDER BY created_at, name`,
    );
  }

  indexWires(topic: string, wires: { wire_id: string; stream_id: string }[]): void {
    if (wires.length === 0) return;
    // One statement per report (up to 500 Wires), not one per Wire: every
    // anchored Wire of every topic passes here.
    this.#sql`INSERT OR IGNORE INTO wire_index (wire_id, stream_id, topic)
      SELECT json_extract(value, '$.wire_id'), json_extract(value, '$.stream_id'), ${topic}
      FROM json_each(${JSON.stringify(wires)})`;
  }

  /** Every stream that has a Wire with this id, and the topic it is on. */
  locate(wireId: string): WireLocation[] {
    return parseRows(
      LOCATION_ROW,
      this
        .#sql`SELECT stream_id, topic FROM wire_index WHERE wire_id = ${wireId} ORDER BY stream_id`,
    );
  }

  recordAlerts(alerts: Alert[]): void {
    for (const a of alerts) {
      this.#sql`INSERT INTO alerts (at, topic, hcs_topic_id, kind, sequence_number, detail)
        VALUES (${a.at}, ${a.topic}, ${a.hcs_topic_id}, ${a.kind}, ${a.sequence_number}, ${a.detail})`;
    }
  }

  alerts(afterId: number, limit: number): Alert[] {
    return parseRows(
      ALERT_ROW,
      this.#sql`SELECT * FROM alerts WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`,
    ).map((r) => ({ ...r, kind: r.kind as AlertKind }));
  }
}

export function directoryStub(env: Pick<Env, 'TOPIC_DIRECTORY'>): DirectoryApi {
  return env.TOPIC_DIRECTORY.get(
    env.TOPIC_DIRECTORY.idFromName('directory'),
  ) as unknown as DirectoryApi;
}

/** The directory as its callers see it over RPC. */
export interface DirectoryApi {
  validStarts(chunks: number[]): Promise<string[]>;
  registerTopic(name: string, hcsTopicId: string): Promise<void>;
  topics(): Promise<TopicEntry[]>;
  indexWires(topic: string, wires: { wire_id: string; stream_id: string }[]): Promise<void>;
  locate(wireId: string): Promise<WireLocation[]>;
  recordAlerts(alerts: Alert[]): Promise<void>;
  alerts(afterId: number, limit: number): Promise<Alert[]>;
  dataKey(project: string): Promise<DataKeyRow>;
  dataKeyById(kid: string): Promise<DataKeyRow | null>;
  dataKeys(): Promise<DataKeyRow[]>;
  rewrapDataKeys(): Promise<RewrapReport>;
}
