/**
 * What a module's `openapi.ts` describes its routes with. Apart from
 * `module-kit.ts` because only the build (tools/build-openapi.mjs, through
 * `src/modules/openapi.ts`) and the tests import these: their schemas and
 * descriptions stay out of the Worker bundle.
 */
export {
  AUTH,
  appendScoped,
  BODY,
  type Operation,
  readOperation,
  readScoped,
  SIGNED,
  StreamIdParam,
} from './openapi/operation';
export { Cursor, Receipt, Seq, ServedWire, Time } from './openapi/responses';
export { followOperation } from './openapi/stream-operations';
