import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer, tokenFor } from '../support/dev-server';

/** workerd processes started under this test process (wrangler dev's children). */
function workerdPids(): number[] {
  const parentOf = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parentOf.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const underUs = (pid: number) => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) {
      if (p === process.pid) return true;
    }
    return false;
  };
  return [...names].filter(([pid, name]) => name === 'workerd' && underUs(pid)).map(([p]) => p);
}

/** TCP ports the processes listen on (from /proc/net/tcp, matched by socket inode). */
function listeningPorts(pids: number[]): number[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  const ports: number[] = [];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols[3] === '0A' && inodes.has(cols[9] ?? '')) {
      ports.push(Number.parseInt(cols[1]?.split(':')[1] ?? '0', 16));
    }
  }
  return ports;
}

/**
 * The port where workerd serves the Worker itself, behind `wrangler dev`'s
 * proxy (which answers 503 for any upload the Worker stops reading).
 */
async function directPort(server: DevServer): Promise<number> {
  for (const port of listeningPorts(workerdPids())) {
    if (port === server.port) continue;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/schema/wire.json`, {
        signal: AbortSignal.timeout(1000),
      });
      if (res.status === 200 && (await res.text()).includes('wire')) return port;
    } catch {
      // Not the Worker (the inspector, the proxy's own sockets).
    }
  }
  throw new Error('no direct workerd port found');
}

/** Resident and peak resident memory (MiB) of a process. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** Sends raw bytes on a fresh connection; resolves with what came back (or '' on a cut). */
function raw(
  port: number,
  send: (socket: import('node:net').Socket) => void,
  waitMs = 5000,
): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const socket = connect(port, '127.0.0.1', () => send(socket));
    socket.on('data', (d) => {
      got += d.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
    setTimeout(() => {
      socket.destroy();
      resolve(got);
    }, waitMs);
  });
}

/** What the Worker itself must not log for an expected event (workerd's HTTP parser and
 * Miniflare's entry worker log their own lines for a broken upload, which production has not). */
const NOISE = /jsgInternalError|unhandled error|unhandled rejection/i;

describe('request bodies against wrangler dev', () => {
  let server: DevServer;
  let token: string;
  let port: number;

  beforeAll(async () => {
    server = await startDevServer();
    token = (await tokenFor(server, 'agent:body')) ?? '';
    port = await directPort(server);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  const head = (path: string, extra: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  /**
   * Pumps a 256 MiB chunked upload until the first byte of an answer arrives (as an HTTP client
   * that reads while it sends stops on an early answer), or the server closes the connection.
   * Answers what came back and how many of the 256 MiB were sent.
   */
  const hugeChunkedUpload = async () => {
    let sent = 0;
    const answer = await raw(
      port,
      (socket) => {
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        const frame = Buffer.concat([
          Buffer.from(`${chunk.length.toString(16)}\r\n`),
          chunk,
          Buffer.from('\r\n'),
        ]);
        let answered = false;
        socket.once('data', () => {
          answered = true;
        });
        socket.write(head('/v1/streams/project:big-body/wires', 'Transfer-Encoding: chunked\r\n'));
        socket.write('8\r\n{"pad":"\r\n');
        const pump = () => {
          while (sent < 256 && !answered && !socket.destroyed) {
            sent += 1;
            if (!socket.write(frame)) return void socket.once('drain', pump);
          }
          if (!answered && !socket.destroyed) socket.end('0\r\n\r\n');
        };
        pump();
      },
      60_000,
    );
    return { answer, sent };
  };

  /*
   * workerd answers 413 and closes at once, without draining what the client already sent,
   * so its kernel resets the connection; a client still writing may see that reset before it
   * has read the 413, which Linux then discards (seen on loaded fresh CI clones: closed after
   * 13-22 ms, nothing read, on every attempt). So the upload counts as cut off either way:
   * answered 413, or closed by the server long before the 256 MiB were sent. The 413's
   * problem document itself is asserted in test/workers/hardening-body.test.ts.
   */
  it('cuts a 256 MiB chunked body off at the limit without growing workerd', async () => {
    const pids = workerdPids();
    expect(pids.length).toBeGreaterThan(0);
    const rssBefore = pids.map(memoryOf).reduce((a, m) => a + m.rss, 0);
    const started = Date.now();
    const { answer, sent } = await hugeChunkedUpload();
    // VmHWM is each process's peak since it started: it covers the whole upload, however
    // short, where a sampler may see none of it.
    const hwmAfter = pids.map(memoryOf).reduce((a, m) => a + m.hwm, 0);
    console.log(
      `256 MiB chunked body: workerd RSS before ${rssBefore.toFixed(0)} MiB, VmHWM after ${hwmAfter.toFixed(0)} MiB, ${answer === '' ? 'closed (reset) with nothing read' : 'answered'} in ${Date.now() - started} ms after ${sent} MiB sent`,
    );
    if (answer === '') {
      expect(sent).toBeLessThan(64);
    } else {
      if (!/^HTTP\/1\.1 413/.test(answer))
        console.log(answer.slice(0, 1500), server.log().slice(-3000));
      expect(answer).toMatch(/^HTTP\/1\.1 413/);
      expect(answer).toContain('the limit is 8192 bytes');
    }
    expect(hwmAfter - rssBefore).toBeLessThan(64);
    // Nothing of it was stored, and the server answers as before.
    const stored = await fetch(`${server.url}/v1/streams/project:big-body/wires`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as { last_seq: number }).last_seq).toBe(0);
  }, 200_000);

  /** Starts a POST to `path` with `header`, sends `part` of its body, and hangs up 200 ms later. */
  const sendPartThenHangUp = (path: string, header: string, part: string) =>
    raw(
      port,
      (socket) => {
        socket.write(head(path, header));
        socket.write(part);
        setTimeout(() => socket.destroy(), 200);
      },
      2000,
    );

  it('a body shorter than its Content-Length, client gone: quiet, and the server carries on', async () => {
    const mark = server.log().length;
    const started = Date.now();
    await sendPartThenHangUp(
      '/v1/streams/project:short-body/wires',
      'Content-Length: 1000\r\n',
      '{"wire":"1.1",',
    );
    // The server answers at once afterwards, and logged no error for an expected event.
    const res = await fetch(`${server.url}/v1/streams/project:short-body`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(404);
    await new Promise((r) => setTimeout(r, 1500));
    expect(Date.now() - started).toBeLessThan(10_000);
    const log = server.log().slice(mark);
    if (NOISE.test(log)) console.log(log);
    expect(log).not.toMatch(NOISE);
  }, 30_000);

  it('after a 413 for an oversized body the next request is answered at once, not after a stall', async () => {
    for (const bytes of [9_000, 500_000]) {
      const status = await new Promise<number | string>((resolve) => {
        const req = request(`${server.url}/v1/streams/project:big-put/topic`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', (error) => resolve(String(error)));
        req.end(JSON.stringify({ topic: 'dedicated', pad: 'x'.repeat(bytes) }));
      });
      expect(status, `${bytes} bytes`).toBe(413);
      // Before the Worker read refused bodies through, this request waited ~8 s
      // behind wrangler dev's proxy: a hang, not a slow answer.
      const next = await fetch(`${server.url}/v1/streams/project:big-put`, {
        headers: { Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(4_000),
      });
      await next.arrayBuffer();
      expect(next.status).toBe(404);
    }
  }, 60_000);

  // workerd still logs its own `jsgInternalError` lines when its HTTP parser meets the bad
  // chunk (before any Worker code; Cloudflare's edge refuses such a request itself).
  it('a malformed chunk size answers 400, not 500, and the Worker logs no unhandled error', async () => {
    const mark = server.log().length;
    const answer = await raw(port, (socket) => {
      socket.write(head('/v1/streams/project:bad-chunk/wires', 'Transfer-Encoding: chunked\r\n'));
      socket.write('zz\r\n{"a":1}\r\n0\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('/problems/incomplete-body');
    await new Promise((r) => setTimeout(r, 1000));
    expect(server.log().slice(mark)).not.toMatch(/unhandled error|unhandled rejection/i);
  }, 30_000);

  it('a chunked body cut mid-stream by the client is quiet', async () => {
    const mark = server.log().length;
    await sendPartThenHangUp(
      '/v1/streams/project:cut-body/wires',
      'Transfer-Encoding: chunked\r\n',
      '8\r\n{"wire":\r\n',
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(server.log().slice(mark)).not.toMatch(NOISE);
  }, 30_000);
});
