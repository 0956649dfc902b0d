// Runs in a worker thread so that 1,000 WebSocket clients do not share the
// event loop of the load generator. Records, per stream_seq, how many
// subscribers got it and when the last one did; acknowledges like the client
// SDK (src/client/acker.ts): as the server's `hello` frame asks (every
// `ack_every` Wires or within `ack_ms`), one ack per frame if it sends none.
// `ackEvery`/`ackDelayMs` in workerData override the server's ask.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { origin, paths, ack, headers, anchors, ackEvery, ackDelayMs } = workerData;
const clock = () => performance.timeOrigin + performance.now();

let capacity = 1 << 16;
let counts = new Uint32Array(capacity);
let lastAt = new Float64Array(capacity);
/** When the first subscriber got each seq: a late first means the broadcast began late. */
let firstAt = new Float64Array(capacity);
/** With `anchors`: when the first `anchored` news of each seq arrived. */
const anchoredAt = new Map();
let maxSeq = 0;
let ready = 0;
let failed = 0;
const closes = new Map();
let stopping = false;
/** With `anchors`: no seq below this lacks its `anchored` news (advanced lazily). */
let anchoredLow = 1;
const sockets = [];
const SEQ = /"stream_seq":(\d+)/g;

function grow(seq) {
  while (seq >= capacity) capacity *= 2;
  const c = new Uint32Array(capacity);
  c.set(counts);
  counts = c;
  const l = new Float64Array(capacity);
  l.set(lastAt);
  lastAt = l;
  const f = new Float64Array(capacity);
  f.set(firstAt);
  firstAt = f;
}

function record(seq, at) {
  if (seq >= capacity) grow(seq);
  counts[seq] += 1;
  if (firstAt[seq] === 0) firstAt[seq] = at;
  if (at > lastAt[seq]) lastAt[seq] = at;
  if (seq > maxSeq) maxSeq = seq;
}

function open(path) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${origin}${path}`, { headers, perMessageDeflate: false });
    const state = {
      acked: 0,
      latest: 0,
      timer: null,
      live: !ack,
      every: ackEvery ?? 1,
      delayMs: ackDelayMs ?? 0,
    };
    sockets.push(ws);
    const sendAck = () => {
      state.timer = null;
      if (state.latest > state.acked && ws.readyState === WebSocket.OPEN) {
        state.acked = state.latest;
        ws.send(`{"kind":"ack","seq":${state.latest}}`);
      }
    };
    ws.on('open', () => {
      if (!ack) resolve(true);
    });
    ws.on('message', (data) => {
      const at = clock();
      const text = data.toString();
      if (text.startsWith('{"kind":"hello"')) {
        const hello = JSON.parse(text);
        if (ackEvery === undefined) state.every = hello.ack_every;
        if (ackDelayMs === undefined) state.delayMs = hello.ack_ms;
        return;
      }
      if (text.startsWith('{"kind":"caught-up"')) {
        if (!state.live) {
          state.live = true;
          resolve(true);
        }
        return;
      }
      if (text.startsWith('{"kind":"anchored"')) {
        if (!anchors) return;
        for (const w of JSON.parse(text).wires) {
          if (!anchoredAt.has(w.stream_seq)) anchoredAt.set(w.stream_seq, at);
        }
        return;
      }
      if (anchors) {
        const frame = JSON.parse(text);
        for (const w of [...(frame.wires ?? []), ...(frame.anchored ?? [])]) {
          if (w.anchor?.status === 'anchored' && !anchoredAt.has(w.stream_seq)) {
            anchoredAt.set(w.stream_seq, at);
          }
        }
      }
      // A wires frame may end with news of earlier Wires ("anchored":[…]):
      // only the Wires themselves are deliveries.
      const cut = text.indexOf(',"anchored":[');
      const wiresText = cut < 0 ? text : text.slice(0, cut);
      let last = 0;
      SEQ.lastIndex = 0;
      for (let m = SEQ.exec(wiresText); m; m = SEQ.exec(wiresText)) {
        last = Number(m[1]);
        record(last, at);
      }
      if (!ack || last === 0) return;
      state.latest = last;
      if (state.latest - state.acked >= state.every) sendAck();
      else state.timer ??= setTimeout(sendAck, state.delayMs);
    });
    ws.on('close', (code, reason) => {
      closes.set(code, (closes.get(code) ?? 0) + 1);
      resolve(false);
      // A follower told to resume (4008, slow consumer) does, as the SDK does: from
      // the seq the reason names, asking again for the anchors it has not seen.
      const resume = /after_seq=(\d+)/.exec(String(reason));
      if (anchors && code === 4008 && resume && !stopping) {
        while (anchoredAt.has(anchoredLow)) anchoredLow++;
        const base = path.replace(/\?.*$/, '');
        open(`${base}?after_seq=${resume[1]}&anchors_from=${Math.max(1, anchoredLow)}`);
      }
    });
    ws.on('error', () => resolve(false));
  });
}

async function connectAll() {
  // A few at a time: 1,000 simultaneous upgrades only measure the accept queue.
  const batch = 50;
  for (let i = 0; i < paths.length; i += batch) {
    const results = await Promise.all(paths.slice(i, i + batch).map(open));
    for (const ok of results) ok ? ready++ : failed++;
  }
  parentPort.postMessage({ type: 'ready', ready, failed });
}

function report(upTo) {
  const n = Math.min(upTo, capacity - 1);
  parentPort.postMessage({
    type: 'report',
    counts: counts.slice(0, n + 1),
    lastAt: lastAt.slice(0, n + 1),
    firstAt: firstAt.slice(0, n + 1),
    maxSeq,
    anchoredAt: Object.fromEntries(anchoredAt),
    closes: Object.fromEntries(closes),
  });
}

parentPort.on('message', (msg) => {
  if (msg.cmd === 'wait') {
    // Resolve once every seq in 1..upTo reached every live subscriber.
    const deadline = clock() + msg.timeoutMs;
    const check = () => {
      let done = true;
      for (let s = 1; s <= msg.upTo; s++) {
        if (s >= capacity || counts[s] < msg.expected) {
          done = false;
          break;
        }
      }
      if (done || clock() > deadline) report(msg.upTo);
      else setTimeout(check, 20);
    };
    check();
  } else if (msg.cmd === 'stop') {
    stopping = true;
    for (const ws of sockets) ws.terminate();
    parentPort.close();
  }
});

connectAll();
