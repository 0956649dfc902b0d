import { createInterface } from 'node:readline';
import { type WirestreamClient, WirestreamError } from '../client';
import { WorkspaceClient } from '../client/workspace';
import { emit, type Output } from './format';
import { subMain } from './sub-main';
import { parseLine, UsageError, valueFlags } from './usage';

/**
 * Seed 001's bins as `wirestream` commands, over a hosted workspace
 * (`--workspace W`, or WIRESTREAM_WORKSPACE; default `default`):
 *   symbols set|get|reverse|list   (heimdall-resolve)
 *   capsule write|hydrate|deps     (heimdall-capsule)
 *   brief build                    (heimdall-brief; tokens counted with gpt-tokenizer)
 *   blackboard set|get|list        (heimdall-blackboard)
 *   ledger log|baseline|delta|report (heimdall-ledger)
 *   validate [--on-receipt]        (heimdall-validate; JSON lines on stdin)
 *   claims list|make|release       (heimdall-claim)
 *   log [N]                        (heimdall-protocol log)
 *   demo                           (heimdall-protocol demo: the measured wave)
 */
export const HEIMDALL_COMMANDS = new Set([
  'symbols',
  'capsule',
  'brief',
  'blackboard',
  'ledger',
  'validate',
  'claims',
  'log',
  'demo',
]);

export const HEIMDALL_USAGE = `workspace commands (--workspace W or WIRESTREAM_WORKSPACE; --json on each):
  symbols set ID VALUE [--force] | symbols get ID | symbols reverse VALUE | symbols list
  capsule write ID --what T [--where T] [--decision T] [--gotcha T] [--depends a,b]
  capsule hydrate ID | capsule deps ID
  brief build --task T --spec S [--symbols a,b] [--capsules a,b] [--invariants REF]
  blackboard set KEY VALUE | blackboard get KEY | blackboard list
  ledger log --role R --kind K --tokens N [--msg-id M] | ledger baseline --role R --tokens N
  ledger delta --role R | ledger report
  validate [--on-receipt]          JSON messages, one per line on stdin
  claims list | claims make --surfaces a,b --task T [--ttl MIN] [--mode shared] [--haid H]
  claims release [CLAIM_ID] [--haid H]
  log [N]
  demo                              the seed's measured demo (one wave, v1 vs v2)`;

function parse(argv: string[]) {
  return parseLine(argv, {
    force: { type: 'boolean' },
    'on-receipt': { type: 'boolean' },
    ...valueFlags(
      'workspace',
      'what',
      'where',
      'decision',
      'gotcha',
      'depends',
      'task',
      'spec',
      'symbols',
      'capsules',
      'invariants',
      'role',
      'kind',
      'tokens',
      'msg-id',
      'surfaces',
      'ttl',
      'mode',
      'haid',
      'sender',
    ),
  });
}

type Values = ReturnType<typeof parse>['values'];

const list = (v: string | undefined) => (v ? v.split(',').filter((x) => x.length > 0) : []);

function need(value: string | undefined, usage: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing: wirestream ${usage}`);
  return value;
}

function int(name: string, value: string | undefined): number {
  const n = Number(need(value, `--${name} N`));
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be an integer ≥ 0`);
  return n;
}

/** Counts tokens with gpt-tokenizer (o200k_base), loaded only when a command needs it. */
export async function countTokens(text: string): Promise<number> {
  const { countTokens: count } = await import('gpt-tokenizer');
  return count(text);
}

