// A small OpenAPI 3.0 schema checker, enough for the mirror node's topic
// schemas: $ref, allOf, nullable, type, format, pattern, enum, required.
// Strict: a property the schema does not name is an error too, so the
// stand-in's answers are checked field for field.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Schema = {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  format?: string;
  pattern?: string;
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
};

export interface OpenApiDoc {
  components: { schemas: Record<string, Schema> };
}

export function loadOpenApi(path: string): OpenApiDoc {
  return parse(readFileSync(path, 'utf8')) as OpenApiDoc;
}

function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = doc.components.schemas[name];
  if (!target) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(doc, target);
}

/** Every way `value` breaks `schema`, as "path: problem" strings. */
export function violations(doc: OpenApiDoc, schemaName: string, value: unknown): string[] {
  const root = doc.components.schemas[schemaName];
  if (!root) throw new Error(`no schema ${schemaName}`);
  const out: string[] = [];
  check(doc, root, value, '$', out);
  return out;
}

function check(doc: OpenApiDoc, raw: Schema, value: unknown, path: string, out: string[]): void {
  const schema = resolve(doc, raw);
  if (schema.allOf) {
    // An allOf that adds only a description keeps its base's nullability.
    if (value === null && schema.allOf.some((part) => resolve(doc, part).nullable)) return;
    for (const part of schema.allOf) check(doc, part, value, path, out);
    return;
  }
  if (value === null) {
    if (!schema.nullable) out.push(`${path}: null but not nullable`);
    return;
  }
  if (schema.enum && !schema.enum.includes(value))
    out.push(`${path}: ${String(value)} not in enum`);
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return void out.push(`${path}: expected string`);
      if (schema.pattern && !new RegExp(schema.pattern).test(value)) {
        out.push(`${path}: "${value}" does not match ${schema.pattern}`);
      }
      if (schema.format === 'byte' && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
        out.push(`${path}: not base64`);
      }
      return;
    case 'integer': {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        return void out.push(`${path}: expected integer`);
      }
      if (schema.format === 'int32' && Math.abs(value) > 2 ** 31 - 1)
        out.push(`${path}: not int32`);
      if (schema.minimum !== undefined && value < schema.minimum)
        out.push(`${path}: below minimum`);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') out.push(`${path}: expected boolean`);
      return;
    case 'array':
      if (!Array.isArray(value)) return void out.push(`${path}: expected array`);
      value.forEach((item, i) => {
        if (schema.items) check(doc, schema.items, item, `${path}[${i}]`, out);
      });
      return;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) {
        return void out.push(`${path}: expected object`);
      }
      const record = value as Record<string, unknown>;
      for (const key of schema.required ?? []) {
        if (!(key in record)) out.push(`${path}.${key}: required but missing`);
      }
      for (const [key, v] of Object.entries(record)) {
        const prop = schema.properties?.[key];
        if (!prop) out.push(`${path}.${key}: not in the schema`);
        else check(doc, prop, v, `${path}.${key}`, out);
      }
      return;
    }
    default:
      return;
  }
}
