import { wireJsonSchema } from '../protocol/json-schema';
import { messageSchema } from './heimdall/workspace/messages';
import { REGISTRY } from './index';
import { runtimeJsonSchema } from './runtime/json-schema';

/**
 * The JSON Schema documents the API publishes, by static asset path (under
 * `.local/static/`). Like `openapi.ts`, only the build (tools/build-openapi.mjs)
 * and the tests import this: zod's JSON Schema export stays out of the Worker,
 * which forwards `GET /v1/schema/…` to the static Worker (src/api/routes/static-files.ts).
 */
export function schemaAssets(): Record<string, string> {
  return {
    'reference/schema/wire.json': JSON.stringify(wireJsonSchema(REGISTRY.types)),
    'reference/schema/runtime-envelope-v1.json': JSON.stringify(runtimeJsonSchema()),
    'reference/schema/heimdall/message-schema.json': JSON.stringify(messageSchema(), null, 2),
  };
}
