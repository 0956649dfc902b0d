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
    synopsis:
      '<topic> [--log [--key VKEY]...] | --proof <file|wire_id> [--key VKEY]...   [--mirror URL] [--api URL]',
    summary:
      'Check HCS anchoring from the mirror node alone: a topic, its log checkpoints, or one proof.',
    details: `<topic>: recomputes the topic's running-hash chain (every message from the first).
--log: also checks log mode's checkpoints on the topic: each signed by the log's key, each
  naming the one before it (prev line), each tree an extension of the one before (consistency
  proofs from the API, checked against the roots on the mirror).
--proof: a proof as GET /v1/wires/{id}/proof answers it, from a file (- for stdin) or fetched
  by wire_id: a log-mode proof's leaf, inclusion path, checkpoint signature, that the checkpoint
  is the HCS message it names, and that message's running hash; an envelope-mode proof's message
  and running hash.
Without --key the log's keys are the ones the API or the proof names (trust on first use).
--key may be given several times: after a rotation of the log key (README, Rotating the log key)
  a checkpoint signed by any of them verifies, the key picked by the signature's key id.
Exit 0 only when every check holds, 1 when one fails (each failure is named), 2 on a usage error.`,
    examples: [
      'wirestream verify 0.0.1001',
      'wirestream verify 0.0.1001 --log --key "$LOG_VERIFIER_KEY"',
      'wirestream verify --proof proof.json',
      'wirestream verify --proof 01JD3YF2ZQ8M6N4K7RVTB5WXAC --json',
    ],
    options: {
      mirror: str('URL', 'mirror node (default WIRESTREAM_MIRROR_URL or the local stand-in)'),
      log: flag("check the topic's log checkpoints too (log mode)"),
      proof: str('FILE|ID', 'check one proof: a file, - for stdin, or a wire_id to fetch'),
      key: {
        ...str('VKEY', 'a verifier key of the log (name+id+base64) to check signatures with'),
        multiple: true,
      },
      api: str('URL', 'the Wirestream server (default WIRESTREAM_URL)'),
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
