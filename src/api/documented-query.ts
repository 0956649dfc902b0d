import type { MiddlewareHandler } from 'hono';
import { fail } from '../protocol';
import type { AppEnv } from './app-env';
import { DOCUMENTED_QUERIES } from './openapi.gen';
import { problem } from './problem';

/**
 * The query rule for every documented operation, whichever module adds it:
 * parameters the OpenAPI document does not list for the operation are a 400
 * naming them, and so is a parameter given twice (`?limit=5&limit=500`). A
 * route that declares no query shape still gets the rule, so a misspelt
 * filter is never silently ignored. `?ticket=` is allowed where the
 * operation takes the ticket credential. Undocumented paths (the dashboard)
 * are left alone.
 */
interface Documented {
  pattern: RegExp;
  method: string;
  names: Set<string>;
  /** How many path parameters the template has. */
  params: number;
}

let table: Documented[] | null = null;

function documented(): Documented[] {
  if (table) return table;
  table = DOCUMENTED_QUERIES.map(([path, method, names]) => {
    // `{…_path}` spans segments (a log tile's `0/x001/234.p/7`); any other parameter is one.
    const source = path
      .split(/(\{[^}]+\})/)
      .map((part, i) =>
        i % 2 === 1
          ? part.endsWith('_path}')
            ? '.+'
            : '[^/]+'
          : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    return {
      pattern: new RegExp(`^${source}$`),
      method,
      names: new Set(names),
      params: path.split('{').length,
    };
  });
  // A literal segment wins over a parameter (`capsules/hydrate` before `capsules/{id}`),
  // as the router decides.
  table.sort((a, b) => a.params - b.params);
  return table;
}

export const documentedQuery: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = c.req.url;
  const mark = url.indexOf('?');
  if (mark < 0 || mark === url.length - 1) return next();
  const path = new URL(url).pathname;
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
  const op = documented().find((d) => d.method === method && d.pattern.test(path));
  if (!op) return next();
  const all = c.req.queries();
  const errors = Object.entries(all).flatMap(([name, values]) => {
    if (!op.names.has(name)) {
      const takes = op.names.size > 0 ? [...op.names].join(', ') : 'none';
      return [{ path: name, message: `is not a parameter of this endpoint (it takes ${takes})` }];
    }
    return values.length > 1
      ? [{ path: name, message: `is given ${values.length} times; give each parameter once` }]
      : [];
  });
  if (errors.length === 0) return next();
  return problem(
    c,
    fail('invalid-query', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors }),
  );
};
