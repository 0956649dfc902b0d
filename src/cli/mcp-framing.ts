/**
 * Reads JSON-RPC messages from a byte stream framed either way the seed's
 * stdio contract allows, even mixed: one JSON text per line, or LSP-style
 * `Content-Length: N` headers, a blank line, then N bytes of JSON.
 */
export class FrameReader {
  #buffer = Buffer.alloc(0);

  /** Adds bytes; returns every complete message body they finish (as text). */
  push(chunk: Buffer): string[] {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const out: string[] = [];
    for (;;) {
      const next = this.#next();
      if (next === null) return out;
      if (next !== '') out.push(next);
    }
  }

  /** What is left when the input ends (a last line without its newline). */
  end(): string[] {
    const rest = this.#buffer.toString('utf8').trim();
    this.#buffer = Buffer.alloc(0);
    return rest === '' ? [] : [rest];
  }

  #next(): string | null {
    const start = this.#buffer.findIndex(
      (b) => b !== 0x0a && b !== 0x0d && b !== 0x20 && b !== 0x09,
    );
    if (start < 0) {
      this.#buffer = Buffer.alloc(0);
      return null;
    }
    const head = this.#buffer
      .subarray(start, start + 15)
      .toString('latin1')
      .toLowerCase();
    if ('content-length:'.startsWith(head) && head.length < 15) return null; // undecided yet
    if (head === 'content-length:') return this.#framed(start);
    const newline = this.#buffer.indexOf(0x0a, start);
    if (newline < 0) return null;
    const line = this.#buffer.subarray(start, newline).toString('utf8').trim();
    this.#buffer = this.#buffer.subarray(newline + 1);
    return line;
  }

  #framed(start: number): string | null {
    const text = this.#buffer.subarray(start).toString('latin1');
    const blank = /\r?\n\r?\n/.exec(text);
    if (!blank) return null;
    const headers = text.slice(0, blank.index);
    const length = Number(/content-length:\s*(\d+)/i.exec(headers)?.[1]);
    if (!Number.isSafeInteger(length)) throw new Error(`bad Content-Length header: ${headers}`);
    const bodyStart = start + blank.index + blank[0].length;
    if (this.#buffer.length < bodyStart + length) return null;
    const body = this.#buffer.subarray(bodyStart, bodyStart + length).toString('utf8');
    this.#buffer = this.#buffer.subarray(bodyStart + length);
    return body;
  }
}
