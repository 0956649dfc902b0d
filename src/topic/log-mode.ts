import { checkpointMessage, noteOfMessage } from '../anchor/log/hcs27';
import {
  appendLeaf,
  consistencyProof,
  inclusionProof,
  leafHash,
  rootAt,
  sha256,
} from '../anchor/log/merkle';
import { checkpointText, type NoteSigner, type NoteVerifier, signNote } from '../anchor/log/note';
import { type Env, intVar } from '../env';
import type { Sql } from '../kernel/sql';
import { toBase64 } from '../protocol/base64';
import { type CheckpointRow, Checkpoints, LogLeaves, SqlSubtrees } from './log-store';
import type { TopicLog } from './topic-log';

/**
 * Log mode (issue 31): instead of one HCS message per Wire, a topic's Wires
 * are the leaves of an RFC 9162 Merkle tree, and every `every` Wires or `ms`
 * milliseconds (whichever first) one signed C2SP checkpoint of that tree goes
 * to HCS, in an HCS-27 `register` message (`hcs27.ts`). Each checkpoint
 * commits to the one before it with an extension line `prev <base64 SHA-256
 * of the previous signed note>`, and its HCS-27 metadata names the previous
 * checkpoint's size and root. Once HCS confirms a
 * checkpoint, its Wires take its anchor (topic, sequence number, consensus
 * time) and are reported to their streams as envelope-mode anchors are.
 */
export interface AnchoringSettings {
  mode: 'envelope' | 'log';
  /** Wires per checkpoint at most (`LOG_CHECKPOINT_EVERY`). */
  every: number;
  /** Longest a Wire waits for its checkpoint to be made, in ms (`LOG_CHECKPOINT_MS`). */
  ms: number;
}

export const DEFAULT_CHECKPOINT_EVERY = 256;
export const DEFAULT_CHECKPOINT_MS = 500;
/** Leaves added per pass at most (each costs a few SHA-256s and SQLite writes). */
const LEAF_BATCH = 500;
const UTF8 = new TextEncoder();

/** The deployment's settings (wrangler vars), under a topic's own override if it has one. */
export function anchoringSettings(
  env: Pick<Env, 'ANCHOR_MODE' | 'LOG_CHECKPOINT_EVERY' | 'LOG_CHECKPOINT_MS'>,
  override: Partial<AnchoringSettings> | null,
): AnchoringSettings {
  return {
    mode: override?.mode ?? (env.ANCHOR_MODE === 'log' ? 'log' : 'envelope'),
    every: override?.every ?? intVar(env.LOG_CHECKPOINT_EVERY, DEFAULT_CHECKPOINT_EVERY),
    ms: override?.ms ?? intVar(env.LOG_CHECKPOINT_MS, DEFAULT_CHECKPOINT_MS),
  };
}

/** Where each effective setting comes from: the topic's own, the deployment's vars, or the default. */
export type SettingSource = 'topic' | 'deployment' | 'default';

export function settingSources(
  env: Pick<Env, 'ANCHOR_MODE' | 'LOG_CHECKPOINT_EVERY' | 'LOG_CHECKPOINT_MS'>,
  own: Partial<AnchoringSettings> | null,
): Record<keyof AnchoringSettings, SettingSource> {
  const from = (mine: unknown, deployed: boolean): SettingSource =>
    mine !== undefined ? 'topic' : deployed ? 'deployment' : 'default';
  const isInt = (v: string | undefined) => intVar(v, 0) > 0;
  return {
    mode: from(own?.mode, env.ANCHOR_MODE === 'log' || env.ANCHOR_MODE === 'envelope'),
    every: from(own?.every, isInt(env.LOG_CHECKPOINT_EVERY)),
    ms: from(own?.ms, isInt(env.LOG_CHECKPOINT_MS)),
  };
}

/** A log's origin line: the deployment (its signer key's name) and the HCS topic. */
export const logOrigin = (key: NoteVerifier, hcsTopicId: string) => `${key.name}/${hcsTopicId}`;

/** A checkpoint as the proof endpoints show it. */
export interface CheckpointView {
  tree_size: number;
  /** The C2SP signed note; the HCS message (`hcs27.ts`) is on the mirror at `hcs_sequence_number`. */
  checkpoint: string;
  hcs_sequence_number: number;
  consensus_timestamp: string;
  running_hash: string;
}

export interface InclusionView {
  leaf: string;
  leaf_index: number;
  tree_size: number;
  inclusion_path: string[];
  checkpoint: CheckpointView;
}

export type ConsistencyView =
  | { ok: true; from: CheckpointView; to: CheckpointView; consistency_path: string[] }
  | { ok: false; parameter: 'from' | 'to'; detail: string };

export class TopicLogMode {
  readonly tree: SqlSubtrees;
  readonly leaves: LogLeaves;
  readonly checkpoints: Checkpoints;

  constructor(
    sql: Sql,
    private readonly wires: TopicLog,
  ) {
    this.tree = new SqlSubtrees(sql);
    this.leaves = new LogLeaves(sql);
    this.checkpoints = new Checkpoints(sql, wires);
  }

