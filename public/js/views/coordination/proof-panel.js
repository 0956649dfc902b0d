// A Wire's HCS proof, in a dialog over the Wire table: where it sits (topic,
// sequence number, consensus time, running hash) and the anchored message
// decoded, checked in the browser by the SDK's `checkProof` against the mirror
// node (the running hash must follow from the previous message's and this
// one; the mirror's message must be the coordinator's copy) and against the
// row it was opened from (the message must be that Wire). A log-mode proof
// (issue 31) is checked by the SDK's `checkLogProof`: the Wire is the leaf,
// under the root of a checkpoint signed by the log's key, which is the
// mirror's message at its sequence number, whose running hash follows.

import { client } from '../../lib/api.js';
import { clock, fullTime } from '../../lib/time.js';
import { html, useEffect, useRef, useState } from '../../lib/ui.js';

/**
 * @typedef {{ state: 'loading' } | { state: 'failed', reason: string }
 *   | { state: 'checking', proof: any }
 *   | { state: 'done', proof: any, ok: boolean, reason?: string, text: string }} Check
 */

/** @param {{ wireId: string, streamId: string, onClose: () => void }} props */
export function ProofPanel({ wireId, streamId, onClose }) {
  const dialog = useRef(/** @type {HTMLDialogElement | null} */ (null));
  const [check, setCheck] = useState(/** @type {Check} */ ({ state: 'loading' }));
  useEffect(() => {
    dialog.current?.showModal();
    let stopped = false;
    const set = (next) => stopped || setCheck(next);
    void proofOf(wireId, streamId, (proof) => set({ state: 'checking', proof })).then(set);
    return () => {
      stopped = true;
    };
  }, [wireId, streamId]);
  const proof = 'proof' in check ? check.proof : null;
  return html`
    <dialog id="proof" ref=${dialog} aria-labelledby="proof-title" onClose=${onClose}>
      <div class="proof-head">
        <h3 id="proof-title">HCS proof of <code>${wireId}</code></h3>
        <button type="button" class="close" onClick=${() => dialog.current?.close()}>close</button>
      </div>
      <${Verdict} check=${check} />
      ${proof && html`<${Facts} proof=${proof} text=${'text' in check ? check.text : (proof.message ?? proof.leaf)} />`}
    </dialog>
  `;
}

function Verdict({ check }) {
  const [state, text] =
    check.state === 'loading'
      ? ['checking', 'asking the coordinator for the proof…']
      : check.state === 'checking'
        ? ['checking', 'checking it against the mirror node…']
        : check.state === 'failed'
          ? ['failed', `not verified: ${check.reason}`]
          : check.ok
            ? ['verified', 'verified']
            : ['failed', `not verified: ${check.reason}`];
  const why =
    check.proof?.mode === 'log'
      ? `the Wire is leaf ${check.proof.leaf_index} under a checkpoint signed by the log’s key, which is the mirror’s message #${check.proof.checkpoint_anchor.hcs_sequence_number}, and its running hash follows`
      : 'the mirror’s running hash follows from the previous message’s and this one, and the anchored message is this Wire';
  return html`
    <p id="proof-verdict" class="verdict" data-state=${state} role="status">
      ${text}
      ${state === 'verified' && html`<span class="muted">${' — '}${why}</span>`}
    </p>
  `;
}

function Facts({ proof: served, text }) {
  // Log mode: the Wire sits on HCS through its checkpoint.
  const log = served.mode === 'log';
  const proof = log ? { ...served, ...served.checkpoint_anchor } : served;
  const at = consensusIso(proof.consensus_timestamp);
  return html`
    <dl class="facts proof-facts">
      <dt>topic</dt>
      <dd id="proof-topic">${proof.hcs_topic_id} <span class="muted">(${proof.topic}, ${proof.network})</span></dd>
      <dt>sequence number</dt>
      <dd id="proof-seq">${proof.hcs_sequence_number}</dd>
      <dt>consensus</dt>
      <dd id="proof-consensus">
        <code>${proof.consensus_timestamp}</code>
        ${at && html`${' · '}<time datetime=${at} title=${fullTime(at)}>${clock(at)}</time>`}
      </dd>
      <dt>running hash</dt>
      <dd id="proof-hash"><code>${proof.running_hash}</code></dd>
      ${
        log &&
        html`<dt>log</dt>
          <dd id="proof-leaf">leaf ${proof.leaf_index} of ${proof.tree_size}, checkpoint of <code>${proof.log_origin}</code></dd>`
      }
      <dt>links</dt>
      <dd>
        <a href=${proof.mirror_url} target="_blank" rel="noopener">mirror JSON</a>
        ${proof.hashscan_url && html` · <a href=${proof.hashscan_url} target="_blank" rel="noopener">HashScan</a>`}
      </dd>
    </dl>
    <h4>message</h4>
    <pre id="proof-message">${pretty(text)}</pre>
  `;
}

/**
 * The proof (told to `onProof` as soon as it is read), then the verdict.
 * Never throws: a failure is a reason.
 * @returns {Promise<Check>}
 */
async function proofOf(wireId, streamId, onProof) {
  let proof;
  try {
    proof = await client.proof(wireId, { streamId });
  } catch (error) {
    return { state: 'failed', reason: `no proof (${error?.message ?? error})` };
  }
  onProof(proof);
  try {
    if (proof.mode === 'log') return await logCheck(proof, wireId, streamId);
    const checked = await client.checkProof(proof);
    // A Wire of several chunks: the SDK checks the first chunk's running hash;
    // the text shown (and matched to the row) is the coordinator's whole copy.
    const text = proof.hcs_chunks === 1 ? decode(checked.message.message) : proof.message;
    const reason = checked.ok ? notThisWire(text, wireId, streamId) : checked.reason;
    return { state: 'done', proof, ok: reason === undefined, reason, text };
  } catch (error) {
    const reason = `the mirror node did not answer (${error?.message ?? error})`;
    return { state: 'done', proof, ok: false, reason, text: proof.message ?? proof.leaf };
  }
}

/** A log-mode proof checked by the SDK, then its leaf against the row. @returns {Promise<Check>} */
async function logCheck(proof, wireId, streamId) {
  const checked = await client.checkLogProof(proof);
  const reason = checked.ok
    ? notThisWire(proof.leaf, wireId, streamId)
    : `${checked.problem?.check}: ${checked.problem?.reason}`;
  return { state: 'done', proof, ok: reason === undefined, reason, text: proof.leaf };
}

/** Why the anchored message is not the Wire of the row, or undefined if it is. */
function notThisWire(text, wireId, streamId) {
  let wire;
  try {
    wire = JSON.parse(text);
  } catch {
    return 'the anchored message is not a Wire (not JSON)';
  }
  if (wire?.wire_id !== wireId || wire?.stream_id !== streamId)
    return `the anchored message is Wire ${wire?.wire_id} of ${wire?.stream_id}, not this one`;
  return undefined;
}

/** The mirror's base64 message as text (UTF-8). @param {string} base64 */
function decode(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** "1764251234.123456789" as an ISO time (ms precision), or null. */
function consensusIso(timestamp) {
  const seconds = Number(String(timestamp ?? '').split('.')[0]);
  const nanos = String(timestamp ?? '').split('.')[1] ?? '0';
  if (!Number.isFinite(seconds) || seconds <= 0) return null;
  return new Date(seconds * 1000 + Number(nanos.padEnd(9, '0').slice(0, 3))).toISOString();
}
