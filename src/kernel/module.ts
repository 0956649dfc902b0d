import { Hono } from 'hono';
import type * as z from 'zod';
import type { AppEnv } from '../api/app-env';
import type { Env } from '../env';
import type { Reducer } from '../projection/reducer';
import type { BaseRow } from '../projection/types';
import type { Draft, Failure, Wire } from '../protocol';
import type { Effect, StreamKind } from './kind';
import type { SignerDirectory } from './signatures';

/**
 * One entry of a protocol's type catalogue: everything the shared machinery
 * must know about a Wire type, declared once by the module that owns it.
 */
export interface TypeSpec {
  /** The payload schema (open objects: extra fields travel untouched). */
  payload?: z.ZodType;
  /** A token scope needed on top of `append` to post this type. */
  scope?: string;
  /** Only coordinator or admin identities may post it (it shapes the plan). */
  orchestration?: boolean;
  /**
   * Only the identity the stream belongs to (sender = stream id, `agent:a1` on
   * `agent:a1`) or an admin may post it, and only with a token: never put on
   * HCS directly, which proves no identity (signing keys).
   */
  ownerOrAdmin?: boolean;
  /**
   * What a Wire of this type needs of *other* streams before its own stream
   * decides (a worker is spawned only into an open channel): why not, or
   * null. Every entry point runs it — REST, a module's own routes, HCS-first
   * ingest — after the rights guard, so no route can skip it. Reads only
   * (other streams' `coordination()` views); Wires a decider emits as
   * effects are its own stream's word and do not pass it.
   */
  admit?(env: Env, draft: Draft): Promise<Failure | null>;
  /** The status a Wire of this type gives its stream in `stream_state`. */
  status?: string;
  /** What a Wire of this type adds to its stream's `stream_state` summary (pure). */
  summarize?(summary: StreamSummary, payload: Record<string, unknown>): StreamSummary;
}

/** The JSON summary `stream_state` keeps per stream: counts by type, plus what types add. */
export interface StreamSummary {
  counts: Record<string, number>;
  [member: string]: unknown;
}

/**
 * An entry point a module offers other modules (reached with a `PortEffect`):
 * given the input and the Wire that caused it, the Wire to append to one of
 * the offering module's streams, or null when the input does not fit (then
 * nothing is sent). Pure and deterministic: a recorded effect is replayed as is.
 */
export type Port = (input: Record<string, unknown>, cause: Wire) => Effect | null;

/** A problem+json type a module's Failures may carry. */
export interface ProblemSpec {
  status: number;
  title: string;
}

/**
 * What a protocol module contributes. A module registers with one line in
 * `src/modules/index.ts`; nothing outside its folder names its event types.
 */
export interface ProtocolModule {
  name: string;
  /** Stream kinds with their deciders (`<kind>:<id>` streams). */
  kinds: readonly StreamKind[];
  /** Wire types by exact name. */
  types: Readonly<Record<string, TypeSpec>>;
  /** Wire types by prefix (`'project.'`), for families of types. */
  typePrefixes?: Readonly<Record<string, TypeSpec>>;
  /** Wire id prefixes (`offer` → `offer:…`) the module derives for its own Wires. */
  derivedIds?: readonly string[];
  /** The failure codes its deciders return, with their HTTP status. */
  problems?: Readonly<Record<string, ProblemSpec>>;
  /** Read models projected into D1. */
  readModels?: readonly Reducer<BaseRow>[];
  /** Routes mounted under `/v1`. */
  routes?: Hono<AppEnv>;
  /** Named entry points other modules reach through the kernel (`PortEffect`). */
  ports?: Readonly<Record<string, Port>>;
  /** Where its identities' signing keys are kept, for the append path's signature guard. */
  signers?: SignerDirectory;
  /** The initial `stream_state` status of a stream of one of its kinds. */
  initialStatus?: Readonly<Record<string, string>>;
  /**
   * Periodic work on the Worker's cron (wrangler.toml `[triggers]`), run
   * beside the HCS listener: `at` is the controller's `scheduledTime`. Must
   * not throw for expected conditions; a rejection is logged, never retried.
   */
  scheduled?(env: Env, at: number): Promise<void>;
}

/** A module as its folder declares it: route groups and read models of their own row types. */
export interface ModuleDefinition<Rows extends readonly BaseRow[]>
  extends Omit<ProtocolModule, 'routes' | 'readModels'> {
  /** Route groups mounted under `/v1`, in this order. */
  routes?: readonly Hono<AppEnv>[];
  /** Read models projected into D1, each with its own row type. */
  readModels?: { readonly [K in keyof Rows]: Reducer<Rows[K]> };
}

/**
 * A `ProtocolModule` from its definition: the route groups mounted on one
 * app, the read models seen through their common row type (the projector
 * hands each reducer only rows of its own table).
 */
export function defineModule<Rows extends readonly BaseRow[]>(
  definition: ModuleDefinition<Rows>,
): ProtocolModule {
  const { routes: groups, readModels, ...rest } = definition;
  const module: ProtocolModule = { ...rest };
  if (groups !== undefined) {
    const routes = new Hono<AppEnv>();
    for (const group of groups) routes.route('/', group);
    module.routes = routes;
  }
  if (readModels !== undefined) {
    module.readModels = readModels as unknown as readonly Reducer<BaseRow>[];
  }
  return module;
}
