// @ts-check
// gRPC-web framing as the SDK's WebChannel speaks it: each message is a
// 5-byte header (flag, u32 big-endian length) then protobuf bytes. A unary
// answer is one data frame and one trailer frame `grpc-status:0\r\n` in the
// body; errors travel as `grpc-status` + `grpc-message` headers with no body
// (the SDK reads both headers together as a failed call).

export const GRPC_OK = 0;
export const GRPC_UNIMPLEMENTED = 12;
export const GRPC_INTERNAL = 13;
export const GRPC_UNAVAILABLE = 14;

const CONTENT_TYPE = 'application/grpc-web+proto';

/** @param {Buffer} body @returns {Uint8Array | null} the first data frame's payload */
export function readDataFrame(body) {
  if (body.length < 5) return null;
  const flag = body.readUInt8(0);
  const length = body.readUInt32BE(1);
  if ((flag & 0x80) !== 0 || body.length < 5 + length) return null;
  return body.subarray(5, 5 + length);
}

/** @param {number} flag @param {Uint8Array} payload */
function frame(flag, payload) {
  const header = Buffer.alloc(5);
  header.writeUInt8(flag, 0);
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {Uint8Array} message encoded protobuf
 */
export function sendUnary(res, message) {
  const body = Buffer.concat([
    frame(0x00, message),
    frame(0x80, Buffer.from(`grpc-status:${GRPC_OK}\r\n`)),
  ]);
  res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': body.length });
  res.end(body);
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} code
 * @param {string} message
 */
export function sendGrpcError(res, code, message) {
  res.writeHead(200, {
    'content-type': CONTENT_TYPE,
    'grpc-status': String(code),
    'grpc-message': encodeURIComponent(message),
    'content-length': 0,
  });
  res.end();
}

/** The SDK's health check: a POST to `/` answered with a grpc-status header. */
export function sendHealthy(/** @type {import('node:http').ServerResponse} */ res) {
  res.writeHead(200, { 'content-type': CONTENT_TYPE, 'grpc-status': String(GRPC_OK) });
  res.end();
}
