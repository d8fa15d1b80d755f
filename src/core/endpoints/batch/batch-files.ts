import { open, rm } from 'node:fs/promises';
import type OpenAI from 'openai';
import { fail } from '../../errors.js';
import { writeAtomically } from '../../files.js';
import { readLineBytes } from '../../rows/index.js';
import { batchResultLineSchema, type BatchEntry } from '../../schemas/index.js';
import type { EndpointFault } from '../faults.js';
import { jsonBytes } from '../http/json-bytes.js';

/* The Batch API's files: the request files written, and the results downloaded and indexed by `custom_id`. */

export interface BatchLimits {
  maxLines: number;
  maxBytes: number;
}

/** What one batch file may hold (OpenAI: 50,000 requests and 200 MB). */
export const BATCH_LIMITS: BatchLimits = { maxLines: 50_000, maxBytes: 200_000_000 };

/** Whether a request line of `lineBytes` (newline included) still fits in a file that holds `lines` lines and `bytes` bytes. */
export function fitsInBatch(lines: number, bytes: number, lineBytes: number, limits: BatchLimits = BATCH_LIMITS): boolean {
  return lines === 0 || (lines + 1 <= limits.maxLines && bytes + lineBytes <= limits.maxBytes);
}

export interface BatchRequest {
  customId: string;
  /** The request as named to people (its row). */
  what: string;
  /** The chat completion body, model included. */
  body: object;
}

/**
 * A reply from a batch: the chat completion body, or a line that failed or
 * expired. Why it failed is not kept: the request is asked online again, and
 * that answer is what the row records.
 */
export type BatchReply = { ok: true; body: unknown } | { ok: false };

const NEWLINE = Buffer.from('\n');

export async function writeRequestFiles(requests: AsyncIterable<BatchRequest>, prefix: string, limits: BatchLimits): Promise<BatchEntry[]> {
  const entries: BatchEntry[] = [];
  let out: Awaited<ReturnType<typeof open>> | undefined;
  let bytes = 0;
  try {
    for await (const r of requests) {
      const line = Buffer.concat([
        jsonBytes({ custom_id: r.customId, method: 'POST', url: '/v1/chat/completions', body: r.body }),
        NEWLINE,
      ]);
      if (line.length > limits.maxBytes) {
        throw fail({ kind: 'batch-request-too-large', what: r.what, bytes: line.length, limit: limits.maxBytes });
      }
      const current = entries.at(-1);
      if (!current || !out || !fitsInBatch(current.lines, bytes, line.length, limits)) {
        await out?.close();
        const file = `${prefix}-${entries.length + 1}.jsonl`;
        out = await open(file, 'w');
        entries.push({ file, lines: 0 });
        bytes = 0;
      }
      await out.write(line);
      entries.at(-1)!.lines++;
      bytes += line.length;
    }
  } catch (err) {
    // Nothing was submitted: no request file is left for a state that was never written.
    await out?.close();
    out = undefined;
    await Promise.all(entries.map((e) => rm(e.file, { force: true })));
    throw err;
  } finally {
    await out?.close();
  }
  return entries;
}

export async function downloadResults(
  client: OpenAI,
  fileIds: (string | null | undefined)[],
  path: string,
  signal?: AbortSignal,
): Promise<void> {
  await writeAtomically(path, async (handle) => {
    for (const id of fileIds) {
      if (!id) continue;
      const res = await client.files.content(id, { signal });
      if (!res.body) continue;
      let last = 0x0a;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        await handle.write(chunk);
        if (chunk.length) last = chunk[chunk.length - 1]!;
      }
      if (last !== 0x0a) await handle.write('\n');
    }
  });
}

/**
 * Records where each result line is, by `custom_id`; a later line for the same id (the output file
 * before the error file) is kept only if the first was not a success. A line that cannot be read
 * (cut short, no custom_id) is passed over: its request has no result and is asked online. A file
 * with no readable line at all (a proxy's page) is refused, naming the first line.
 */
export async function indexResults(path: string, index: Map<string, { file: string; start: number; end: number }>): Promise<void> {
  let first: Extract<EndpointFault, { kind: 'batch-results-unreadable' }> | undefined;
  let read = 0;
  for await (const { bytes, lineNo, start } of readLineBytes(path)) {
    const text = bytes.toString('utf8').trim();
    if (!text) continue;
    const r = batchResultLineSchema.safeParse(parseOrUndefined(text));
    if (!r.success) {
      const issue = r.error.issues[0]!;
      first ??= {
        kind: 'batch-results-unreadable',
        path,
        line: lineNo,
        ...(issue.path.length && { field: issue.path.join('.'), problem: issue.message }),
      };
      continue;
    }
    read++;
    const prior = index.get(r.data.custom_id);
    if (!prior || r.data.response?.status_code === 200) index.set(r.data.custom_id, { file: path, start, end: start + bytes.length });
  }
  if (first !== undefined && read === 0) throw fail(first);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function replyOf(line: unknown): BatchReply {
  const r = batchResultLineSchema.parse(line);
  return r.response?.status_code === 200 ? { ok: true, body: r.response.body } : { ok: false };
}
