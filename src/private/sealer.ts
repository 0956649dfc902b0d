import type { Env } from '../env';
import { REGISTRY } from '../modules';
import type { Draft, StoredWire } from '../protocol';
import { directoryStub } from '../topic/topic-directory';
import { privacyProblem, privateProjectOf, privateProjects, projectOf } from './config';
import { unwrapDataKey } from './key-store';
import { encOf, openEnvelope, sealWire } from './seal';

type KeyEnv = Pick<Env, 'PAYLOAD_KEK' | 'TOPIC_DIRECTORY'>;

/**
 * Data keys as a TopicObject or the Rebuilder uses them: fetched wrapped from
 * the TopicDirectory (`key-store.ts`), unwrapped with `PAYLOAD_KEK`, kept in
 * memory. A failure is not kept: the next Wire asks again.
 */
export class PayloadKeys {
  readonly #byProject = new Map<string, Promise<{ kid: string; key: CryptoKey }>>();
  readonly #byKid = new Map<string, Promise<CryptoKey>>();

  constructor(private readonly env: KeyEnv) {}

  forProject(project: string): Promise<{ kid: string; key: CryptoKey }> {
    return this.#cached(this.#byProject, project, async () => {
      const row = await directoryStub(this.env).dataKey(project);
      return { kid: row.kid, key: await unwrapDataKey(this.env, row) };
    });
  }

  byKid(kid: string): Promise<CryptoKey> {
    return this.#cached(this.#byKid, kid, async () => {
      const row = await directoryStub(this.env).dataKeyById(kid);
      if (!row) throw new Error(`no data key ${kid} in this deployment`);
      return unwrapDataKey(this.env, row);
    });
  }

  #cached<T>(map: Map<string, Promise<T>>, id: string, make: () => Promise<T>): Promise<T> {
    let got = map.get(id);
    if (!got) {
      got = make();
      map.set(id, got);
      got.catch(() => map.delete(id));
    }
    return got;
  }
}

const keyOf = (w: { stream_id: string; wire_id: string }) => `${w.stream_id}\n${w.wire_id}`;

/**
 * A Wire that registers, rotates or revokes a sender's signing key stays in
 * the clear even where its stream or correlation is private: its payload is a
 * public key (nothing to hide), and an auditor needs the key history from the
 * mirror to check every signature of its sender, sealed Wires included.
 */
const changesKeys = (wire: StoredWire | Draft) =>
  REGISTRY.signerDirectories.some((d) => d.keyChange(wire) !== null);

/** The data keys appends were checked against, per isolate and `PAYLOAD_KEK` setting. */
let checked: { kek: string | undefined; keys: PayloadKeys } | null = null;

/**
 * Why a private project's Wire could not be sealed now, or null: its data
 * key is fetched and unwrapped under this isolate's `PAYLOAD_KEK` (once per
 * project while that works; a failure is asked again). The append path asks
 * before storing, so a KEK that reads but does not open the project's data
 * key (a wrong key under the right id) is a 503, not a Wire stored and then
 * held back from HCS.
 */
export async function sealingProblem(
  env: KeyEnv & Pick<Env, 'PRIVATE_PROJECTS'>,
  draft: Draft,
): Promise<string | null> {
  const project = privateProjectOf(env, draft);
  if (project === null || changesKeys(draft)) return null;
  const before = checked;
  const keys =
    before !== null && before.kek === env.PAYLOAD_KEK ? before.keys : new PayloadKeys(env);
  checked = { kek: env.PAYLOAD_KEK, keys };
  try {
    await keys.forProject(project);
    return null;
  } catch (error) {
    return `private project "${project}": ${(error as Error).message}; no Wire of it is stored until PAYLOAD_KEK opens its data key`;
  }
}

/**
 * The TopicObject's side: the anchored message of each private Wire, sealed
 * before it is stored, so HCS, the log's leaves and its archive only ever
 * get ciphertext. Batches go one after another while any is being sealed,
 * so a topic keeps its arrival order.
 */
export class PayloadSealer {
  readonly #keys: PayloadKeys;
  #queue: Promise<unknown> = Promise.resolve();
  #busy = 0;

  constructor(private readonly env: KeyEnv & Pick<Env, 'PRIVATE_PROJECTS'>) {
    this.#keys = new PayloadKeys(env);
  }

  /**
   * Runs `store` with the sealed messages of the batch's private Wires (by
   * stream and wire_id): at once when none is private and nothing is being
   * sealed, else after the batches ahead. Throws, storing nothing, when a
   * Wire cannot be sealed or the configuration cannot say whether it is private.
   */
  run<T>(wires: StoredWire[], store: (sealed: Map<string, string>) => T): T | Promise<T> {
    const projects = privateProjects(this.env);
    if (!projects.ok) throw new Error(`private payloads: ${projects.detail}`);
    const owned = wires.flatMap((w) => {
      const project = projectOf(projects.value, w);
      return project === null || changesKeys(w) ? [] : [{ wire: w, project }];
    });
    if (owned.length === 0 && this.#busy === 0) return store(new Map());
    for (const { wire } of owned) {
      const problem = privacyProblem(this.env, wire);
      if (problem) throw new Error(problem);
    }
    this.#busy++;
    const next = this.#queue.then(async () => {
      const sealed = new Map<string, string>();
      for (const { wire, project } of owned) {
        const { kid, key } = await this.#keys.forProject(project);
        const { received_at: _r, ...envelope } = wire;
        sealed.set(keyOf(wire), await sealWire(envelope, kid, key));
      }
      return store(sealed);
    });
    const settled = next.finally(() => this.#busy--);
    this.#queue = settled.catch(() => undefined);
    return settled;
  }

  /** The message to store for `wire`: sealed if the batch sealed it. */
  static messageOf(sealed: Map<string, string>, wire: { stream_id: string; wire_id: string }) {
    return sealed.get(keyOf(wire));
  }
}

/**
 * The rebuild's side: an anchored envelope in the clear, opening a sealed one
 * with its data key. Throws when it cannot (no such key, no KEK, altered):
 * a rebuild that skipped private Wires would not be exact.
 */
export function envelopeOpener(env: KeyEnv) {
  const keys = new PayloadKeys(env);
  return async (json: unknown, where: string): Promise<unknown> => {
    const enc = encOf(json);
    if (!enc) return json;
    const key = await keys.byKid(enc.kid).catch((error: Error) => {
      throw new Error(`${where}: private payload under ${enc.kid}: ${error.message}`);
    });
    const opened = await openEnvelope(json as Record<string, unknown>, key);
    if (!opened.ok) throw new Error(`${where}: ${opened.detail}`);
    return opened.wire;
  };
}
