// The live Wire table. Wires can arrive far faster than the screen refreshes
// (1,000/s and more), so they are queued and drawn once per animation frame,
// newest on top, and only the newest MAX_ROWS stay in the DOM. A pending
// Wire's anchor cell says for how long (`pending 42 s`), redrawn by tick().
import { clock, fullTime, span } from '../../lib/time.js';

const MAX_ROWS = 500;
const MAX_PAYLOAD = 120;

export class WireTable {
  /** @param {HTMLTableSectionElement} body @param {HTMLElement} empty */
  constructor(body, empty, onDraw = () => {}) {
    this.onDraw = onDraw;
    this.body = body;
    this.empty = empty;
    this.pending = [];
    this.rows = new Map(); // wire_id -> <tr>
    this.anchors = new Map(); // wire_id -> anchor that arrived before its row was drawn
    this.waiting = new Map(); // wire_id -> { cell, since }: drawn rows not anchored yet
    this.frame = 0;
    this.anchoredCount = 0;
  }

  reset() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.pending = [];
    this.rows.clear();
    this.anchors.clear();
    this.waiting.clear();
    this.anchoredCount = 0;
    this.body.replaceChildren();
    this.empty.hidden = false;
  }

  add(wires) {
    for (const wire of wires) this.pending.push(wire);
    // Only the newest rows would survive this frame anyway.
    if (this.pending.length > MAX_ROWS) this.pending.splice(0, this.pending.length - MAX_ROWS);
    this.#schedule();
  }

  /** @param {{wire_id: string, anchor: object}[]} updates */
  anchor(updates) {
    for (const update of updates) {
      const row = this.rows.get(update.wire_id);
      if (row) this.#paintAnchor(row, update.wire_id, update.anchor);
      else this.anchors.set(update.wire_id, update.anchor);
    }
    if (this.anchors.size > MAX_ROWS * 4) this.anchors.clear();
  }

  #schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.#draw();
      this.onDraw();
    });
  }

  #draw() {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const fragment = document.createDocumentFragment();
    for (let i = batch.length - 1; i >= 0; i--) fragment.append(this.#row(batch[i]));
    this.body.prepend(fragment);
    this.empty.hidden = true;
    while (this.body.rows.length > MAX_ROWS) {
      const last = this.body.lastElementChild;
      if (!last) break;
      this.rows.delete(last.dataset.wireId);
      this.waiting.delete(last.dataset.wireId ?? '');
      last.remove();
    }
  }

  #row(wire) {
    const tr = document.createElement('tr');
    tr.setAttribute('role', 'row');
    tr.dataset.seq = String(wire.stream_seq);
    tr.dataset.wireId = wire.wire_id;
    tr.dataset.streamId = wire.stream_id;
    const cells = [
      ['seq', `#${wire.stream_seq}`],
      ['time', ''],
      ['type', wire.type],
      ['sender', wire.sender],
      ['anchor', ''],
    ];
    for (const [name, text] of cells) {
      const td = document.createElement('td');
      td.className = name;
      td.setAttribute('role', 'cell');
      td.textContent = text;
      tr.append(td);
    }
    tr.querySelector('td.time')?.append(timeOf(wire.received_at ?? wire.ts));
    tr.append(payloadCell(wire.payload));
    if (wire.type === 'review.concern') tr.dataset.severity = wire.payload?.severity ?? 'info';
    this.rows.set(wire.wire_id, tr);
    const early = this.anchors.get(wire.wire_id);
    this.anchors.delete(wire.wire_id);
    this.#paintAnchor(tr, wire.wire_id, early ?? wire.anchor ?? { status: 'pending' });
    return tr;
  }

  /** Redraws how long each pending Wire has waited; `now` is the page's clock. */
  tick(now = Date.now()) {
    for (const wait of this.waiting.values()) paintWait(wait, now);
  }

  /** The longest-waiting drawn Wire not anchored yet: its receipt time and how many wait. */
  waitingSince() {
    let oldest = Number.POSITIVE_INFINITY;
    for (const { since } of this.waiting.values()) oldest = Math.min(oldest, since);
    return { count: this.waiting.size, since: this.waiting.size ? oldest : null };
  }

  #paintAnchor(tr, wireId, anchor) {
    const td = tr.querySelector('td.anchor');
    if (!td || td.dataset.status === 'anchored') return;
    td.dataset.status = anchor.status;
    if (anchor.status !== 'anchored') {
      const received = Date.parse(tr.querySelector('time')?.dateTime ?? '');
      const wait = { cell: td, since: Number.isFinite(received) ? received : Date.now() };
      this.waiting.set(wireId, wait);
      paintWait(wait, Date.now());
      return;
    }
    this.waiting.delete(wireId);
    this.anchoredCount++;
    const link = document.createElement('a');
    // A wire_id is unique within its stream only: name the stream too.
    const stream = tr.dataset.streamId ?? '';
    link.href = `/v1/wires/${encodeURIComponent(wireId)}/proof?stream_id=${encodeURIComponent(stream)}`;
    link.dataset.proof = wireId;
    link.dataset.stream = stream;
    link.textContent = `HCS ${anchor.hcs_topic_id ?? ''} #${anchor.hcs_sequence_number}`;
    link.title = `consensus ${anchor.consensus_timestamp ?? ''}`;
    td.replaceChildren(link);
  }
}

/** "pending 42 s": the status and how long since the Wire was received (never below 0). */
function paintWait({ cell, since }, now) {
  const age = Math.max(0, now - since);
  cell.dataset.age = String(Math.floor(age / 1000));
  cell.textContent = `${cell.dataset.status || 'pending'} ${span(age)}`;
}

/** The local clock, with the date and zone on hover. @param {string} iso */
function timeOf(iso) {
  const time = document.createElement('time');
  time.dateTime = iso ?? '';
  time.title = iso ? fullTime(iso) : '';
  time.textContent = clock(iso);
  return time;
}

/** The payload, cut to a line; its button shows it whole (toggled by the feed's click handler). */
function payloadCell(payload) {
  const td = document.createElement('td');
  td.className = 'payload';
  td.setAttribute('role', 'cell');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'expand';
  button.setAttribute('aria-expanded', 'false');
  button.textContent = summary(payload);
  button.dataset.full = JSON.stringify(payload ?? {}, null, 2);
  td.append(button);
  return td;
}

/** Shows a payload whole, or cut to a line again. @param {HTMLButtonElement} button */
export function togglePayload(button) {
  const open = button.getAttribute('aria-expanded') !== 'true';
  const full = button.dataset.full ?? '';
  button.setAttribute('aria-expanded', String(open));
  button.textContent = open ? full : summary(JSON.parse(full || '{}'));
}

function summary(payload) {
  const text = JSON.stringify(payload ?? {});
  return text.length > MAX_PAYLOAD ? `${text.slice(0, MAX_PAYLOAD - 1)}…` : text;
}
