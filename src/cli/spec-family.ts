import { type CommandSpec, flag, type OptionSpec, str } from './help';

/** Specs of the workspace (seed 001) and GSD (seed 004) commands; see help.ts. */
const WORKSPACE = 'workspace commands (seed 001; --workspace W or WIRESTREAM_WORKSPACE)';
const GSD = 'GSD project commands (seed 004; --project P or WIRESTREAM_PROJECT)';

const workspace: OptionSpec = str(
  'W',
  'the workspace (default WIRESTREAM_WORKSPACE, else "default")',
);

function ws(
  name: string,
  synopsis: string,
  summary: string,
  examples: string[],
  options: Record<string, OptionSpec> = {},
): CommandSpec {
  return {
    name,
    group: WORKSPACE,
    synopsis,
    summary,
    examples,
    options: { workspace, ...options },
  };
}

export const WORKSPACE_SPECS: CommandSpec[] = [
  ws(
    'symbols',
    'set ID VALUE [--force] | get ID | reverse VALUE | list',
    'Short symbols for long references (heimdall-resolve).',
    ['wirestream symbols set F12 src/matching/engine.ts', 'wirestream symbols get F12'],
    { force: flag('replace a symbol that names another value') },
  ),
  ws(
    'capsule',
    'write ID --what T [--where T] [--decision T] [--gotcha T] [--depends a,b] | hydrate ID | deps ID',
    'Context capsules: write one, hydrate it with its dependencies (heimdall-capsule).',
    [
      `wirestream capsule write w1 --what "added LOB engine" --where F12`,
      'wirestream capsule hydrate w1',
    ],
    {
      what: str('T', 'what was done'),
      where: str('T', 'where (a symbol or path)'),
      decision: str('T', 'the decision taken'),
      gotcha: str('T', 'what to watch out for'),
      depends: str('a,b', 'capsules this one depends on'),
    },
  ),
  ws(
    'brief',
    'build --task T --spec S [--symbols a,b] [--capsules a,b] [--invariants REF]',
    'Build a task brief and log its tokens to the ledger (heimdall-brief).',
    ['wirestream brief build --task 3.2 --spec "implement book diff" --symbols F12 --capsules w2'],
    {
      task: str('T', 'the task id'),
      spec: str('S', 'what to build'),
      symbols: str('a,b', 'symbols to include'),
      capsules: str('a,b', 'capsules to hydrate into the brief'),
      invariants: str('REF', 'the invariants document'),
    },
  ),
  ws(
    'blackboard',
    'set KEY VALUE | get KEY | list',
    'Shared facts of the workspace (heimdall-blackboard).',
    ['wirestream blackboard set dev_port 5173'],
  ),
  ws(
    'ledger',
    'log --role R --kind K --tokens N [--msg-id M] | baseline --role R --tokens N | delta --role R | report',
    'The token ledger: log, baseline, delta and report (heimdall-ledger).',
    ['wirestream ledger log --role orchestration --kind delta_brief --tokens 3300 --msg-id b1'],
    {
      role: str('R', 'the role'),
      kind: str('K', 'what the tokens were spent on'),
      tokens: str('N', 'token count'),
      'msg-id': str('M', 'the message the tokens belong to'),
    },
  ),
  ws(
    'validate',
    '[--on-receipt]',
    'Validate typed messages, one JSON object per line on stdin (heimdall-validate).',
    [
      `echo '{"type":"question","from":"coder","msg_id":"q1","question":"which port?"}' | wirestream validate --on-receipt`,
    ],
    { 'on-receipt': flag('as the receiver: escalate a second invalid one') },
  ),
  ws(
    'claims',
    'list | make --surfaces a,b --task T [--ttl MIN] [--mode shared] [--haid H] | release [CLAIM_ID] [--haid H]',
    'Surface claims: list, make and release them (heimdall-claim).',
    ['wirestream claims make --surfaces "src/a/**" --task T-9', 'wirestream claims list'],
    {
      surfaces: str('a,b', 'globs of the files claimed'),
      task: str('T', 'the task the claim is for'),
      ttl: str('MIN', 'minutes the claim lives'),
      mode: str('MODE', 'exclusive (default) or shared'),
      haid: str('H', 'the identity claiming (default the token subject)'),
    },
  ),
  ws('log', '[N]', "The workspace's protocol log, the last N lines (default 50).", [
    'wirestream log 20',
  ]),
  ws('demo', '', "The seed's measured demo: one wave, v1 vs v2 (heimdall-protocol demo).", [
    'wirestream demo --workspace demo-1',
  ]),
];

const project: OptionSpec = str('P', 'the project (default WIRESTREAM_PROJECT)');

export const GSD_SPECS: CommandSpec[] = [
  {
    name: 'events',
    group: GSD,
    synopsis:
      'emit --type T [--plan P] [--task N] [--agent A] [--data JSON] | tail [--type T,U] [--plan-prefix X] [--after N] [--follow] | wait --type T [--count N] [--timeout SECONDS]',
    summary: "A project's events: emit one (or JSON on stdin), tail them, wait for some.",
    details: '`events wait` exits 3 when --timeout passes first.',
    examples: [
      `wirestream events emit --type task:started --plan 01-02 --task 1 --data '{"taskName":"Create User model"}'`,
      'wirestream events wait --type task:completed --plan-prefix 01- --count 3 --timeout 3600',
    ],
    options: {
      project,
      type: str('T', 'event type (tail and wait: comma-separated)'),
      plan: str('P', 'the plan, e.g. 01-02'),
      task: str('N', 'the task number'),
      agent: str('A', 'the agent'),
      data: str('JSON', 'the event’s other fields, a JSON object'),
      'plan-prefix': str('X', 'only plans starting with X'),
      after: str('N', 'only events after id N'),
      count: str('N', 'wait: how many events (default 1)'),
      timeout: str('SECONDS', 'wait: give up after (exit 3)'),
      follow: flag('tail: keep following', 'f'),
    },
  },
  {
    name: 'hook',
    group: GSD,
    synopsis: '[--plan P] [--timeout-ms N]',
    summary: 'A Claude Code PostToolUse hook: Write/Edit on stdin → artifact:created/modified.',
    examples: ['npx wirestream hook --project auth-service'],
    options: {
      project,
      plan: str('P', 'the plan'),
      'timeout-ms': str('N', 'give up (default 3000)'),
    },
  },
];
