import { type Decider, defineUnconfiguredKind, type StreamKind } from '../../../kernel/kind';

/** A Runtime v1 stream kind: its decider state is its view (what the `/state` routes answer). */
export function runtimeKind<S>(name: string, decider: Decider<S, null>): StreamKind {
  return defineUnconfiguredKind<S>({ name, decider, hooks: { view: (state) => state } });
}
