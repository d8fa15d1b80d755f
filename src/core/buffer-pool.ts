/**
 * Reusable blocks for the large, short-lived byte buffers of a run: request
 * bodies and re-read input lines, megabytes each, a few thousand per run.
 * Freshly allocated, they would be freed only when V8 gets round to a
 * collection (it tolerates tens of MB of dead buffers before it does), and
 * the allocator keeps the high-water mark as resident memory for good. Taken
 * from here, memory follows what is in flight. Blocks come in power-of-two
 * sizes; small buffers are not worth pooling and come from Node's own pool.
 */
export class BufferPool {
  private readonly idle = new Map<number, ArrayBuffer[]>();
  /** Blocks this pool made, and which of them are idle: giving back twice, or giving back a stranger, is ignored. */
  private readonly own = new WeakSet<ArrayBuffer>();
  private readonly idleSet = new WeakSet<ArrayBuffer>();
  private idleBytes = 0;

  constructor(
    private readonly maxIdleBytes: number,
    private readonly minBlock = 16 * 1024,
  ) {}

  /** A buffer of exactly `size` bytes, contents undefined. */
  take(size: number): Buffer {
    if (size < this.minBlock) return Buffer.allocUnsafe(size);
    const block = 2 ** Math.ceil(Math.log2(size));
    const reused = this.idle.get(block)?.pop();
    if (reused) {
      this.idleSet.delete(reused);
      this.idleBytes -= block;
      return Buffer.from(reused, 0, size);
    }
    const fresh = Buffer.allocUnsafeSlow(block).buffer as ArrayBuffer;
    this.own.add(fresh);
    return Buffer.from(fresh, 0, size);
  }

  /** Hands a buffer from take() back; it must not be used afterwards. */
  give(buf: Buffer): void {
    const block = buf.buffer as ArrayBuffer;
    if (!this.own.has(block) || this.idleSet.has(block)) return;
    // A block too big to be one of many is rare enough to let go: keeping it would only pin memory.
    if (block.byteLength > this.maxIdleBytes / 4 || this.idleBytes + block.byteLength > this.maxIdleBytes) return;
    let list = this.idle.get(block.byteLength);
    if (!list) this.idle.set(block.byteLength, (list = []));
    list.push(block);
    this.idleSet.add(block);
    this.idleBytes += block.byteLength;
  }
}

/** The process's pool: request bodies and re-read lines share it, so a block freed by one serves the other. */
export const bytePool = new BufferPool(8 * 1024 * 1024);
