import path from 'node:path';
import { text } from 'node:stream/consumers';
import { type GsdEvent, ProjectClient, type WirestreamClient, WirestreamError } from '../client';
import type { EventsFlags } from './events';
import type { Output } from './format';
import { intFlag } from './usage';

/**
 * `wirestream hook`: seed 004's `hooks/gsd-event-emitter.js` as a Claude Code
 * PostToolUse hook. It reads the hook's JSON on stdin and, after a Write,
 * emits `{type:'artifact:created', path, timestamp}` (Edit and MultiEdit:
 * `artifact:modified`) to the project's events on the server instead of a
 * file. A hook must never get in the agent's way: whatever goes wrong (the
 * server down or slow, a refused event, unreadable input) it warns on stderr
 * and exits 0, which Claude Code treats as success, so the tool call stands.
 * The POST is tried once, within `--timeout-ms` (default 3000).
 */
const EMITS: Record<string, 'artifact:created' | 'artifact:modified'> = {
  Write: 'artifact:created',
  Edit: 'artifact:modified',
  MultiEdit: 'artifact:modified',
};

interface HookInput {
  tool_name?: unknown;
  tool_input?: { file_path?: unknown };
  tool_response?: { success?: unknown };
  tool_use_id?: unknown;
  cwd?: unknown;
}

/** The seed's event for a hook input, or null when the tool call makes none. */
export function artifactEvent(
  input: HookInput,
  plan: string | undefined,
  now: Date,
): GsdEvent | null {
  const type = typeof input.tool_name === 'string' ? EMITS[input.tool_name] : undefined;
  const file = input.tool_input?.file_path;
  if (!type || typeof file !== 'string' || file === '') return null;
  if (input.tool_response?.success === false) return null;
  const cwd = typeof input.cwd === 'string' ? input.cwd : process.cwd();
  const relative = path.relative(cwd, path.resolve(cwd, file));
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return {
    type,
    path: (inside ? relative : file).split(path.sep).join('/'),
    ...(plan ? { [type === 'artifact:created' ? 'createdBy' : 'modifiedBy']: plan } : {}),
    timestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

const KEY = /^[A-Za-z0-9._:-]{1,120}$/;

export async function hook(
  client: WirestreamClient,
  values: EventsFlags,
  out: Output,
): Promise<number> {
  const warn = (why: string) => {
    out.err(`wirestream hook: ${why} (the tool call is not affected)`);
    return 0;
  };
  let input: HookInput;
  try {
    input = JSON.parse(await text(process.stdin)) as HookInput;
  } catch (error) {
    return warn(`stdin is not the hook's JSON: ${(error as Error).message}`);
  }
  const project = values.project ?? process.env.WIRESTREAM_PROJECT;
  if (!project) return warn('no project: pass --project P or set WIRESTREAM_PROJECT');
  const event = artifactEvent(input, values.plan ?? process.env.WIRESTREAM_PLAN, new Date());
  if (event === null) return 0;
  const toolUse = typeof input.tool_use_id === 'string' ? `hook.${input.tool_use_id}` : '';
  try {
    const sent = await new ProjectClient(client, project).emit(event, {
      signal: AbortSignal.timeout(intFlag('timeout-ms', values['timeout-ms'], 3000, 1)),
      retry: false,
      ...(KEY.test(toolUse) ? { idempotencyKey: toolUse } : {}),
    });
    if (out.json) out.out(JSON.stringify({ event, ...sent }));
    return 0;
  } catch (error) {
    // Delivered again for the same tool use: the first delivery's event is
    // stored (this one differs only in its timestamp), so there is nothing to do.
    if (
      KEY.test(toolUse) &&
      error instanceof WirestreamError &&
      error.code === 'wire-id-conflict'
    ) {
      if (out.json) out.out(JSON.stringify({ event, already_sent: true }));
      return 0;
    }
    return warn(`${event.type} ${String(event.path)} not sent: ${(error as Error).message}`);
  }
}
