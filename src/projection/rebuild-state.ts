import type { ArchiveRefusal } from './archive-verify';
import type { TopicCursor } from './mirror-source';
import { modelNames } from './models';
import type { ModelName } from './reducer';
import type { FolderState } from './stream-folder';

/** What a rebuild reports while it runs (one line of NDJSON each). */
export type RebuildProgress =
  | { phase: 'start'; models: ModelName[]; full: boolean; topics: string[] }
  | { phase: 'read'; topic: string; messages: number; wires: number; skipped: number }
  | { phase: 'write'; streams: number; streams_total: number; wires: number }
  | { phase: 'catch-up'; wires: number }
  /** Log mode: an archived entry (or range) not projected, and why (`archive-verify.ts`). */
  | ({ phase: 'refused'; topic: string } & ArchiveRefusal)
  | {
      phase: 'done';
      models: ModelName[];
      topics: number;
      streams: number;
      wires: number;
      skipped: number;
      /** Log mode: archived entries refused (not projected). */
      refused: number;
      /** Anchored Wires D1 holds that the mirror did not show yet (kept, not dropped). */
      ahead_of_mirror: number;
      seconds: number;
      wires_per_second: number;
    };

export type Report = (progress: RebuildProgress) => void | Promise<void>;

/**
 * Everything a rebuild needs to go on from where it stopped: plain JSON, so a
 * Durable Object keeps it in storage between steps and resumes it after a
 * restart. Every step is idempotent: redoing one after a crash is harmless.
 */
export interface RebuildState {
  models: ModelName[];
  /** Every model and wire_events (rewritten from HCS), not chosen models only. */
  full: boolean;
  topics: string[];
  /** ms since the epoch, for the speed figure. */
  startedAt: number;
  /** `finish` puts the models back to live; `settle` folds what came meanwhile. */
  phase: 'begin' | 'read' | 'fold' | 'finish' | 'settle' | 'done';
  /** Reading: which topic, where in it, and that topic's counts so far. */
  topic: number;
  cursor: TopicCursor;
  topicCounts: { messages: number; wires: number; pages: number };
  /** Highest sequence number the mirror showed, per topic. */
  mirrorEnd: Record<string, number>;
  read: number;
  skipped: number;
  /** Log mode: archived entries refused (absent in a state saved before log mode). */
  refused?: number;
  /** Folding: the last (stream_id, stream_seq) folded, and the stream in hand. */
  foldAfter: [string, number];
  streamsTotal: number;
  folder: FolderState;
}

/** A rebuild about to begin: every model (a full rebuild) unless `models` chooses. */
export function newRebuild(
  topics: string[],
  models: ModelName[] | undefined,
  startedAt: number,
): RebuildState {
  return {
    models: models ?? [...modelNames()],
    full: models === undefined,
    topics,
    startedAt,
    phase: 'begin',
    topic: 0,
    cursor: { after: 0, pending: [] },
    topicCounts: { messages: 0, wires: 0, pages: 0 },
    mirrorEnd: {},
    read: 0,
    skipped: 0,
    foldAfter: ['', 0],
    streamsTotal: 0,
    folder: { streams: 0, wires: 0, stream: null, rows: [] },
  };
}
