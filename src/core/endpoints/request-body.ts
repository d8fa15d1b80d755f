import type { FileHandle } from 'node:fs/promises';
import { UserError } from '../errors.js';

/** Bytes of an input file: where a row's texts are while its request waits. */
export interface FileRange {
  file: { handle: FileHandle; path: string };
  start: number;
  end: number;
}

export type BodyPart = Buffer | FileRange;

/** Bytes per piece of a body on its way to the socket. */
const CHUNK = 64 * 1024;

/**
 * A request body as a list of where its bytes are: small buffers of our own
 * and ranges of the input file holding the row's texts. Nothing of the
 * history is held while the request waits for its reply, often for seconds:
 * the bytes are read from the file and go out in pieces each time the
 * request is sent (again, on a retry), so memory no longer grows with the
 * size of the rows in flight.
 */
export class BodyPlan {
  readonly length: number;

  constructor(readonly parts: BodyPart[]) {
    this.length = parts.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.end - p.start), 0);
  }

  async *chunks(): AsyncGenerator<Buffer> {
    let left = this.length;
    let chunk = Buffer.allocUnsafe(Math.min(CHUNK, left));
    let at = 0;
    for (const part of this.parts) {
      let from = Buffer.isBuffer(part) ? 0 : part.start;
      const to = Buffer.isBuffer(part) ? part.length : part.end;
      while (from < to) {
        const n = Math.min(to - from, chunk.length - at);
        if (Buffer.isBuffer(part)) part.copy(chunk, at, from, from + n);
        else {
          const { bytesRead } = await part.file.handle.read(chunk, at, n, from);
          if (bytesRead < n)
            throw new UserError(`${part.file.path}: the file got shorter while awb was reading it; leave inputs alone during a run`);
        }
        from += n;
        at += n;
        if (at === chunk.length) {
          left -= at;
          yield chunk;
          chunk = Buffer.allocUnsafe(Math.min(CHUNK, left));
          at = 0;
        }
      }
    }
  }
}
