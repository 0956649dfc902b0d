// The API reference at /docs: renders /v1/openapi.json and lets a reader
// try each operation against this deployment. Self-contained (inlined into
// the page by tools/build-openapi.mjs): no CDN, no fonts, no request leaves
// the origin. Text from the document is set with textContent, never as HTML.

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const tokenInput = document.getElementById('token');
const main = document.getElementById('main');
const nav = document.getElementById('nav');

tokenInput.value = sessionStorage.getItem('wirestream-token') ?? '';
tokenInput.addEventListener('change', () => {
  sessionStorage.setItem('wirestream-token', tokenInput.value.trim());
});

/** Creates an element: el('p', { class: 'x' }, 'text', child…). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A little Markdown: paragraphs, `* ` lists and `code` spans. */
function prose(text) {
  const out = [];
  for (const block of String(text ?? '').split(/\n\n+/)) {
    const lines = block.split('\n');
    if (lines.every((l) => l.startsWith('* '))) {
      out.push(
        el(
          'ul',
          {},
          lines.map((l) => el('li', {}, inline(l.slice(2)))),
        ),
      );
    } else {
      out.push(el('p', {}, inline(block)));
    }
  }
  return out;
}

function inline(text) {
  return text
    .split(/(`[^`]+`)/)
    .map((part) =>
      part.startsWith('`') && part.endsWith('`') && part.length > 1
        ? el('code', {}, part.slice(1, -1))
        : part,
    );
}

let doc;

function resolve(schema) {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = doc.components?.schemas?.[name];
  }
  return s ?? {};
}

function typeOf(schema) {
  const s = resolve(schema);
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf).map(typeOf).join(' | ');
  if (s.allOf)
    return (
      s.allOf
        .map(typeOf)
        .filter((t) => t !== 'any')
        .join(' & ') || 'object'
    );
  if (s.type === 'array') return `${typeOf(s.items ?? {})}[]`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return s.type ?? (s.properties ? 'object' : 'any');
}

function constraints(schema) {
  const s = resolve(schema);
  const parts = [];
  if (s.format) parts.push(s.format);
  if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) parts.push(`≤ ${s.maximum}`);
  if (s.minLength !== undefined) parts.push(`length ≥ ${s.minLength}`);
  if (s.maxLength !== undefined) parts.push(`length ≤ ${s.maxLength}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  if (s.pattern && s.pattern.length < 60) parts.push(`pattern ${s.pattern}`);
  return parts.join(', ');
}

/** A schema as a tree of properties, `depth` levels deep (refs followed, cycles cut). */
function schemaView(schema, depth = 0, seen = new Set()) {
  const s = resolve(schema);
  const box = el('div', { class: 'schema' });
  if (s.description && depth === 0) box.append(el('div', { class: 'desc' }, inline(s.description)));
  const variants = s.oneOf ?? s.anyOf;
  if (variants?.some((v) => resolve(v).properties)) {
    for (const variant of variants) {
      const v = resolve(variant);
      const label =
        v.properties?.kind?.const ?? v.properties?.wire?.const ?? v.properties?.status?.const;
      box.append(
        el(
          'details',
          { class: 'prop' },
          el('summary', {}, label ? `variant ${JSON.stringify(label)}` : 'variant'),
          schemaView(variant, depth + 1, seen),
        ),
      );
    }
    return box;
  }
  const parts = s.allOf ? s.allOf.map(resolve) : [s];
  const properties = Object.assign({}, ...parts.map((p) => p.properties ?? {}));
  const required = new Set(parts.flatMap((p) => p.required ?? []));
  const items = s.type === 'array' ? resolve(s.items ?? {}) : null;
  if (items?.properties) return schemaView(items, depth, seen);
  for (const [name, prop] of Object.entries(properties)) {
    const p = resolve(prop);
    const nested = p.properties || resolve(p.items ?? {}).properties || p.oneOf || p.anyOf;
    const key = prop.$ref ?? null;
    const line = [
      el('span', { class: 'mono' }, name),
      ' ',
      el('span', { class: 'type' }, typeOf(prop)),
      required.has(name) ? el('span', { class: 'req' }, ' required') : null,
      constraints(prop) ? el('span', { class: 'desc' }, ` (${constraints(prop)})`) : null,
      p.deprecated ? el('span', { class: 'req' }, ' deprecated') : null,
      p.description ? el('span', { class: 'desc' }, ' — ', inline(p.description)) : null,
    ];
    if (nested && depth < 4 && !(key && seen.has(key))) {
      const next = new Set(seen);
      if (key) next.add(key);
      box.append(
        el(
          'details',
          { class: 'prop' },
          el('summary', {}, line),
          schemaView(prop, depth + 1, next),
        ),
      );
    } else {
      box.append(el('div', { class: 'prop' }, line));
    }
  }
  if (Object.keys(properties).length === 0 && depth === 0) {
    box.append(el('span', { class: 'type' }, typeOf(s)));
  }
  return box;
}

/** A plausible example value for a request body. */
function example(schema, depth = 0) {
  const s = resolve(schema);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const variants = s.oneOf ?? s.anyOf;
  if (variants) return example(variants.at(-1), depth + 1);
  if (depth > 5) return null;
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case 'object': {
      const out = {};
      for (const name of s.required ?? [])
        out[name] = example(s.properties?.[name] ?? {}, depth + 1);
      return out;
    }
    case 'array':
      return s.minItems ? [example(s.items ?? {}, depth + 1)] : [];
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
    case 'string':
      return s.format === 'date-time' ? new Date().toISOString() : '';
    default:
      return {};
  }
}

