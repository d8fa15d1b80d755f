/*
 * A model of a serving engine's prefix cache, as vLLM's
 * `--enable-prefix-caching` works: the prompt is cut into fixed-size blocks,
 * each block's hash covers the previous block's hash (so a hash names the
 * whole prefix up to its block's end), only full blocks are cached, and a
 * request reuses the longest run of leading blocks the cache holds. Blocks
 * enter the cache once their request has been processed, so two requests
 * with a shared prefix sent at the same moment both pay for it. Eviction is
 * least-recently-used over blocks, or none.
 *
 * The prompt is the request body's JSON from its messages on (RequestHasher),
 * hashed as it arrives. Bytes stand in for tokens (4 KB of JSON-escaped text
 * is about a 1,000-token block). Pure: the bench endpoint and the tests share
 * it.
 */
import { createHash } from 'node:crypto';

export const DEFAULT_BLOCK_BYTES = 4096;

/** A prompt as the cache sees it: its full blocks' chained hashes and its length. */
export interface Blocks {
  hashes: string[];
  bytes: number;
}

/** Chained hashes of a prompt's full blocks, fed in pieces of any size. */
export class BlockHasher {
  private readonly hashes: string[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private prev = '';
  private bytes = 0;
  constructor(private readonly blockBytes = DEFAULT_BLOCK_BYTES) {}

  update(chunk: Buffer): this {
    this.bytes += chunk.length;
    let off = 0;
    while (off < chunk.length) {
      const take = Math.min(this.blockBytes - this.pendingBytes, chunk.length - off);
      this.pending.push(chunk.subarray(off, off + take));
      this.pendingBytes += take;
      off += take;
      if (this.pendingBytes === this.blockBytes) {
        const h = createHash('sha1').update(this.prev);
        for (const p of this.pending) h.update(p);
        this.prev = h.digest('base64').slice(0, 16);
        this.hashes.push(this.prev);
        this.pending = [];
        this.pendingBytes = 0;
      }
    }
    return this;
  }

  digest(): Blocks {
    return { hashes: this.hashes, bytes: this.bytes };
  }
}

export function blocksOf(prompt: Buffer | string, blockBytes = DEFAULT_BLOCK_BYTES): Blocks {
  return new BlockHasher(blockBytes).update(Buffer.from(prompt)).digest();
}

/** Where a chat request's messages begin in its body (JSON.stringify, as the openai client sends it, puts no space in). */
const MESSAGES = Buffer.from('"messages":[');

/**
 * The prompt of a chat request as the cache sees it: the raw body from its
 * messages on, fed in pieces as they arrive. JSON keeps the messages in
 * order, each whole, so a conversation's body is a prefix of the body of the
 * conversation that continues it up to its closing bracket, as under a chat
 * template (whose generation prompt is cut off the same way). The fields
 * before the messages (sampling, a prompt_cache_key) are left out, as an
 * engine leaves them out of the prompt. Hashing the bytes as they come spares
 * the server a JSON.parse of every body: on the full data that was seconds of
 * CPU on the client's machine, and each multi-MB parse held back the answers
 * due meanwhile, which counted against the client. A body without messages
 * is hashed whole.
 */
export class RequestHasher {
  /** The body until its messages begin; undefined once they have. */
  private head: Buffer | undefined = Buffer.alloc(0);
  private readonly blocks: BlockHasher;
  constructor(blockBytes = DEFAULT_BLOCK_BYTES) {
    this.blocks = new BlockHasher(blockBytes);
  }

  update(chunk: Buffer): this {
    if (this.head === undefined) {
      this.blocks.update(chunk);
      return this;
    }
    const head = Buffer.concat([this.head, chunk]);
    const at = head.indexOf(MESSAGES);
    if (at < 0) this.head = head;
    else {
      this.head = undefined;
      this.blocks.update(head.subarray(at + MESSAGES.length));
    }
    return this;
  }

  digest(): Blocks {
    if (this.head !== undefined) this.blocks.update(this.head);
    this.head = undefined;
    return this.blocks.digest();
  }
}

/** The prompt of a whole request body. */
export function requestBlocks(body: Buffer | string, blockBytes = DEFAULT_BLOCK_BYTES): Blocks {
  return new RequestHasher(blockBytes).update(Buffer.from(body)).digest();
}

export interface CacheOptions {
  blockBytes: number;
  /** Blocks the cache holds; Infinity: no eviction. */
  capacityBlocks: number;
}

export class PrefixCache {
  /** Held block hashes, least recently used first (a Map keeps insertion order). */
  private readonly held = new Map<string, true>();
  constructor(readonly opts: CacheOptions) {}

  /** Bytes of the prompt served from the cache (its leading held blocks), which become most recently used. */
  lookup(p: Blocks): number {
    let n = 0;
    while (n < p.hashes.length && this.held.has(p.hashes[n]!)) n++;
    for (let i = 0; i < n; i++) this.touch(p.hashes[i]!);
    return n * this.opts.blockBytes;
  }

  /** The prompt has been processed: its full blocks are cached. */
  insert(p: Blocks): void {
    for (const h of p.hashes) this.touch(h);
    while (this.held.size > this.opts.capacityBlocks) this.held.delete(this.held.keys().next().value!);
  }

  private touch(h: string): void {
    this.held.delete(h);
    this.held.set(h, true);
  }
}

/** Sent and prefilled bytes when the prompts are processed one at a time, in the given order, through a fresh cache. */
export function oneAtATime(prompts: Iterable<Blocks>, opts: CacheOptions): { sent: number; prefilled: number } {
  const cache = new PrefixCache(opts);
  let sent = 0;
  let prefilled = 0;
  for (const p of prompts) {
    sent += p.bytes;
    prefilled += p.bytes - cache.lookup(p);
    cache.insert(p);
  }
  return { sent, prefilled };
}

/**
 * The order in which one-at-a-time processing prefills least: prompts sorted
 * by their block hashes, so prompts sharing a prefix are adjacent and each
 * comes right after the prompts it extends (a depth-first walk of the prefix
 * tree). A world-model prompt extends its trajectory's previous turn, so this
 * is trajectory and turn order. Without eviction every one-at-a-time order
 * prefills the same (each distinct block once, plus every partial last
 * block); with an LRU this order is the one that keeps what is reused.
 */
export function prefixTreeOrder(prompts: Blocks[]): Blocks[] {
  return [...prompts].sort((a, b) => {
    const n = Math.min(a.hashes.length, b.hashes.length);
    for (let i = 0; i < n; i++) if (a.hashes[i] !== b.hashes[i]) return a.hashes[i]! < b.hashes[i]! ? -1 : 1;
    return a.hashes.length - b.hashes.length || a.bytes - b.bytes;
  });
}
