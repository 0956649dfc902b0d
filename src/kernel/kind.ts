import type { Env } from '../env';
import type { Draft, Failure, Receipt, Wire } from '../protocol';

/**
 * The contract every stream kind of every protocol module meets. Nothing in
 * this file (or in `kernel/`) names an event type: a kind brings its own
 * decider, its own hooks and its own type catalogue (`catalogue.ts`).
 *
 * The shape is emmett's decider: `decide(command, state, ctx)` returns the
 * Wires to append (the command itself first, then any verdict the kind adds
 * in the same synchronous stretch, such as a writer's acknowledgement) or a
 * Failure; `evolve` folds a stored Wire into the state. Time comes in as data
 * (`ctx.now`), never from the clock.
 */

/** Extra members a kind adds to an append's receipt (e.g. until when it granted something). */
export type ReceiptFields = Record<string, string | number | null>;

/** What `StreamObject.append` answers: a receipt (201 new, 200 replay) or a Failure. */
export type AppendResult =
  | { ok: true; status: 201 | 200; receipt: Receipt & ReceiptFields; replay: boolean }
  | Failure;

/**
 * A Wire this stream asks another stream to append, through the durable
 * outbox. `draft` is fixed when the effect is recorded, so a re-delivery is a
 * byte-identical replay (same wire_id, same content). `tag` names the effect
 * for the kind's `refused` hook when the target says no.
 */
export interface Effect {
  via?: 'stream';
  target: string;
  draft: Draft;
  tag?: string;
}

/**
 * A webhook a kind sends through the durable outbox: `body` (any JSON) is
 * POSTed, signed per Standard Webhooks, to the endpoint `endpoint_id`
 * registered on this stream (`kernel/webhooks/`), after the append has
 * answered; retried on the deployment's schedule, then dead-lettered.
 * `event_type` is for the delivery log and the receiver's routing.
 */
export interface WebhookEffect {
  via: 'http';
  endpoint_id: string;
  event_type: string;
  body: unknown;
}

/**
 * An effect addressed to a named port another module offers (`ports` in
 * `module.ts`), not to a stream: the kernel asks the registry for the port
 * when the effect is recorded, and records the Wire the port answers as an
 * ordinary stream effect (same outbox, same byte-identical redelivery). So a
 * module feeds another module's log knowing only the port's name and input,
 * never its stream ids, types or code. A port nobody offers is logged and
 * dropped: the causing Wire is already stored.
 */
export interface PortEffect {
  via: 'port';
  port: string;
  input: Record<string, unknown>;
}

/**
 * Something a kind secured on another object before deciding (phase one of a
 * cross-object step, e.g. units reserved on another stream). Opaque to the
 * kernel: it only hands it back to the kind's `decide` and `cancel`.
 */
export interface Hold {
  ok: true;
  [member: string]: unknown;
}

export interface DecideContext<C> {
  now: number;
  cfg: C;
  /** What `reserve` secured for this command, if the kind has that hook. */
  hold: Hold | null;
}

export interface Decider<S, C> {
  initialState(): S;
  /**
   * Decides a command (a Wire someone wants appended, `stream_seq` set to the
   * seq it would get). Returns the Drafts to append in order, the command
   * first, or a Failure. `accept(command)` is the common answer.
   */
  decide(command: Wire, state: S, ctx: DecideContext<C>): readonly Draft[] | Failure;
  evolve(state: S, wire: Wire, cfg: C): S;
  /** Effects caused by `wire` (given the states around it): Wires for other streams, ports, webhooks. */
  react?(before: S, after: S, wire: Wire): (Effect | WebhookEffect | PortEffect)[];
  /** The passage of time: system Wires to append now. */
  tick?(state: S, now: number, streamId: string, cfg: C): Draft[];
  /** Earliest time `tick` has something to do. */
  wakeAt?(state: S): number | null;
}

/** Reaching other streams from a kind's hook, through the kernel. */
export interface ReserveContext<C> {
  now: number;
  cfg: C;
  /** True when the command is already stored (a retry): secure nothing then. */
  isReplay(): boolean;
  /** Runs this kind's `decide` as if `hold` were secured (a cheap early refusal). */
  check(hold: Hold): Failure | null;
  /** Appends `draft` to another stream over RPC (may throw when unreachable). */
  appendTo(streamId: string, draft: Draft): Promise<AppendResult>;
  /** Records an effect in the durable outbox (delivered after the decision, retried). */
  send(effect: Effect): void;
}

/** Optional per-kind hooks: each replaces what used to be a special case in the runner. */
export interface KindHooks<S, C> {
  /**
   * Receipt members for an accepted Wire, or for a replay (`replay: true`).
   * When `decide` answers several Drafts, the members given for each are
   * merged in order into the command's receipt (a verdict's reach the caller).
   */
  receipt?(
    state: S,
    wire: Pick<Wire, 'type' | 'wire_id' | 'payload'>,
    replay: boolean,
  ): ReceiptFields | null;
  /** The decision state as read models, tests and `GET …/coordination` see it. */
  view?(state: S, now: number, cfg: C): unknown;
  /**
   * Phase one of a cross-object step, awaited before `decide` (so the runner
   * decides again afterwards). Null when the command needs nothing secured.
   */
  reserve?(command: Draft, state: S, ctx: ReserveContext<C>): Promise<Hold | Failure | null>;
  /** Gives back what `reserve` secured when the command was not stored. */
  cancel?(hold: Hold, command: Draft, now: number, cfg: C): Effect;
  /** A tagged effect the target refused: a Wire to append here in answer, or null. */
  refused?(effect: Effect, failure: Failure, state: S, streamId: string, now: number): Draft | null;
  /**
   * Streams of this kind that share an HCS topic by a key their Wires name
   * (remembered from the first Wire that names one): the key, and the topic.
   */
  topicGroup?: TopicGroup;
}

export interface TopicGroup {
  keyOf(wire: Wire): string | null;
  topicOf(key: string): string;
}

/**
 * A stream kind: the streams whose id starts with `<name>:`. `version` is
 * bumped when `evolve` changes meaning; stored states are then rebuilt from
 * the stream's log.
 */
export interface StreamKind<S = unknown, C = unknown> {
  name: string;
  version: number;
  config(env: Env): C;
  decider: Decider<S, C>;
  hooks?: KindHooks<S, C>;
}

/** Declares a stream kind; keeps the state and config types checked inside it. */
export function defineKind<S, C>(kind: StreamKind<S, C>): StreamKind {
  return kind as unknown as StreamKind;
}

/** A stream kind that reads no deployment setting: `config` is null, `version` 1 unless it says. */
export function defineUnconfiguredKind<S>(
  kind: Omit<StreamKind<S, null>, 'version' | 'config'> & { version?: number },
): StreamKind {
  return defineKind<S, null>({ version: 1, config: () => null, ...kind });
}

/** The usual answer of `decide`: append the command as it is. */
export function accept(command: Wire): readonly Draft[] {
  const { stream_seq: _seq, ...draft } = command;
  return [draft];
}
