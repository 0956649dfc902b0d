import { env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, vi } from 'vitest';
import { authHeaders, coordinatorHeaders } from './auth';

/** Calls the coordination tests share: signed Wires from many senders, state and feeds. */

export const PLANNER = 'coordinator:planner';
const headers = new Map<string, Promise<Record<string, string>>>();

function headersFor(sender: string): Promise<Record<string, string>> {
  let h = headers.get(sender);
  if (!h) {
    h = sender.startsWith('coordinator:') ? coordinatorHeaders(sender) : authHeaders(sender);
    headers.set(sender, h);
  }
  return h;
}

let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

export type Body = Record<string, unknown>;
export interface Sent {
  status: number;
  body: Body;
}

export interface More {
  wire_id?: string;
  correlation_id?: string | null;
  causation_id?: string | null;
  ts?: string;
}

export async function send(
  streamId: string,
  type: string,
  sender: string,
  payload: Body,
  more: More = {},
): Promise<Sent> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(await headersFor(sender)) },
    body: JSON.stringify({
      wire: '1.1',
      wire_id: more.wire_id ?? uid('w'),
      stream_id: streamId,
      correlation_id: more.correlation_id ?? null,
      causation_id: more.causation_id ?? null,
      type,
      sender,
      ts: more.ts ?? new Date().toISOString(),
      payload,
    }),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

export const taskStream = (task: string, attempt = 1) => `task:${task}:attempt:${attempt}`;

/** The planner offers a task attempt to a role. */
export function offer(
  task: string,
  role: string,
  attempt = 1,
  project: string | null = null,
): Promise<Sent> {
  return send(
    taskStream(task, attempt),
    'task.available',
    PLANNER,
    { task_id: task, role, attempt },
    {
      correlation_id: project,
    },
  );
}

export interface ClaimOptions {
  attempt?: number;
  role?: string;
  units?: number;
  leaseSeconds?: number;
  type?: 'task.claimed' | 'task.claim';
  wire_id?: string;
}

export function claim(task: string, agent: string, opts: ClaimOptions = {}): Promise<Sent> {
  const payload: Body = {
    task_id: task,
    agent,
    role: opts.role ?? 'developer',
    lease_expires_at: new Date(Date.now() + (opts.leaseSeconds ?? 600) * 1000).toISOString(),
  };
  if (opts.units !== undefined) payload.capacity_units_reserved = opts.units;
  return send(
    taskStream(task, opts.attempt ?? 1),
    opts.type ?? 'task.claimed',
    `agent:${agent}`,
    payload,
    {
      ...(opts.wire_id ? { wire_id: opts.wire_id } : {}),
    },
  );
}

/** A fresh task offered to developers and claimed by `agent`: its id and the holder's fencing token. */
export async function heldTask(
  agent: string,
  opts: ClaimOptions = {},
): Promise<{ task: string; token: string }> {
  const task = uid('t');
  await offer(task, 'developer');
  const won = await claim(task, agent, opts);
  return { task, token: String(won.body.fencing_token) };
}

/** The problem a claim gets for a task that is `task_status` (blocked, expired, …), to match a body against. */
export const notAvailable = (task_status: string) => ({
  type: '/problems/task-not-available',
  task_status,
});

/** A fenced lifecycle Wire from `agent` on a task attempt. */
export function lifecycle(
  task: string,
  agent: string,
  type: string,
  token: string | undefined,
  payload: Body = {},
  attempt = 1,
  more: More = {},
): Promise<Sent> {
  const body: Body = { task_id: task, ...payload };
  if (token !== undefined) body.fencing_token = token;
  return send(taskStream(task, attempt), type, `agent:${agent}`, body, more);
}

export async function coordination(streamId: string): Promise<Body> {
  const res = await SELF.fetch(`https://ws.test/v1/coordination/${streamId}`, {
    headers: await headersFor(PLANNER),
  });
  const body = (await res.json()) as { state: Body };
  return body.state;
}

export interface FeedWire {
  wire_id: string;
  stream_seq: number;
  type: string;
  sender: string;
  causation_id: string | null;
  correlation_id: string | null;
  payload: Body;
}

export async function wiresOf(streamId: string): Promise<FeedWire[]> {
  const res = await SELF.fetch(`https://ws.test/v1/streams/${streamId}/wires?limit=1000`, {
    headers: await headersFor(PLANNER),
  });
  return ((await res.json()) as { wires: FeedWire[] }).wires;
}

export function setCapacity(agent: string, available: number, max: number): Promise<Sent> {
  return send(`agent:${agent}`, 'agent.capacity.updated', `agent:${agent}`, {
    available_units: available,
    max_units: max,
  });
}

/**
 * Time as data for a test file: `Date` is faked in this isolate (the
 * StreamObjects under test read the same clock), frozen until `advance`
 * moves it; the test fires alarms itself (runDurableObjectAlarm), nothing sleeps.
 */
export function fakeClock(): { advance(seconds: number): void } {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now());
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return { advance: (seconds) => vi.setSystemTime(Date.now() + seconds * 1000) };
}

/** The StreamObject of `streamId`, for runDurableObjectAlarm / runInDurableObject. */
export const streamStubOf = (streamId: string) => env.STREAMS.get(env.STREAMS.idFromName(streamId));