function responsesView(responses) {
  const rows = Object.entries(responses).map(([status, ref]) => {
    const response = ref.$ref
      ? (doc.components?.responses?.[ref.$ref.split('/').pop()] ?? {})
      : ref;
    const media = Object.entries(response.content ?? {});
    const headers = Object.keys(response.headers ?? {});
    return el(
      'tr',
      {},
      el('td', { class: `status s${status[0]}` }, status),
      el(
        'td',
        {},
        inline(response.description ?? ''),
        headers.length > 0 ? el('div', { class: 'desc' }, `Headers: ${headers.join(', ')}`) : null,
        media.map(([type, content]) =>
          el(
            'details',
            {},
            el('summary', { class: 'mono' }, type),
            content.schema ? schemaView(content.schema) : null,
          ),
        ),
      ),
    );
  });
  return el(
    'table',
    {},
    el('thead', {}, el('tr', {}, el('th', {}, 'Status'), el('th', {}, 'Answer'))),
    el('tbody', {}, rows),
  );
}

function parametersView(parameters) {
  const rows = parameters.map((param) =>
    el(
      'tr',
      {},
      el('td', { class: 'mono' }, param.name),
      el('td', {}, param.in),
      el('td', { class: 'type' }, typeOf(param.schema ?? {})),
      el(
        'td',
        {},
        param.required ? el('span', { class: 'req' }, 'required ') : null,
        param.deprecated ? el('span', { class: 'req' }, 'deprecated ') : null,
        inline(param.description ?? resolve(param.schema ?? {}).description ?? ''),
        constraints(param.schema ?? {})
          ? el('span', { class: 'desc' }, ` (${constraints(param.schema)})`)
          : null,
      ),
    ),
  );
  return el(
    'table',
    {},
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['Name', 'In', 'Type', 'About'].map((h) => el('th', {}, h)),
      ),
    ),
    el('tbody', {}, rows),
  );
}

function parameterOf(param) {
  if (!param.$ref) return param;
  return doc.components?.parameters?.[param.$ref.split('/').pop()] ?? {};
}

/** The "Try it" form: fills the path, sends with the token, shows the answer. */
function tryView(path, method, op, isWs) {
  const params = (op.parameters ?? [])
    .map(parameterOf)
    .filter((p) => p.in !== 'header' || p.name === 'If-Match');
  const inputs = new Map();
  const form = el('form', { class: 'try' });
  for (const param of params) {
    const input = el('input', {
      name: param.name,
      placeholder: param.in === 'path' ? 'required' : '',
    });
    inputs.set(param, input);
    form.append(
      el('label', {}, el('span', { class: 'mono' }, `${param.name} (${param.in})`), input),
    );
  }
  let body = null;
  if (op.requestBody) {
    const schema = op.requestBody.content?.['application/json']?.schema ?? {};
    body = el('textarea', { name: 'body', spellcheck: 'false' });
    body.value = JSON.stringify(example(schema), null, 2);
    form.append(el('label', {}, el('span', {}, 'body (JSON)'), body));
  }
  const out = el('pre', { hidden: true });
  form.append(el('button', { type: 'submit' }, isWs ? 'Connect for 5 s' : 'Send'), out);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    out.hidden = false;
    out.textContent = '…';
    let url = path;
    const query = new URLSearchParams();
    const headers = {};
    for (const [param, input] of inputs) {
      const value = input.value.trim();
      if (param.in === 'path') url = url.replace(`{${param.name}}`, encodeURIComponent(value));
      else if (value === '') continue;
      else if (param.in === 'query') query.set(param.name, value);
      else if (param.in === 'header') headers[param.name] = value;
    }
    const token = tokenInput.value.trim();
    if (token && !isWs) headers.Authorization = `Bearer ${token}`;
    try {
      if (isWs) {
        out.textContent = await openSocket(url, query, token);
        return;
      }
      const init = { method: method.toUpperCase(), headers };
      if (body) {
        headers['Content-Type'] = 'application/json';
        init.body = body.value;
      }
      const qs = query.toString();
      const res = await fetch(qs ? `${url}?${qs}` : url, init);
      const text = await res.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        // not JSON (NDJSON lines): shown as it came
      }
      const head = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
      out.textContent = `${res.status} ${res.statusText}\n${head}\n\n${shown}`;
    } catch (error) {
      out.textContent = `request failed: ${error}`;
    }
  });
  return form;
}

