/**
 * A one-line progress bar on stderr for long operations (verify, bulk
 * append). It draws only on a terminal, so piped output and `--json` stay clean.
 */
export class ProgressBar {
  readonly #started = Date.now();
  #lastDraw = 0;
  #done = 0;

  constructor(
    private readonly label: string,
    private total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(done: number, total = this.total): void {
    this.#done = done;
    this.total = total;
    const now = Date.now();
    if (!this.enabled || now - this.#lastDraw < 80) return;
    this.#lastDraw = now;
    this.stream.write(`\r${this.render(now)}\x1b[K`);
  }

  finish(): void {
    if (!this.enabled) return;
    this.stream.write(`\r${this.render(Date.now())}\x1b[K\n`);
  }

  /** The bar as text, e.g. `verify [########----------] 40% 400/1000 812/s eta 1s`. */
  render(now: number): string {
    const width = 24;
    const ratio = this.total > 0 ? Math.min(1, this.#done / this.total) : 0;
    const filled = Math.round(ratio * width);
    const seconds = Math.max(0.001, (now - this.#started) / 1000);
    const rate = Math.round(this.#done / seconds);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const of = this.total > 0 ? `/${this.total}` : '';
    const left = this.total - this.#done;
    const eta = this.total > 0 && left > 0 && rate > 0 ? ` eta ${duration(left / rate)}` : '';
    return `${this.label} [${bar}] ${Math.round(ratio * 100)}% ${this.#done}${of} ${rate}/s${eta}`;
  }
}

/** Seconds as `0.4 s`, `12 s`, `3m 05s`, `5h 02m`, `3d 4h`. */
export function duration(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const s = Math.round(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor(s / 3600) % 24}h`;
}
