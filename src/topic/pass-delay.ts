/**
 * Longest wait between failed passes. The SDK already shuns a node that
 * failed for up to 4 s (`setNodeMaxBackoff`), and while it does every pass
 * fails at once without touching the network; a 30 s ceiling stacked on top
 * left a topic idle ~16 s after one dropped connection to the stand-in.
 */
const MAX_BACKOFF_MS = 5_000;
/** When the alarm checks again on D1 after a failed or still-gathering projection. */
export const PROJECTION_RETRY_MS = 1000;
/** How often Wires waiting for consensus are looked up. */
const POLL_MS = 200;

/**
 * When a TopicObject's next pass runs, in ms from now (null: not until new
 * work wakes it): backoff after failures, at once when work is left, soon
 * while Wires wait for consensus or D1 for its projection, and no later than
 * log mode's next checkpoint (`dueAt`).
 */
export function passDelay(
  failures: number,
  again: boolean,
  inFlight: boolean,
  projecting: boolean,
  dueAt: number | null,
): number | null {
  let delay: number | null = null;
  if (failures > 0) delay = Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures);
  else if (again) delay = 0;
  else if (inFlight) delay = POLL_MS;
  // The gathering window is a timer, lost if the object is evicted in it:
  // a later pass finds what D1 still lacks.
  else if (projecting) delay = PROJECTION_RETRY_MS;
  // Log mode: when the oldest Wire not in a checkpoint has waited LOG_CHECKPOINT_MS.
  if (dueAt !== null) delay = Math.max(0, Math.min(delay ?? Infinity, dueAt - Date.now()));
  return delay;
}