/** Runs one workspace command; the exit code. */
export async function heimdall(
  client: WirestreamClient,
  argv: string[],
  output: Output,
): Promise<number> {
  const { values, positionals } = parse(argv);
  const out: Output = { ...output, json: values.json === true };
  const w = new WorkspaceClient(
    client,
    values.workspace ?? process.env.WIRESTREAM_WORKSPACE ?? 'default',
  );
  const [command, sub, a, b] = positionals;
  switch (command) {
    case 'symbols':
      return symbols(w, sub, a, b, values, out);
    case 'capsule':
      return capsule(w, sub, a, values, out);
    case 'brief': {
      if (sub !== 'build') throw new UsageError('brief build --task T --spec S …');
      const input = {
        task: need(values.task, 'brief build --task T'),
        spec: need(values.spec, 'brief build --spec S'),
        symbols: list(values.symbols),
        capsules: list(values.capsules),
        invariants: values.invariants ?? null,
      };
      const dry = await w.buildBrief({ ...input, dry_run: true });
      const tokens = await countTokens(dry.brief.text);
      const built = await w.buildBrief({ ...input, tokens });
      emit(out, built, `${built.brief.text}\n(${tokens} tokens, logged to the ledger)`);
      return 0;
    }
    case 'blackboard':
      if (sub === 'set') {
        const r = await w.setFact(
          need(a, 'blackboard set KEY VALUE'),
          need(b, 'blackboard set KEY VALUE'),
        );
        emit(out, r, `${a}\t${b}`);
      } else if (sub === 'get') {
        const value = await w.fact(need(a, 'blackboard get KEY'));
        emit(out, { key: a, value }, value);
      } else if (sub === 'list') {
        const facts = await w.facts();
        emit(out, facts, facts.map((f) => `${f.key}\t${f.value}`).join('\n'));
      } else throw new UsageError('blackboard set|get|list');
      return 0;
    case 'ledger':
      return ledger(w, sub, values, out);
    case 'validate':
      return validate(w, values['on-receipt'] === true, out);
    case 'claims':
      return claims(w, sub, a, values, out);
    case 'log': {
      const n = sub === undefined ? 50 : int('N', sub);
      const text = await w.log(n);
      if (out.json)
        for (const line of text.trimEnd().split('\n')) out.out(JSON.stringify(line.split('\t')));
      else out.out(text.trimEnd());
      return 0;
    }
    case 'demo': {
      const { demo } = await import('./heimdall-demo');
      return demo(w, out);
    }
    default:
      throw new UsageError(`unknown workspace command "${command}"`);
  }
}

async function symbols(
  w: WorkspaceClient,
  sub: string | undefined,
  a: string | undefined,
  b: string | undefined,
  values: Values,
  out: Output,
): Promise<number> {
  switch (sub) {
    case 'set': {
      const r = await w.setSymbol(
        need(a, 'symbols set ID VALUE'),
        need(b, 'symbols set ID VALUE'),
        values.force === true,
      );
      emit(out, r, `${a}\t${b}`);
      return 0;
    }
    case 'get': {
      const value = await w.resolve(need(a, 'symbols get ID'));
      emit(out, { id: a, value }, value);
      return 0;
    }
    case 'reverse': {
      const id = await w.reverse(need(a, 'symbols reverse VALUE'));
      emit(out, { id, value: a }, id);
      return 0;
    }
    case 'list': {
      const all = await w.symbols();
      emit(out, all, all.map((s) => `${s.id}\t${s.value}`).join('\n'));
      return 0;
    }
    default: {
      // `symbols F12` resolves, as `heimdall-resolve F12` does.
      const value = await w.resolve(need(sub, 'symbols set|get|reverse|list'));
      emit(out, { id: sub, value }, value);
      return 0;
    }
  }
}

async function capsule(
  w: WorkspaceClient,
  sub: string | undefined,
  id: string | undefined,
  values: Values,
  out: Output,
): Promise<number> {
  const name = need(id, `capsule ${sub ?? 'write'} ID`);
  if (sub === 'write') {
    const r = (await w.writeCapsule(name, {
      what: need(values.what, 'capsule write ID --what T'),
      ...(values.where ? { where: values.where } : {}),
      ...(values.decision ? { decision: values.decision } : {}),
      ...(values.gotcha ? { gotcha: values.gotcha } : {}),
      ...(values.depends ? { depends: list(values.depends) } : {}),
    })) as { capsule: { markdown: string } };
    emit(out, r, r.capsule.markdown.trimEnd());
    return 0;
  }
  if (sub === 'hydrate') {
    const capsules = await w.hydrate(name);
    emit(
      out,
      capsules,
      capsules.map((c) => `# ${c.id}\n${String(c.markdown).trimEnd()}`).join('\n'),
    );
    return 0;
  }
  if (sub === 'deps') {
    const ids = await w.deps(name);
    emit(out, ids, ids.join('\n'));
    return 0;
  }
  throw new UsageError('capsule write|hydrate|deps ID');
}

