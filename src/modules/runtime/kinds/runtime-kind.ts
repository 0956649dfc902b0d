import { type Decider, defineKind, type StreamKind } from '../../../kernel/kind';

/**
 * A Runtime v1 stream kind: no deployment config, version 1, and its decider
 * state as its view (what the `/state` routes answer).
 */
export function runtimeKind<S>(name: string, decider: Decider<S, null>): StreamKind {
  return defineKind<S, null>({
    name,
    version: 1,
    config: () => null,
    decider,
    hooks: { view: (state) => state },
  });
}
