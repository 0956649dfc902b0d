import { SELF } from 'cloudflare:test';
import { ulid } from 'ulidx';
import { authHeaders } from './auth';

/** Seed 002 helpers: runs, actor messages, reads — all over HTTP, as a client sees them. */

export const BASE = 'https://ws.test/v1';
export const WRITER = 'agent:writer-1';
export const CONDUCTOR = 'coordinator:conductor-1';
export const WORKER = 'agent:researcher-1';
export const HUMAN = 'human:ana';

let n = 0;
export function runId(): string {
  return ulid();
}
export function msgId(prefix = 'm'): string {
  n += 1;
  return `${prefix}-${Date.now().toString(36)}-${n}`;
}

export async function call(
  method: string,
  path: string,
  as: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method,
    headers: {
      ...(await authHeaders(as)),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

export interface RunSetup {
  run_id: string;
  workers?: string[];
  conductors?: string[];
  writer?: string;
}

export async function createRun(opts: Partial<RunSetup> = {}) {
  const id = opts.run_id ?? runId();
  const res = await call('POST', '/runs', opts.conductors?.[0] ?? CONDUCTOR, {
    run_id: id,
    title: 'Research run',
    sections: [
      { id: 'summary', title: 'Summary', body: 'Prompt: how do HCS topics order messages?' },
      { id: 'findings', title: 'Findings' },
    ],
    writer: opts.writer ?? WRITER,
    conductors: opts.conductors ?? [CONDUCTOR],
    workers: opts.workers ?? [WORKER],
  });
  if (res.status !== 201) throw new Error(`createRun ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

export function message(run: string, as: string, body: Record<string, unknown>) {
  return call('POST', `/runs/${run}/messages`, as, { run_id: run, message_id: msgId(), ...body });
}

export const patch = (section: string, body: string, proposal: boolean) => ({
  type: 'WriterApplyPatch',
  section,
  ops: [{ op: 'replace', path: '/body', value: body }],
  proposal,
});

/** A note appended under `section`, as a proposal or straight into canon. */
export const note = (section: string, markdown: string, proposal: boolean) => ({
  type: 'WriterAppendNote',
  section,
  markdown,
  proposal,
});

/** Every kind of document change there is: what the conductor tries and must be refused. */
export function mutations(proposalId: string): Record<string, unknown>[] {
  return [
    patch('findings', 'conductor text', false),
    patch('findings', 'conductor text', true),
    { type: 'WriterAppendNote', section: 'summary', markdown: 'note', proposal: false },
    { type: 'WriterAppendNote', section: 'summary', markdown: 'note', proposal: true },
    { type: 'WriterMarkSectionState', section: 'summary', state: 'final' },
    { type: 'WriterAcceptProposal', proposal_id: proposalId },
    { type: 'WriterDeclineProposal', proposal_id: proposalId },
  ];
}

export const CONDUCTOR_REFUSED = 'conductor holds no mutation capability';

export async function documentOf(run: string, revision?: number) {
  const q = revision === undefined ? '' : `?revision=${revision}`;
  return call('GET', `/runs/${run}/document${q}`, WRITER);
}

export async function revisionsOf(run: string) {
  const res = await call('GET', `/runs/${run}/revisions`, WRITER);
  return res.body as {
    latest_revision: number;
    revisions: {
      revision: number;
      message_id: string;
      sender: string;
      proposal_id: string | null;
    }[];
  };
}

/** The last seq of a run's control stream: what a refused message must leave as it was. */
export async function lastSeq(run: string): Promise<number> {
  return Number((await call('GET', `/runs/${run}/wires`, WRITER)).body.last_seq);
}

export function bodyOf(doc: Record<string, unknown>, section: string): string {
  const d = doc.document as { sections: Record<string, { body: string }> };
  return d.sections[section]?.body ?? '';
}

export interface FollowedWire {
  stream_seq: number;
  wire_id: string;
  type: string;
  sender: string;
  payload: Record<string, unknown>;
}

/** A live follower of a run's plane (`mailbox`, `trace`, `wires`) over the WebSocket route. */
export class PlaneFollower {
  readonly wires: FollowedWire[] = [];
  /** Every other frame the socket sent (`error`, `pong`, …). */
  readonly frames: { kind: string; detail?: string }[] = [];
  #waiters: (() => void)[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as { kind: string; wires?: FollowedWire[] };
      if (frame.kind !== 'wires') this.frames.push(frame);
      if (frame.kind === 'wires' && frame.wires) {
        this.wires.push(...frame.wires);
        const last = frame.wires.at(-1);
        if (last) ws.send(JSON.stringify({ kind: 'ack', seq: last.stream_seq }));
      }
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  static async open(
    run: string,
    plane: string,
    afterSeq: number,
    as = WRITER,
  ): Promise<PlaneFollower> {
    const res = await SELF.fetch(`${BASE}/runs/${run}/${plane}/ws?after_seq=${afterSeq}`, {
      headers: { Upgrade: 'websocket', ...(await authHeaders(as)) },
    });
    if (res.status !== 101 || !res.webSocket)
      throw new Error(`upgrade failed: ${res.status} ${await res.text()}`);
    res.webSocket.accept();
    return new PlaneFollower(res.webSocket);
  }

  async until(predicate: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out; saw ${this.wires.length} wires`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close() {
    try {
      this.ws.close(1000, 'done');
    } catch {
      // already closed
    }
  }
}

/** A worker's progress Wire on the run's trace stream (the generic append path). */
export async function progress(run: string, as: string, i: number, type = 'worker.progress') {
  const res = await SELF.fetch(`${BASE}/streams/run-trace:${run}/wires`, {
    method: 'POST',
    headers: { ...(await authHeaders(as)), 'Content-Type': 'application/json' },
    body: JSON.stringify({
      wire: '1.1',
      wire_id: msgId('trace'),
      stream_id: `run-trace:${run}`,
      correlation_id: null,
      causation_id: null,
      type,
      sender: as,
      ts: new Date().toISOString(),
      payload: { run_id: run, worker_id: as, message: `step ${i}`, pct: Math.min(100, i) },
    }),
  });
  if (res.status !== 201) throw new Error(`progress ${res.status} ${await res.text()}`);
  return (await res.json()) as { stream_seq: number };
}
