import type { Wire } from '../../../protocol';

/**
 * The seed's `protocol.log`: one plain, tab-separated line per action —
 * timestamp, mechanism, action, subject — here one per Wire of the
 * workspace's two streams, so the log is as complete as the streams. An
 * imported `.planning` tree brings its own log: its lines stand for the
 * items imported with it (which add none), so export → import → export
 * gives the same file.
 */

type P = Record<string, unknown>;
const s = (p: P, k: string): string => (typeof p[k] === 'string' ? (p[k] as string) : '');
const list = (v: unknown): string =>
  Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(',') : '';

function what(wire: Pick<Wire, 'type' | 'payload' | 'wire_id'>): [string, string, string] {
  const p = wire.payload;
  const message = (p.message ?? {}) as P;
  switch (wire.type) {
    case 'symbol.set':
      return ['resolve', p.force === true ? 'force-set' : 'set', `${s(p, 'id')}=${s(p, 'value')}`];
    case 'capsule.written':
      return ['capsule', 'write', s(p, 'id')];
    case 'blackboard.set':
      return ['blackboard', 'set', `${s(p, 'key')}=${s(p, 'value')}`];
    case 'ledger.logged':
      return ['ledger', 'log', `${s(p, 'role')}/${s(p, 'kind')}=${String(p.tokens)}`];
    case 'ledger.baseline':
      return ['ledger', 'baseline', `${s(p, 'role')}=${String(p.tokens)}`];
    case 'brief.built':
      return ['brief', 'build', s(p, 'task')];
    case 'decision.appended':
      return ['decisions', 'append', s(p, 'title')];
    case 'conflict.raised':
      return ['conflicts', 'raise', s(p, 'id')];
    case 'message.accepted':
      return s(message, 'type') === 'escalation' && s(p, 'haid') === 'system'
        ? ['validate', 'escalate', list(message.refs) || s(message, 'msg_id')]
        : ['validate', 'accept', s(message, 'msg_id')];
    case 'message.rejected':
      return ['validate', 'reject', s(p, 'msg_id') || '(no msg_id)'];
    case 'surface.claim':
      return ['claims', 'claim', `${s(p, 'haid')} ${list(p.surfaces)} ${wire.wire_id}`];
    case 'surface.refused':
      return ['claims', 'refuse', `${s(p, 'haid')} ${list(p.surfaces)} held-by=${s(p, 'holder')}`];
    case 'surface.renewed':
      return ['claims', 'renew', s(p, 'claim_id')];
    case 'surface.released':
      return ['claims', 'release', list(p.claim_ids)];
    case 'surface.force_released':
      return ['claims', 'force-release', `${s(p, 'claim_id')} reason=${s(p, 'reason')}`];
    case 'surface.expired':
      return ['claims', 'expire', s(p, 'claim_id')];
    default:
      return ['wire', wire.type, wire.wire_id];
  }
}

/** One log line; tabs and newlines inside a field become spaces. */
export function auditLine(wire: Pick<Wire, 'type' | 'payload' | 'wire_id' | 'ts'>): string {
  const clean = (text: string) => text.replace(/[\t\r\n]+/g, ' ');
  const at = new Date(Date.parse(wire.ts)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return [at, ...what(wire)].map(clean).join('\t');
}

/** The audit lines a Wire adds: its own, none for an imported item, an imported log's lines. */
export function auditLines(wire: Pick<Wire, 'type' | 'payload' | 'wire_id' | 'ts'>): string[] {
  if (wire.type === 'planning.imported') return s(wire.payload, 'log').split('\n').slice(0, -1);
  if (wire.payload.imported === true) return [];
  return [auditLine(wire)];
}
