import { type CommandSpec, flag, type OptionSpec, str } from './help';

/** The stream commands' specs (`wirestream help <command>`; see help.ts). */
const GROUP = 'streams, tasks and tokens';

const sender: OptionSpec = str('ID', "sender of the Wires (default: the token's subject)");

export const CORE_SPECS: CommandSpec[] = [
  {
    name: 'append',
    group: GROUP,
    synopsis: '<stream> --type T [--payload JSON] [--count N]   (or JSON lines on stdin)',
    summary: 'Append Wires to a stream.',
    details: `Without --type, reads one JSON object per line on stdin ({"type":…,"payload":…});
every line is checked before the first one is sent, and a bad line sends nothing (exit 2).
More than one Wire: a progress bar with an ETA on a terminal, then one summary line.`,
    examples: [
      `wirestream append project:kv-m02 --type review.concern --payload '{"concern":"naming"}'`,
      `echo '{"type":"review.concern","payload":{"concern":"piped"}}' | wirestream append project:kv-m02`,
    ],
    options: {
      type: str('T', 'the Wire type, e.g. review.concern'),
      payload: str('JSON', 'the payload, a JSON object (default {})'),
      count: str('N', 'append N such Wires (default 1)'),
      sender,
    },
  },
  {
    name: 'tail',
    group: GROUP,
    synopsis: '<stream> [--after N] [--follow]',
    summary: "Print a stream's Wires in order; --follow stays on the live feed.",
    details: `Columns: seq, received (how long ago), type, sender, anchor (pending, or the HCS
topic and sequence number), payload (cut to the terminal's width; --json has it all).
An unknown stream, or --after past its last Wire, is an error (exit 1) unless --follow waits for it.`,
    examples: [
      'wirestream tail project:kv-m02 --follow',
      'wirestream tail project:kv-m02 --after 10 --json',
    ],
    options: {
      after: str('N', 'start after stream_seq N (default 0)'),
      follow: flag('then follow live until Ctrl-C', 'f'),
    },
  },
  {
    name: 'claim',
    group: GROUP,
    synopsis: '<task> --role R [--attempt N] [--lease SECONDS] [-v]',
    summary: 'Claim a task attempt and hold its lease with heartbeats until Ctrl-C releases it.',
    examples: ['wirestream claim 0.0.9002 --role developer --lease 60'],
    options: {
      role: str('R', 'the role the task is offered to'),
      attempt: str('N', 'the attempt (default 1)'),
      lease: str('SECONDS', 'lease length (default 60)'),
      verbose: flag('print every lease renewal', 'v'),
      sender,
    },
  },
  {
    name: 'verify',
    group: GROUP,
    synopsis: '<topic> [--mirror URL]',
    summary: "Recompute an HCS topic's running-hash chain from the mirror node (exit 1 if broken).",
    examples: ['wirestream verify 0.0.1001'],
    options: {
      mirror: str('URL', 'mirror node (default WIRESTREAM_MIRROR_URL or the local stand-in)'),
    },
  },
  {
    name: 'token',
    group: GROUP,
    synopsis: '[--sub S --scopes a,b --roles r --streams p --expires-in SECONDS]',
    summary:
      'Show who WIRESTREAM_TOKEN is (subject, scopes, roles, expiry), or mint a token (admin).',
    details:
      'With --sub the new token alone goes to stdout, so export WIRESTREAM_TOKEN=$(…) works.',
    examples: [
      'wirestream token',
      'WIRESTREAM_TOKEN=$ADMIN_TOKEN wirestream token --sub agent:quinn-07 --scopes append,read,claim',
    ],
    options: {
      sub: str('S', 'mint a token for this subject'),
      scopes: str('a,b', 'scopes (default append,read,claim)'),
      roles: str('r,s', 'roles, e.g. coordinator'),
      streams: str('p,q', 'stream prefixes the token is limited to'),
      'expires-in': str('SECONDS', 'lifetime'),
    },
  },
  {
    name: 'mcp',
    group: GROUP,
    synopsis: '[--url URL] [--token T]',
    summary: 'A stdio MCP server forwarding to URL/mcp (for hosts that only speak stdio).',
    examples: ['wirestream mcp --url http://127.0.0.1:8787 --token $TOKEN'],
    options: {
      url: str('URL', 'the server (default WIRESTREAM_URL)'),
      token: str('T', 'bearer token (default WIRESTREAM_TOKEN)'),
    },
  },
  {
    name: 'run',
    group: 'run documents (seed 002)',
    synopsis:
      '<run_id> --create JSON | --message JSON | --request KIND [--payload JSON] | --revisions | [--revision N]',
    summary: 'A run, its writer and its document: create, message, request, or read it.',
    examples: [
      `wirestream run r1 --create '{"writer":"agent:w","sections":[{"id":"a"}]}'`,
      'wirestream run r1 --revision 2',
    ],
    options: {
      create: str('JSON', 'create the run'),
      message: str('JSON', "one actor message to the run's writer"),
      request: str('KIND', 'request_conductor of this kind'),
      payload: str('JSON', "the request's payload"),
      revisions: flag('list the revisions'),
      revision: str('N', 'the document at revision N'),
      sender,
    },
  },
  {
    name: 'help',
    group: 'help',
    synopsis: '[command]',
    summary: 'This overview, or one command’s options and example.',
    examples: ['wirestream help tail'],
    options: {},
  },
];

export const ENVIRONMENT = `environment: WIRESTREAM_URL (default http://127.0.0.1:8787), WIRESTREAM_TOKEN,
             WIRESTREAM_MIRROR_URL (verify), WIRESTREAM_WORKSPACE, WIRESTREAM_PROJECT,
             WIRESTREAM_KEY (a key file: sign every Wire, see keys)`;
