import { text } from 'node:stream/consumers';
import { type GsdEvent, ProjectClient } from '../client';
import { emit, type Output } from './format';
import { hook } from './hook';
import { subMain } from './sub-main';
import { intFlag, jsonArg, parseLine, UsageError, valueFlags } from './usage';

/**
 * Seed 004's bash loops as commands, over a project's events
 * (`--project P`, or WIRESTREAM_PROJECT):
 *   events emit    one event from flags, or JSON (an event or an array) on stdin
 *   events tail    the events.json view; --follow stays on it (long polls)
 *   events wait    returns when --count events match (the orchestrator's loop)
 *   hook           a Claude Code PostToolUse hook: Write/Edit → artifact:created/modified
 */
export const EVENTS_COMMANDS = new Set(['events', 'hook']);

export const EVENTS_USAGE = `GSD project commands (--project P or WIRESTREAM_PROJECT; --json on each):
  events emit --type T [--plan P] [--task N] [--agent A] [--data JSON]   (or JSON on stdin)
  events tail [--type T,U] [--plan-prefix X] [--after N] [--follow]
  events wait --type T [--plan-prefix X] [--count N] [--timeout SECONDS]   exit 3 on timeout
  hook [--plan P] [--timeout-ms N]   Claude Code PostToolUse hook: hook JSON on stdin`;

function parse(argv: string[]) {
  return parseLine(argv, {
    follow: { type: 'boolean', short: 'f' },
    ...valueFlags(
      'project',
      'type',
      'plan',
      'task',
      'agent',
      'data',
      'plan-prefix',
      'after',
      'count',
      'timeout',
      'timeout-ms',
    ),
  });
}

export type EventsFlags = ReturnType<typeof parse>['values'];

export function projectFlag(values: { project?: string | undefined }): string {
  const project = values.project ?? process.env.WIRESTREAM_PROJECT;
  if (!project) throw new UsageError('missing: --project P (or WIRESTREAM_PROJECT)');
  return project;
}

/** One line per event: `#id  type  plan  task  the other fields`. */
function eventLine(event: GsdEvent & { id: unknown }): string {
  const { id, type, plan, task, timestamp: _t, ...rest } = event;
  const fields = Object.keys(rest).length > 0 ? JSON.stringify(rest) : '';
  return [`#${String(id)}`, type, plan ?? '-', task ?? '-', fields].join('\t');
}

/** Runs `events …` or `hook`; the exit code. */
export function eventsMain(argv: string[]): Promise<number> {
  return subMain(argv, EVENTS_USAGE, async (client, output) => {
    const { values, positionals } = parse(argv);
    if (positionals[0] === 'hook') return hook(client, values, output);
    const project = new ProjectClient(client, projectFlag(values));
    switch (positionals[1]) {
      case 'emit':
        return emitEvent(project, values, output);
      case 'tail':
        return tail(project, values, output);
      case 'wait':
        return wait(project, values, output);
      default:
        throw new UsageError(`unknown events command "${positionals[1] ?? ''}": emit|tail|wait`);
    }
  });
}

async function eventsFromFlags(values: EventsFlags): Promise<GsdEvent | GsdEvent[]> {
  if (values.type === undefined) {
    if (process.stdin.isTTY) throw new UsageError('events emit needs --type, or JSON on stdin');
    const body = jsonArg('stdin', await text(process.stdin));
    if (body === null || typeof body !== 'object') {
      throw new UsageError('stdin must hold one JSON event (an object) or an array of them');
    }
    return body as GsdEvent | GsdEvent[];
  }
  const data = values.data === undefined ? {} : jsonArg('--data', values.data);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new UsageError('--data must be a JSON object (the event’s other fields)');
  }
  const task = values.task === undefined ? undefined : intFlag('task', values.task, 0);
  return {
    type: values.type,
    ...(values.agent ? { agent: values.agent } : {}),
    ...(values.plan ? { plan: values.plan } : {}),
    ...(task === undefined ? {} : { task }),
    ...data,
    timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

async function emitEvent(project: ProjectClient, values: EventsFlags, out: Output) {
  const sent = await project.emit(await eventsFromFlags(values));
  emit(out, sent, sent.events.map((e) => `emitted #${e.id} ${e.wire_id}`).join('\n'));
  return 0;
}

function filterOf(values: EventsFlags) {
  return {
    ...(values.type ? { type: values.type } : {}),
    ...(values['plan-prefix'] ? { planPrefix: values['plan-prefix'] } : {}),
  };
}

/** `events tail`: the view; `--follow` then long-polls for each next event until Ctrl-C. */
async function tail(project: ProjectClient, values: EventsFlags, out: Output) {
  const stop = new AbortController();
  const print = (events: (GsdEvent & { id: unknown })[]) => {
    for (const e of events) emit(out, e, eventLine(e));
  };
  let after = intFlag('after', values.after, 0);
  const first = await project.events({ ...filterOf(values), after });
  print(first.events);
  if (!values.follow) return 0;
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  after = first.lastEventId;
  out.err(`following from #${after} (Ctrl-C to stop)`);
  while (!stop.signal.aborted) {
    try {
      const next = await project.events(
        { ...filterOf(values), after },
        { seconds: 60, count: 1 },
        stop.signal,
      );
      print(next.events);
      after = Math.max(after, next.lastEventId);
    } catch (error) {
      if (stop.signal.aborted) break;
      throw error;
    }
  }
  return 0;
}

/** `events wait`: the orchestrator's `while …; sleep 5` loop as one long poll. */
async function wait(project: ProjectClient, values: EventsFlags, out: Output) {
  if (!values.type)
    throw new UsageError('events wait needs --type T (colon types, comma-separated)');
  const count = intFlag('count', values.count, 1, 1);
  const timeout = values.timeout === undefined ? undefined : intFlag('timeout', values.timeout, 0);
  const found = await project.waitFor(
    { ...filterOf(values), after: intFlag('after', values.after, 0) },
    count,
    timeout === undefined ? Number.POSITIVE_INFINITY : timeout * 1000,
  );
  emit(
    out,
    found,
    `${found.events.length}/${count} ${values.type}${found.met ? '' : ' (timed out)'}\n${found.events.map(eventLine).join('\n')}`.trimEnd(),
  );
  return found.met ? 0 : 3;
}
