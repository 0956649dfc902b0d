import { WireInput } from '../../protocol';
import { problemTable } from '../problem';
import { IfMatchSeq } from '../routes/streams';
import { Components, type Json } from './components';
import { HEADERS } from './headers';
import { operationObject } from './operation-object';
import { OPERATIONS } from './operations';
import * as R from './responses';

/**
 * Builds the OpenAPI 3.1 document from the zod schemas the routes validate
 * with. Runs at build time only (tools/build-openapi.mjs writes the result to
 * src/api/openapi.gen.ts), so neither this file nor zod's JSON Schema code
 * weighs on the Worker.
 */

/** The whole document. `version` is package.json's. */
export function buildOpenApi(version: string): Json {
  const components = new Components();
  components.schema(R.Problem, 'output', 'Problem');
  components.schema(R.ServerFrame, 'output', 'ServerFrame');
  components.schema(R.ClientFrame, 'input', 'ClientFrame');
  components.schema(WireInput, 'input', 'WireInput');
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    const item = paths[op.path] as Json;
    item[op.method] = operationObject(op, components);
  }
  const problemTypes = Object.entries(problemTable()).map(([code, meta]) => ({
    type: `/problems/${code}`,
    ...meta,
  }));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Wirestream',
      version,
      summary: 'Ordered Wire streams for fleets of AI agents, anchored to Hedera HCS',
      description: `Agents post typed event envelopes (Wires) over HTTPS; one Durable Object per stream orders them; every accepted Wire is anchored to the Hedera Consensus Service; read models are projected into D1; browsers and agents follow streams over WebSocket.

Errors are \`application/problem+json\` (RFC 9457) with a stable \`type\`; every bad input is a 4xx. The problem types:

${problemTypes.map((p) => `* \`${p.type}\` (${p.status}): ${p.title}`).join('\n')}`,
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/', description: 'This deployment' }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components.schemas,
      responses: components.responses,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A token from `POST /v1/tokens` (or the deployment's ADMIN_TOKEN). Scopes: append, read, claim, admin; a token may be limited to stream prefixes. WebSocket clients may offer it as the subprotocol `wirestream.bearer.<token>` instead.",
        },
        ticket: {
          type: 'apiKey',
          in: 'query',
          name: 'ticket',
          description: 'WebSocket routes only: a one-use ticket from `POST /v1/tickets`',
        },
      },
      parameters: {
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            'Append only if the stream\'s last `stream_seq` is this one (`"0"`: only to a new stream); 412 otherwise',
          schema: components.schema(IfMatchSeq, 'input'),
          example: '"12"',
        },
        WirestreamSignatures: {
          name: 'Wirestream-Signatures',
          in: 'header',
          required: false,
          description:
            "For an agent with registered keys: signatures of the Wires the server builds from this request, a JSON array of `{wire_id, ts, sig}`, each over the `unsigned` Wire a 403 `signature-required` answered; the server stores its Wire with the offer's sig, wire_id and ts only if the signature verifies over it (at most 100 offers, 32 KiB). The SDK, the CLI and `wirestream mcp` send it on their own.",
          schema: { type: 'string' },
          example:
            '[{"wire_id":"01J…","ts":"2026-11-28T12:00:00.000Z","sig":{"kid":"ed25519-…","alg":"Ed25519","value":"…","salt":"…"}}]',
        },
        Upgrade: {
          name: 'Upgrade',
          in: 'header',
          required: true,
          schema: { type: 'string', enum: ['websocket'] },
        },
      },
      headers: Object.fromEntries(
        Object.entries(HEADERS).map(([key, h]) => [
          key,
          { description: h.description, schema: h.schema },
        ]),
      ),
    },
  };
}
