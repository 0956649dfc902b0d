import { type CommandSpec, str } from './help';

/** The spec of `wirestream runtime …` (seed 003); its sub-commands are in runtime.ts. */
export const RUNTIME_SPECS: CommandSpec[] = [
  {
    name: 'runtime',
    group: 'Runtime v1 commands (seed 003)',
    synopsis:
      'open|say|state|worker-state|follow|spawn|progress|complete|fail|bulletins … (wirestream runtime --help)',
    summary: 'Channels, workers and bulletins of Runtime v1: the channel side and the worker side.',
    details: [
      'open C --policy JSON [--budget N] · say C TEXT [--to W] [--role R] · state C · worker-state W',
      'follow channel|worker ID [--after N] [--until TYPE] · spawn W --channel C --goal G',
      'progress W --status S · complete W --summary S · fail W --message M · bulletins [--limit N]',
    ].join('\n'),
    examples: [
      `wirestream runtime open support --policy '{"rules":[]}'`,
      'wirestream runtime say support "the build is red" --json',
      'wirestream runtime follow channel support --until worker.completed',
    ],
    options: {
      policy: str('JSON', 'the channel rule policy (open)'),
      budget: str('N', 'context budget in tokens (open)'),
      to: str('W', 'send to this interactive worker (say)'),
      role: str('R', 'the sender role (say)'),
      after: str('N', 'follow from after this seq'),
      until: str('TYPE', 'stop following at this message type'),
      channel: str('C', 'the channel (spawn, progress, complete, fail)'),
      branch: str('B', 'the branch the worker serves (spawn)'),
      goal: str('G', "the worker's goal (spawn)"),
      toolset: str('a,b', "the worker's tools (spawn)"),
      mode: str('M', 'interactive or fire_and_forget (spawn)'),
      timeout: str('SECONDS', "the worker's timeout (spawn)"),
      status: str('S', 'running or waiting (progress)'),
      note: str('T', 'a progress note'),
      percent: str('P', 'progress in percent'),
      summary: str('S', 'the conclusion (complete)'),
      outcome: str('O', 'success, partial or no_op (complete)'),
      artifacts: str('a,b', 'artifact ids (complete)'),
      tokens: str('IN,OUT', 'tokens used (complete)'),
      message: str('M', 'what went wrong (fail)'),
      reason: str('R', 'error or cancelled (fail)'),
      limit: str('N', 'how many bulletins'),
    },
  },
];
