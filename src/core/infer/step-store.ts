import { open, stat, truncate, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { isStream } from '../files.js';
import { fileError } from '../errors.js';
import { readLineBytes } from '../rows/index.js';
import { predictionFieldsSchema, type PredictionFields } from '../schemas/index.js';

/*
 * The finished steps of free-running rollouts (infer --horizon), kept in
 * `<output>.steps.jsonl` beside the predictions: one line per step, appended
 * the moment its answer is in. A run killed in the middle of a row's chain
 * (kill -9 included) resumes from its last finished step, and a step that
 * rows of one trajectory share (--horizon all) is sent once: a row asks the
 * store first, waits for a step another row has in flight, and sends only
 * what neither holds. Memory holds the index (a key and an offset per step),
 * never the steps' texts: they are read back when a later step needs them.
 */

const FORMAT = 'agentworldbench-rollout-steps';

const headerSchema = z.object({ format: z.literal(FORMAT), version: z.literal(1), settings: z.string() });

/** A finished step: the fields infer would append for it as a row's prediction, and the row that sent it. */
const stepLineSchema = z.object({
  key: z.string(),
  turn: z.int().positive(),
  /** The row key of the row whose run sent it. */
  by: z.string(),
  fields: predictionFieldsSchema,
});

export interface FinishedStep {
  turn: number;
  by: string;
  fields: PredictionFields;
}

/** What sending a step gave: its fields, or a failure that outlasted the retries (undefined: cancelled). */
export type StepAnswer = { ok: true; fields: PredictionFields } | { ok: false; error: string } | undefined;

export class StepStore {
  private readonly index = new Map<string, { start: number; length: number }>();
  private readonly inFlight = new Map<string, Promise<StepAnswer>>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: { path: string; handle: FileHandle; size: number } | undefined,
    /** Steps held in memory when the output is a stream (nothing beside it to resume from). */
    private readonly memory: Map<string, FinishedStep> | undefined,
  ) {}

  /**
   * The store beside `output`. Steps already there are kept when `resuming`
   * and they were made under the same `settings` (a digest of what decides a
   * step's answer); otherwise the file starts afresh. A line cut by a crash
   * is dropped.
   */
  static async open(output: string, settings: string, resuming: boolean): Promise<StepStore> {
    if (await isStream(output)) return new StepStore(undefined, new Map());
    const path = stepsPathFor(output);
    const store = new StepStore({ path, handle: undefined as unknown as FileHandle, size: 0 }, undefined);
    const kept = resuming ? await store.scan(settings) : undefined;
    try {
      if (kept === undefined) {
        const fresh = await open(path, 'w');
        await fresh.close();
      } else await truncate(path, kept);
      store.file!.handle = await open(path, 'a+');
      store.file!.size = (await stat(path)).size;
    } catch (err) {
      throw fileError(path, err);
    }
    if (kept === undefined) await store.append(`${JSON.stringify({ format: FORMAT, version: 1, settings })}\n`);
    return store;
  }

  /** Indexes the steps of an earlier run; the bytes to keep, or undefined to start afresh (none, or other settings). */
  private async scan(settings: string): Promise<number | undefined> {
    let kept = 0;
    const exists = await stat(this.file!.path).then(
      (st) => st.isFile(),
      () => false,
    );
    if (!exists) return undefined;
    for await (const line of readLineBytes(this.file!.path)) {
      if (!line.terminated) break;
      const text = line.bytes.toString('utf8');
      if (line.lineNo === 1) {
        const header = headerSchema.safeParse(parseOr(text));
        if (!header.success || header.data.settings !== settings) return undefined;
      } else {
        const step = stepLineSchema.safeParse(parseOr(text));
        if (!step.success) break;
        this.index.set(step.data.key, { start: line.start, length: line.bytes.length });
      }
      kept = line.end;
    }
    return kept || undefined;
  }

  /** Steps finished so far (this run's and the earlier runs' it kept). */
  get size(): number {
    return this.memory?.size ?? this.index.size;
  }

  /** A finished step, read back from the file. */
  async get(key: string): Promise<FinishedStep | undefined> {
    if (this.memory) return this.memory.get(key);
    const at = this.index.get(key);
    if (!at) return undefined;
    const bytes = Buffer.allocUnsafe(at.length);
    try {
      await this.file!.handle.read(bytes, 0, at.length, at.start);
    } catch (err) {
      throw fileError(this.file!.path, err);
    }
    const { turn, by, fields } = stepLineSchema.parse(JSON.parse(bytes.toString('utf8')));
    return { turn, by, fields };
  }

  /**
   * The step `key`: finished already, or in flight for another row (then its
   * answer, or, if that failed, this row's own try), else sent by `send` and
   * kept once answered. `redo`: a finished step it holds is sent again
   * (a row's own empty prediction, asked again).
   */
  async step(
    key: string,
    turn: number,
    by: string,
    send: () => Promise<StepAnswer>,
    redo: (step: FinishedStep) => boolean = () => false,
  ): Promise<{ ok: true; step: FinishedStep } | { ok: false; error: string } | undefined> {
    const pending = this.inFlight.get(key);
    if (pending) await pending;
    const done = await this.get(key);
    if (done && !redo(done)) return { ok: true, step: done };
    const sending = send().then(async (answer) => {
      if (answer?.ok) await this.keep({ key, turn, by, fields: answer.fields });
      return answer;
    });
    this.inFlight.set(key, sending);
    try {
      const answer = await sending;
      if (!answer) return undefined;
      return answer.ok ? { ok: true, step: { turn, by, fields: answer.fields } } : answer;
    } finally {
      if (this.inFlight.get(key) === sending) this.inFlight.delete(key);
    }
  }

  /** Keeps a step answered outside a row's job (a batch round), unless it is kept already (a round collected again). */
  async add(key: string, turn: number, by: string, fields: PredictionFields): Promise<void> {
    if (this.memory ? this.memory.has(key) : this.index.has(key)) return;
    await this.keep({ key, turn, by, fields });
  }

  private async keep(line: { key: string; turn: number; by: string; fields: PredictionFields }): Promise<void> {
    if (this.memory) {
      this.memory.set(line.key, { turn: line.turn, by: line.by, fields: line.fields });
      return;
    }
    const text = JSON.stringify(line);
    const start = await this.append(`${text}\n`);
    this.index.set(line.key, { start, length: Buffer.byteLength(text) });
  }

  /** Appends whole lines one after another; resolves to where the line starts. */
  private append(text: string): Promise<number> {
    const file = this.file!;
    const next = this.queue.then(async () => {
      const bytes = Buffer.from(text, 'utf8');
      const start = file.size;
      try {
        let done = 0;
        while (done < bytes.length) done += (await file.handle.write(bytes, done, bytes.length - done)).bytesWritten;
      } catch (err) {
        throw fileError(file.path, err);
      }
      file.size += bytes.length;
      return start;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.queue;
    await this.file?.handle?.close();
  }
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The steps file beside an output. */
export function stepsPathFor(output: string): string {
  return `${output}.steps.jsonl`;
}
