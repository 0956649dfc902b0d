import { DurableObject } from 'cloudflare:workers';
import { hederaConfig } from '../anchor/config';
import { logKeys } from '../anchor/log/keyring';
import { type Env, intVar } from '../env';
import { firstRow, parseRows, rowShape, sqlOf } from '../kernel/sql';
import { envelopeOpener } from '../private/sealer';
import { topicRecords } from '../topic/topic-records';
import { archiveCheck } from './archive-verify';
import { mirrorSource, openSealed } from './mirror-source';
import { ownWires } from './own-wires';
import { markFailed, staleModels, stepRebuild } from './rebuild';
import { newRebuild, type RebuildProgress, type RebuildState } from './rebuild-state';
import type { ModelName } from './reducer';
import { useSettings } from './reducer';

/** Wall time one alarm spends on steps before it saves and re-arms. */
const SLICE_MS = 2_000;
/**
 * Times a failing step is retried before the rebuild is given up (after 1, 2,
 * 4, 8, 16, 30 s: a mirror or D1 outage of a minute is ridden out).
 */
const RETRIES = 6;
const RETRY_MAX_MS = 30_000;

/** A progress line as the API streams it: a step's report, a retry, or the end. */
export type RebuildLine =
  | RebuildProgress
  | { phase: 'retry'; attempt: number; detail: string }
  | { phase: 'error'; detail: string };

const LINE_ROW = rowShape('rebuild line', { n: 'number', text: 'text' });
const RUNNING_ROW = rowShape('rebuild job', { id: 'text', state: 'text', attempts: 'number' });
const JOB_ROW = rowShape('rebuild job', {
  id: 'text',
  status: ['running', 'done', 'failed'],
  state: 'text',
  started_at: 'text',
  finished_at: 'text?',
});

export interface RebuildJob {
  id: string;
  status: 'running' | 'done' | 'failed';
  models: ModelName[];
  full: boolean;
  started_at: string;
  finished_at: string | null;
}

export type StartOutcome = { started: true; job: RebuildJob } | { started: false; job: RebuildJob };

/**
 * Runs `POST /v1/admin/rebuild` on its own, one rebuild at a time (a single
 * instance, named "projection"). The rebuild is a series of small idempotent
 * steps (src/projection/rebuild.ts) driven by this object's alarm, with the
 * state saved after each: a caller that hangs up, a restarted isolate or a
 * failing step leaves it running or resumed, never half done with the models
 * stuck. Progress lines are kept here for callers to follow.
 */
