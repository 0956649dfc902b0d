import { type CommandSpec, str } from './help';

/** The spec of `wirestream keys …` (agent-signed Wires); its sub-commands are in keys.ts. */
export const KEYS_SPECS: CommandSpec[] = [
  {
    name: 'keys',
    group: 'signing keys (agent-signed Wires)',
    synopsis:
      'new [--kid K] [--out FILE] | register --key FILE | rotate [--key FILE] | revoke KID | check TOPIC SEQ',
    summary: "An agent's Ed25519 signing keys: make one, register it, rotate it, revoke one.",
    details: [
      'Key files are private JWKs, mode 0600, in ~/.wirestream/keys/ (never inside a git work tree).',
      'Once the agent has a key, every Wire it posts must be signed: export WIRESTREAM_KEY=<key file>',
      'and the CLI signs them. A first key signs its own registration; later changes are signed by the',
      'key in use (WIRESTREAM_KEY). An admin token may register or revoke for --agent agent:ID.',
      "`keys check` reads only the mirror: the HCS message at TOPIC/SEQ and its sender's key Wires",
      '(on --keys-topic, default TOPIC); exit 0 when the agent signed it, 1 when not. A private',
      "project's Wire is checked over its sealed payload's commitment; with --data-key (what",
      'POST /v1/admin/private-keys/export answered, saved to a file) the payload is decrypted and',
      'checked against that commitment too: a key that does not open it fails the check (exit 1).',
    ].join('\n'),
    examples: [
      'wirestream keys new',
      'wirestream keys register --key ~/.wirestream/keys/ed25519-AbC.jwk',
      'wirestream keys rotate   # with WIRESTREAM_KEY set: prints the new file to export',
      'wirestream keys revoke ed25519-AbC --reason "laptop lost"',
      'wirestream keys check 0.0.1002 7 --keys-topic 0.0.1001 --coordinator 0.0.2 --mirror http://127.0.0.1:5551',
      'wirestream keys check 0.0.1003 2 --keys-topic 0.0.1001 --data-key ./acme-data-key.json',
    ],
    options: {
      kid: str('K', 'the new key id (default: ed25519-<hash of the public key>)'),
      out: str('FILE', 'where to write the new key file'),
      key: str('FILE', 'the key file (register: the key to register; rotate: the key in use)'),
      agent: str('agent:ID', "whose keys (default: the token's subject)"),
      reason: str('R', 'why a key is revoked'),
      'keys-topic': str('T', "check: the topic the agent's key Wires are on"),
      coordinator: str(
        'ACCOUNT',
        "check: count only key Wires this account paid for (the coordinator's operator)",
      ),
      mirror: str('URL', 'check: the mirror node (default WIRESTREAM_MIRROR_URL)'),
      'data-key': str('FILE|VALUE', "check: a private project's data key, to decrypt its payloads"),
    },
  },
];
