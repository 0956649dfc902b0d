import { createInterface } from 'node:readline';
import { WirestreamError } from '../client';
import { emit } from './format';
import { int, list, need, type WorkspaceCommand } from './heimdall-args';
import { UsageError } from './usage';

/** The workspace commands with sub-commands (`wirestream symbols set …`, `claims make …`). */

export const symbols: WorkspaceCommand = async (w, { sub, a, b, values }, out) => {
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
};

export const capsule: WorkspaceCommand = async (w, { sub, a: id, values }, out) => {
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
};

export const ledger: WorkspaceCommand = async (w, { sub, values }, out) => {
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
};

/**
 * JSON messages on stdin, one per line. Plain: each is validated (exit 1 if
 * any is invalid). `--on-receipt`: each is posted to the workspace, which
 * refuses an invalid one, allows one retry (the next line), and escalates
 * the second failure (exit 1).
 */
export const validate: WorkspaceCommand = async (w, { values }, out) => {
  const onReceipt = values['on-receipt'] === true;
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
};

export const claims: WorkspaceCommand = async (w, { sub, a: id, values }, out) => {
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
};
