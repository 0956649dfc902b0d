import { type Anchor, chunksOf } from '../anchor';

/**
 * Transaction-id valid starts reserved from the directory at a time, and for
 * how long they are used. A call per anchoring pass waited on the directory's
 * storage write each time: a 16-client burst (`node tools/measure-anchoring.mjs
 * --wires 1200`, interleaved with the tree before ids came from the directory)
 * anchored 184-202 Wires/s against 208-217/s; with blocks, 213-227/s against
 * 198/s. Used within 5 s, an id is at most ~8 s old when first sent, well
 * inside the 120 s it is valid.
 */
const ID_BLOCK = 1000;
const ID_BLOCK_MS = 5_000;

/**
 * A TopicObject's block of valid starts, reserved from the TopicDirectory's
 * one sequence, so no other TopicObject, in this isolate or any other, signs
 * under the same id. Kept in memory: lost on restart, none is handed out twice.
 */
export class IdBlock {
  #block: { next: bigint; end: bigint; until: number } | null = null;

  /** `reserve(n)` asks the directory for `n` valid starts and returns the first. */
  constructor(private readonly reserve: (size: number) => Promise<string>) {}

  /** The first valid start of each message of these sizes, its chunks 1 ns apart. */
  async starts(messageBytes: number[]): Promise<bigint[]> {
    const chunks = messageBytes.map(chunksOf);
    const need = BigInt(chunks.reduce((a, b) => a + b, 0));
    let block = this.#block;
    if (block === null || block.end - block.next < need || Date.now() > block.until) {
      const size = need > BigInt(ID_BLOCK) ? need : BigInt(ID_BLOCK);
      const start = BigInt(await this.reserve(Number(size)));
      block = { next: start, end: start + size, until: Date.now() + ID_BLOCK_MS };
      this.#block = block;
    }
    // Taken in one synchronous stretch: a concurrent call gets its own ids.
    const reserved = block;
    return chunks.map((n) => {
      const at = reserved.next;
      reserved.next += BigInt(n);
      return at;
    });
  }

  /** Transaction ids for messages of these sizes, each from its own valid start. */
  async transactionIds(anchor: Anchor, messageBytes: number[]): Promise<string[][]> {
    const starts = await this.starts(messageBytes);
    return Promise.all(
      messageBytes.map((bytes, i) => anchor.transactionIdsAt(starts[i] ?? 0n, bytes)),
    );
  }
}
