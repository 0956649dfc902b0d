// Small statistics helpers: nearest-rank percentiles over latency samples.

/** Nearest-rank percentile (p in 0..100) of an unsorted array; NaN when empty. */
export function percentile(samples, p) {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function median(values) {
  return percentile(values, 50);
}

/** `{p50, p99, max, n}` of latency samples in milliseconds. */
export function summarize(samples) {
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.length ? Math.max(...samples) : Number.NaN,
    n: samples.length,
  };
}

/** A clock shared by the main thread and worker threads (ms since the epoch). */
export function now() {
  return performance.timeOrigin + performance.now();
}

export function fmt(value, digits = 1) {
  if (value === undefined || value === null || Number.isNaN(value)) return 'n/a';
  if (typeof value === 'string') return value;
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

export function ratio(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return a / b;
}

export function pct(value) {
  return Number.isFinite(value) ? `${Math.round(value * 100)}%` : 'n/a';
}
