import * as z from 'zod';

/**
 * zod emits JSON Schema 2020-12, which OpenAPI 3.1 takes as is; the `$defs`
 * of a recursive schema (a Wire's JSON payload) are hoisted into
 * `components.schemas` so every `$ref` resolves from the document's root.
 */

export type Json = Record<string, unknown>;
type Io = 'input' | 'output';

export const COMPONENT = '#/components/schemas/';

export class Components {
  readonly schemas: Record<string, Json> = {};
  /** Problem answers, by the problem codes they may carry. */
  readonly responses: Record<string, Json> = {};
  /** Hoisted `$defs`, by their content, so one shape gets one name. */
  readonly #byContent = new Map<string, string>();
  /** Schemas registered under a name: used again by reference. */
  readonly #named = new Map<z.ZodType, string>();

  /** `schema` as JSON Schema with its `$defs` hoisted; `name` registers it as a component. */
  schema(schema: z.ZodType, io: Io, name?: string): Json {
    const known = this.#named.get(schema);
    if (known) return { $ref: `${COMPONENT}${known}` };
    const out = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
    }) as Json;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    const renamed = new Map<string, string>();
    for (const [key, def] of Object.entries(defs)) {
      const content = JSON.stringify(def).replaceAll(`"#/$defs/${key}"`, '"#self"');
      let target = this.#byContent.get(content);
      if (!target) {
        target = this.#freshName(isJsonValue(def) ? 'JsonValue' : `${name ?? 'Shared'}Part`);
        this.#byContent.set(content, target);
      }
      renamed.set(key, target);
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const copy: Json = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
          copy[k] = `${COMPONENT}${renamed.get(v.slice('#/$defs/'.length)) ?? ''}`;
        } else {
          copy[k] = rewrite(v);
        }
      }
      return copy;
    };
    for (const [key, def] of Object.entries(defs)) {
      const target = renamed.get(key) ?? key;
      this.schemas[target] ??= rewrite(def) as Json;
    }
    const result = rewrite(out) as Json;
    if (!name) return result;
    this.schemas[name] = result;
    this.#named.set(schema, name);
    return { $ref: `${COMPONENT}${name}` };
  }

  #freshName(base: string): string {
    let name = base;
    for (let i = 2; name in this.schemas || [...this.#byContent.values()].includes(name); i++) {
      name = `${base}${i}`;
    }
    return name;
  }
}

/** zod's `z.json()`: any JSON value. */
function isJsonValue(def: Json): boolean {
  const anyOf = def.anyOf;
  return Array.isArray(anyOf) && anyOf.length === 6;
}