async function ledger(
  w: WorkspaceClient,
  sub: string | undefined,
  values: Values,
  out: Output,
): Promise<number> {
  switch (sub) {
    case 'log': {
      const line = {
        role: need(values.role, 'ledger log --role R'),
        kind: need(values.kind, 'ledger log --kind K'),
        tokens: int('tokens', values.tokens),
        ...(values['msg-id'] ? { msg_id: values['msg-id'] } : {}),
      };
      const r = await w.ledgerLog(line);
      emit(out, r, `${line.role}/${line.kind}=${line.tokens}`);
      return 0;
    }
    case 'baseline': {
      const role = need(values.role, 'ledger baseline --role R');
      const tokens = int('tokens', values.tokens);
      emit(out, await w.ledgerBaseline(role, tokens), `${role}: baseline ${tokens}`);
      return 0;
    }
    case 'delta': {
      const d = await w.ledgerDelta(need(values.role, 'ledger delta --role R'));
      emit(out, d, d.line);
      return 0;
    }
    case 'report': {
      const r = await w.ledgerReport();
      emit(
        out,
        r,
        r.roles
          .map((x) => `${x.role}\t${x.tokens}\t${x.lines} lines\tbaseline ${x.baseline ?? '-'}`)
          .join('\n'),
      );
      return 0;
    }
    default:
      throw new UsageError('ledger log|baseline|delta|report');
  }
}

/**
 * JSON messages on stdin, one per line. Plain: each is validated (exit 1 if
 * any is invalid). `--on-receipt`: each is posted to the workspace, which
 * refuses an invalid one, allows one retry (the next line), and escalates
 * the second failure (exit 1).
 */
async function validate(w: WorkspaceClient, onReceipt: boolean, out: Output): Promise<number> {
  let code = 0;
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const raw of lines) {
    const text = raw.trim();
    if (text === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      message = { $unparsable: (error as Error).message };
    }
    if (!onReceipt) {
      const r = await w.validate(message);
      out.out(JSON.stringify(r));
      if (!r.valid) code = 1;
      continue;
    }
    try {
      const r = await w.send(message);
      out.out(JSON.stringify({ valid: true, errors: [], ...r }));
    } catch (error) {
      if (!(error instanceof WirestreamError) || error.status !== 422) throw error;
      const p = error.problem as Record<string, unknown>;
      const errors = ((p.errors as { message: string }[] | undefined) ?? []).map((e) => e.message);
      out.out(JSON.stringify({ valid: false, errors, attempt: p.attempt ?? null }));
      if (error.code === 'message-escalated') {
        out.err(`escalated: ${String(p.escalation_msg_id)} (${error.detail})`);
        return 1;
      }
    }
  }
  return code;
}

async function claims(
  w: WorkspaceClient,
  sub: string | undefined,
  id: string | undefined,
  values: Values,
  out: Output,
): Promise<number> {
  switch (sub) {
    case undefined:
    case 'list': {
      const all = await w.claims();
      emit(
        out,
        { claims: all, count: all.length },
        all
          .map(
            (c) =>
              `${c.claim_id}\t${c.haid}\t${(c.surfaces as string[]).join(',')}\t${c.task_ref}\t${c.expires_at}`,
          )
          .join('\n'),
      );
      return 0;
    }
    case 'make': {
      const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
      if (ttl !== undefined && !(ttl > 0)) throw new UsageError('--ttl is minutes (> 0)');
      const mode = values.mode;
      if (mode !== undefined && mode !== 'exclusive' && mode !== 'shared') {
        throw new UsageError('--mode is exclusive or shared');
      }
      const r = await w.claim({
        surfaces: list(need(values.surfaces, 'claims make --surfaces a,b')),
        task: need(values.task, 'claims make --task T'),
        ...(ttl === undefined ? {} : { ttl_minutes: ttl }),
        ...(mode ? { mode } : {}),
        ...(values.haid ? { haid: values.haid } : {}),
      });
      emit(
        out,
        r,
        `${r.claim.claim_id}\t${String(r.claim.task_ref)}\tuntil ${String(r.claim.expires_at)}`,
      );
      return 0;
    }
    case 'release': {
      const r = id
        ? await w.releaseClaim(id)
        : await w.release(need(values.haid, 'claims release CLAIM_ID, or --haid H'));
      emit(out, r, r.released.join('\n'));
      return 0;
    }
    default:
      throw new UsageError('claims list|make|release');
  }
}

/** `wirestream <workspace command> …`: its own options, client and exit codes (2: usage). */
export function heimdallMain(argv: string[]): Promise<number> {
  return subMain(argv, HEIMDALL_USAGE, (client, output) => heimdall(client, argv, output));
}