export class Rebuilder extends DurableObject<Env> {
  readonly #sql: ReturnType<typeof sqlOf>;
  /** An alarm is stepping the rebuild in this instance right now. */
  #stepping = false;
  /** Followers waiting for the next line. */
  readonly #waiting = new Set<() => void>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Read models fold with this deployment's rules, as the deciders do.
    useSettings(env as unknown as Record<string, unknown>);
    this.#sql = sqlOf(ctx.storage.sql);
    this.#sql`CREATE TABLE IF NOT EXISTS job (
      one INTEGER PRIMARY KEY CHECK (one = 1), id TEXT NOT NULL, status TEXT NOT NULL,
      state TEXT NOT NULL, attempts INTEGER NOT NULL, started_at TEXT NOT NULL,
      finished_at TEXT)`;
    this.#sql`CREATE TABLE IF NOT EXISTS line (n INTEGER PRIMARY KEY, text TEXT NOT NULL)`;
  }

  /**
   * Starts a rebuild of `models` (every model and wire_events when omitted;
   * `stale`: those whose reducer version changed) over `topics`, unless one
   * is running: then says which.
   */
  async start(models: ModelName[] | 'stale' | undefined, topics: string[]): Promise<StartOutcome> {
    const chosen = models === 'stale' ? await staleModels(this.env.DB) : models;
    // Checked after the await, with no await until the job is written: two
    // starts cannot both see no rebuild running.
    const running = this.#job();
    if (running?.status === 'running') return { started: false, job: running };
    const state = newRebuild(topics, chosen, Date.now());
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    this.#sql`DELETE FROM line`;
    this.#sql`INSERT OR REPLACE INTO job (one, id, status, state, attempts, started_at)
      VALUES (1, ${id}, 'running', ${JSON.stringify(state)}, 0, ${now})`;
    if (chosen !== undefined && chosen.length === 0) {
      // Nothing is stale: done before it began.
      this.#finish(id, 'done', {
        phase: 'done',
        models: [],
        topics: 0,
        streams: 0,
        wires: 0,
        skipped: 0,
        refused: 0,
        ahead_of_mirror: 0,
        seconds: 0,
        wires_per_second: 0,
      });
    } else {
      await this.ctx.storage.setAlarm(Date.now());
    }
    return { started: true, job: this.#job() as RebuildJob };
  }

  /** The running or last rebuild, if any. */
  current(): RebuildJob | null {
    return this.#job();
  }

  /**
   * Progress lines of rebuild `id` after line `after` (0: from the first);
   * while it runs and has none, waits up to `waitMs` for the next.
   */
  async follow(
    id: string,
    after: number,
    waitMs = 0,
  ): Promise<{ lines: string[]; next: number; status: RebuildJob['status'] | 'gone' }> {
    let job = this.#job();
    if (!job || job.id !== id) return { lines: [], next: after, status: 'gone' };
    // Self-healing: a running rebuild always has an alarm ahead of it, or one
    // stepping it.
    if (
      job.status === 'running' &&
      !this.#stepping &&
      (await this.ctx.storage.getAlarm()) === null
    ) {
      await this.ctx.storage.setAlarm(Date.now());
    }
    const newer = () =>
      parseRows(
        LINE_ROW,
        this.#sql`SELECT n, text FROM line WHERE n > ${after} ORDER BY n LIMIT 500`,
      );
    let rows = newer();
    if (rows.length === 0 && job.status === 'running' && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, waitMs);
        this.#waiting.add(wake);
      });
      rows = newer();
      job = this.#job() ?? job;
    }
    return {
      lines: rows.map((r) => r.text),
      next: rows.at(-1)?.n ?? after,
      // Finished only once every line is handed out.
      status: rows.length === 500 ? 'running' : job.status,
    };
  }

  override async alarm(): Promise<void> {
    const row = firstRow(
      RUNNING_ROW,
      this.#sql`SELECT id, state, attempts FROM job WHERE status = 'running'`,
    );
    if (!row) return;
    let state = JSON.parse(row.state) as RebuildState;
    // Log-mode topics: checkpoints on HCS, entries from the R2 archive, verified; private
    // payloads opened with their data keys (a rebuild with the key is exact).
    const keys = await logKeys(this.env);
    if (!keys.ok && keys.field === 'LOG_VERIFIER_KEYS') {
      // Every checkpoint of an earlier key would be refused: stop, as on a failed step.
      await markFailed(this.env.DB, state.models).catch(() => {});
      this.#finish(row.id, 'failed', { phase: 'error', detail: keys.detail });
      return;
    }
    const log = await archiveCheck(this.env);
    // Only the Wires the coordinator took: anyone may write to a topic.
    const source = openSealed(
      ownWires(
        mirrorSource(hederaConfig(this.env).mirrorUrl, undefined, log),
        await topicRecords(this.env),
      ),
      envelopeOpener(this.env),
    );
    const report = (p: RebuildProgress) => this.#line(p);
    const until = Date.now() + SLICE_MS;
    // Failures in a row: a step that succeeds starts the count again.
    let failures = row.attempts;
    this.#stepping = true;
    try {
      while (state.phase !== 'done' && Date.now() < until) {
        state = await stepRebuild(this.env.DB, source, state, report);
        failures = 0;
        this
          .#sql`UPDATE job SET state = ${JSON.stringify(state)}, attempts = 0 WHERE id = ${row.id}`;
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const attempt = failures + 1;
      if (attempt <= intVar(this.env.REBUILD_RETRIES, RETRIES)) {
        console.warn(`rebuild: step failed (attempt ${attempt}), retrying`, error);
        this.#line({ phase: 'retry', attempt, detail });
        this.#sql`UPDATE job SET attempts = ${attempt} WHERE id = ${row.id}`;
        await this.ctx.storage.setAlarm(Date.now() + Math.min(500 * 2 ** attempt, RETRY_MAX_MS));
        return;
      }
      console.error('rebuild failed', error);
      // Back to live ('settle') is not caught up: the Wires that came while
      // live projection left the models alone are folded by the catch-up
      // only, so until a rebuild succeeds they are stale, and say so.
      await markFailed(this.env.DB, state.models).catch(() => {});
      this.#finish(row.id, 'failed', { phase: 'error', detail });
      return;
    } finally {
      this.#stepping = false;
    }
    if (state.phase === 'done') this.#finish(row.id, 'done', null);
    else await this.ctx.storage.setAlarm(Date.now());
  }

  #line(line: RebuildLine): void {
    this.#sql`INSERT INTO line (text) VALUES (${JSON.stringify(line)})`;
    this.#wake();
  }

  #finish(id: string, status: 'done' | 'failed', last: RebuildLine | null): void {
    if (last) this.#sql`INSERT INTO line (text) VALUES (${JSON.stringify(last)})`;
    this.#sql`UPDATE job SET status = ${status}, finished_at = ${new Date().toISOString()}
      WHERE id = ${id}`;
    this.#wake();
  }

  #wake(): void {
    for (const wake of [...this.#waiting]) wake();
  }

  #job(): RebuildJob | null {
    const row = firstRow(
      JOB_ROW,
      this.#sql`SELECT id, status, state, started_at, finished_at FROM job`,
    );
    if (!row) return null;
    const state = JSON.parse(row.state) as RebuildState;
    return {
      id: row.id,
      status: row.status,
      models: state.models,
      full: state.full,
      started_at: row.started_at,
      finished_at: row.finished_at,
    };
  }
}

/** The one Rebuilder. */
export function rebuilderStub(env: Pick<Env, 'REBUILDER'>) {
  return env.REBUILDER.get(env.REBUILDER.idFromName('projection'));
}