  /** Makes the topic's new Wires leaves, in topic order; true if more are waiting. */
  async grow(): Promise<boolean> {
    const fresh = this.leaves.fresh(LEAF_BATCH);
    let size = this.leaves.size();
    try {
      for (const { pos, message } of fresh) {
        const bytes = UTF8.encode(message);
        await appendLeaf(this.tree, size, await leafHash(bytes));
        this.leaves.add(size, pos, bytes);
        size += 1;
      }
    } catch (error) {
      this.tree.discard();
      this.leaves.discard();
      throw error;
    }
    // The batch's hashes, then its leaves, one statement each (not three per
    // leaf), after its last hash: a crash half-way adds no leaf. (A hash a
    // cache miss stored early is the same when the batch is done again.)
    this.tree.flush();
    this.leaves.flush();
    return fresh.length === LEAF_BATCH;
  }

  /** Whether there is anything to checkpoint, send or apply. */
  busy(): boolean {
    const last = this.checkpoints.last();
    return (
      this.leaves.size() > (last?.tree_size ?? 0) ||
      this.checkpoints.unanchored(1).length > 0 ||
      this.checkpoints.unapplied().length > 0
    );
  }

  /**
   * Signs every checkpoint now due: one per `every` leaves, then one for the
   * rest once the oldest of them has waited `ms`. Returns when the next one
   * falls due (ms since the epoch), or null if no leaf is waiting.
   */
  async checkpoint(
    signer: NoteSigner,
    origin: string,
    s: AnchoringSettings,
    now: number,
  ): Promise<number | null> {
    for (;;) {
      const size = this.leaves.size();
      const last = this.checkpoints.last();
      const from = last?.tree_size ?? 0;
      if (size <= from) return null;
      const full = size - from >= s.every;
      const dueAt = (this.leaves.acceptedAt(from) ?? now) + s.ms;
      if (!full && dueAt > now) return dueAt;
      const to = full ? from + s.every : size;
      const lastNote = last ? noteOfMessage(last.message) : null;
      const prev = lastNote ? [`prev ${toBase64(await sha256(UTF8.encode(lastNote)))}`] : [];
      const root = await rootAt(this.tree, to);
      const text = checkpointText({ origin, size: to, root, extensions: prev });
      const note = await signNote(text, signer);
      this.checkpoints.add(to, checkpointMessage(note, last?.message ?? null));
    }
  }

  /** Gives the Wires of each newly confirmed checkpoint its anchor; returns how many. */
  applyConfirmed(now: number): number {
    let applied = 0;
    for (const { row, from } of this.checkpoints.unapplied()) {
      const positions = this.leaves.positions(from, row.tree_size);
      this.wires.recordAnchors(positions, anchorFieldsOf(row), now);
      applied += positions.length;
      this.checkpoints.markApplied(row.pos);
    }
    return applied;
  }

  /** The inclusion proof of the Wire at `pos` in the first confirmed checkpoint holding it. */
  async inclusion(pos: number, leaf: string): Promise<InclusionView | null> {
    const index = this.leaves.leafOf(pos);
    const checkpoint = index === null ? null : this.checkpoints.covering(index);
    if (index === null || checkpoint === null) return null;
    const path = await inclusionProof(this.tree, index, checkpoint.tree_size);
    return {
      leaf,
      leaf_index: index,
      tree_size: checkpoint.tree_size,
      inclusion_path: path.map(toBase64),
      checkpoint: viewOf(checkpoint),
    };
  }

  /** RFC 9162 consistency between two confirmed checkpoints of this log. */
  async consistency(from: number, to: number): Promise<ConsistencyView> {
    if (from > to)
      return { ok: false, parameter: 'from', detail: `from ${from} is above to ${to}` };
    const older = this.checkpoints.ofSize(from);
    if (!older) return { ok: false, parameter: 'from', detail: notCheckpointed(from) };
    const newer = this.checkpoints.ofSize(to);
    if (!newer) return { ok: false, parameter: 'to', detail: notCheckpointed(to) };
    const path = await consistencyProof(this.tree, from, to);
    return {
      ok: true,
      from: viewOf(older),
      to: viewOf(newer),
      consistency_path: path.map(toBase64),
    };
  }
}

const notCheckpointed = (size: number) =>
  `no checkpoint of this log confirmed on HCS has tree size ${size}`;

function anchorFieldsOf(row: CheckpointRow) {
  return {
    hcs_topic_id: '',
    hcs_sequence_number: row.hcs_sequence_number ?? 0,
    consensus_timestamp: row.consensus_timestamp ?? '',
    running_hash: row.running_hash ?? '',
    hcs_chunks: row.hcs_chunks ?? 1,
  };
}

function viewOf(row: CheckpointRow): CheckpointView {
  const { hcs_sequence_number, consensus_timestamp, running_hash } = anchorFieldsOf(row);
  return {
    tree_size: row.tree_size,
    checkpoint: noteOfMessage(row.message),
    hcs_sequence_number,
    consensus_timestamp,
    running_hash,
  };
}