/** Opens the WebSocket with a ticket, collects frames for 5 s, then closes. */
async function openSocket(path, query, token) {
  if (token) {
    const res = await fetch('/v1/tickets', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!res.ok) return `POST /v1/tickets: ${res.status}\n${await res.text()}`;
    query.set('ticket', (await res.json()).ticket);
  }
  const url = new URL(path, location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = query.toString();
  const lines = [];
  return new Promise((done) => {
    const ws = new WebSocket(url);
    const finish = () => done(lines.join('\n') || '(no frames)');
    const timer = setTimeout(() => ws.close(1000, 'docs page done'), 5000);
    ws.addEventListener('open', () => lines.push('open'));
    ws.addEventListener('message', (e) => lines.push(String(e.data).slice(0, 2000)));
    ws.addEventListener('close', (e) => {
      clearTimeout(timer);
      lines.push(`closed ${e.code} ${e.reason}`);
      finish();
    });
    ws.addEventListener('error', () => lines.push('error (see the GET answer for why)'));
  });
}

function operationView(path, method, op) {
  const isWs = Boolean(op.responses?.['101']);
  const id = op.operationId ?? `${method}-${path}`;
  const secured = op.security ? op.security.length > 0 : (doc.security ?? []).length > 0;
  const params = (op.parameters ?? []).map(parameterOf);
  return el(
    'section',
    { class: 'op', id },
    el(
      'h3',
      {},
      el('span', { class: `method m-${isWs ? 'ws' : method}` }, isWs ? 'WS' : method.toUpperCase()),
      el('span', { class: 'path' }, path),
      el('span', { class: 'summary' }, op.summary ?? ''),
      secured ? el('span', { class: 'lock', title: 'needs a token' }, 'needs a token') : null,
    ),
    op.description ? prose(op.description) : null,
    params.length > 0 ? [el('h4', {}, 'Parameters'), parametersView(params)] : null,
    op.requestBody
      ? [
          el('h4', {}, `Body${op.requestBody.required ? '' : ' (optional)'}`),
          schemaView(op.requestBody.content?.['application/json']?.schema ?? {}),
        ]
      : null,
    el('h4', {}, 'Responses'),
    responsesView(op.responses ?? {}),
    el('details', {}, el('summary', {}, 'Try it'), tryView(path, method, op, isWs)),
  );
}

function render() {
  document.getElementById('title').textContent = `${doc.info.title} API reference`;
  document.getElementById('version').textContent = `v${doc.info.version} · OpenAPI ${doc.openapi}`;
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, op]);
    }
  }
  main.replaceChildren(
    el('div', { class: 'intro' }, prose(doc.info.description)),
    ...[...byTag].map(([tag, ops]) =>
      el(
        'div',
        {},
        el('h2', { id: `tag-${tag}` }, tag),
        ops.map((o) => operationView(...o)),
      ),
    ),
  );
  nav.replaceChildren(
    ...[...byTag].flatMap(([tag, ops]) => [
      el('h2', {}, tag),
      ...ops.map(([path, method, op]) =>
        el(
          'a',
          { href: `#${op.operationId}` },
          el('span', { class: 'mono' }, op.responses?.['101'] ? 'WS' : method.toUpperCase()),
          path,
        ),
      ),
    ]),
  );
  document.body.dataset.ready = 'true';
}

try {
  const res = await fetch('/v1/openapi.json');
  if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  doc = await res.json();
  render();
} catch (error) {
  main.replaceChildren(
    el('p', { class: 'error' }, `Could not load the document: ${error.message}`),
  );
}
