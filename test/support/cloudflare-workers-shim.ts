/**
 * `cloudflare:workers` exists only inside workerd. Node-side tests that read
 * the app's schemas or tables (the OpenAPI document, problem types) import
 * modules whose Durable Object classes extend its base class; this stand-in
 * base class lets them load. Nothing here runs a Durable Object.
 */
export class DurableObject<E = unknown> {
  constructor(
    readonly ctx: unknown,
    readonly env: E,
  ) {}
}

export class WorkerEntrypoint<E = unknown> extends DurableObject<E> {}

export class RpcTarget {}

export const env = {};
