import type { Reducer } from '../projection/reducer';
import type { BaseRow } from '../projection/types';
import type { StreamKind } from './kind';
import type { Port, ProblemSpec, ProtocolModule, TypeSpec } from './module';
import type { SignerDirectory } from './signatures';

/**
 * Every module's contributions, merged and indexed: the kernel, the
 * sequencer, the projector and the API ask the registry, never a module.
 * Two modules declaring the same kind, type, wire-id prefix, problem code or
 * read model is a bug, reported when the Worker loads.
 */
export interface Registry {
  modules: readonly ProtocolModule[];
  /** The kind of a stream id (`task:…` → the `task` kind), or null. */
  kindOf(streamId: string): StreamKind | null;
  /** The catalogue entry of a Wire type (exact name first, then prefix). */
  typeSpec(type: string): TypeSpec | undefined;
  /** Every type with a payload schema, by name. */
  types: ReadonlyMap<string, TypeSpec>;
  derivedIds: readonly string[];
  problems: Readonly<Record<string, ProblemSpec>>;
  readModels: readonly Reducer<BaseRow>[];
  initialStatus(kind: string): string | null;
  /** The port a module offers under `name`, or null. */
  port(name: string): Port | null;
  /** Every module's signing-key directory (`kernel/signatures.ts`). */
  signerDirectories: readonly SignerDirectory[];
}

function declareOnce<T>(into: Map<string, T>, key: string, value: T, what: string, by: string) {
  if (into.has(key)) throw new Error(`${what} "${key}" is declared twice (again by ${by})`);
  into.set(key, value);
}

export function buildRegistry(modules: readonly ProtocolModule[]): Registry {
  const kinds = new Map<string, StreamKind>();
  const types = new Map<string, TypeSpec>();
  const prefixes = new Map<string, TypeSpec>();
  const derived = new Map<string, string>();
  const problems = new Map<string, ProblemSpec>();
  const models = new Map<string, Reducer<BaseRow>>();
  const statuses = new Map<string, string>();
  const ports = new Map<string, Port>();
  for (const m of modules) {
    for (const kind of m.kinds) declareOnce(kinds, kind.name, kind, 'stream kind', m.name);
    for (const [type, spec] of Object.entries(m.types))
      declareOnce(types, type, spec, 'wire type', m.name);
    for (const [prefix, spec] of Object.entries(m.typePrefixes ?? {}))
      declareOnce(prefixes, prefix, spec, 'wire type prefix', m.name);
    for (const id of m.derivedIds ?? []) declareOnce(derived, id, m.name, 'wire id prefix', m.name);
    for (const [code, spec] of Object.entries(m.problems ?? {}))
      declareOnce(problems, code, spec, 'problem code', m.name);
    for (const model of m.readModels ?? [])
      declareOnce(models, model.model, model, 'read model', m.name);
    for (const [kind, status] of Object.entries(m.initialStatus ?? {}))
      declareOnce(statuses, kind, status, 'initial status of kind', m.name);
    for (const [name, port] of Object.entries(m.ports ?? {}))
      declareOnce(ports, name, port, 'port', m.name);
  }
  const prefixList = [...prefixes];
  return {
    modules,
    kindOf(streamId) {
      const colon = streamId.indexOf(':');
      return colon > 0 ? (kinds.get(streamId.slice(0, colon)) ?? null) : null;
    },
    typeSpec(type) {
      const exact = types.get(type);
      if (exact !== undefined) return exact;
      for (const [prefix, spec] of prefixList) if (type.startsWith(prefix)) return spec;
      return undefined;
    },
    types,
    derivedIds: [...derived.keys()].sort(),
    problems: Object.fromEntries(problems),
    readModels: [...models.values()],
    initialStatus: (kind) => statuses.get(kind) ?? null,
    port: (name) => ports.get(name) ?? null,
    signerDirectories: modules.flatMap((m) => (m.signers ? [m.signers] : [])),
  };
}
