import { fail } from '../errors.js';

/**
 * How many judge questions in a row may end unparseable, with none parsed
 * yet, before the run stops. A judge model that follows the format fails
 * to parse rarely (well under 5% of replies after the re-asks), so 8 such
 * questions in a row by chance is about 0.05^8 ≈ 4e-11; each question is
 * already asked up to --parse-attempts times, so the stop comes after some
 * 8 × 3 = 24 unusable replies, not after the whole data set has been paid for.
 */
export const NEVER_PARSED_AFTER = 8;

/**
 * Watches how a run's judge questions end (parsed, or unparseable after the
 * re-asks) and stops the run when the judge has never given a reply that
 * parses: the model is not a judge, or --max-tokens cuts its replies. Once
 * one reply has parsed it never stops the run: such a judge fails row by row.
 */
export class ParseStreak {
  private everParsed = false;
  private unparsed = 0;
  private cut = 0;

  /** `judge`: the panel member it watches (--judge-model a,b,c), named in the fault. */
  constructor(
    private readonly judge?: string,
    private readonly limit = NEVER_PARSED_AFTER,
  ) {}

  parsed(): void {
    this.everParsed = true;
  }

  /** A question ended unparseable; `cut`: its last reply stopped at the token limit (finish_reason=length). Throws to stop the run. */
  failed(cut: boolean, problem: string): void {
    if (this.everParsed) return;
    this.unparsed++;
    if (cut) this.cut++;
    if (this.unparsed < this.limit) return;
    const fault = { kind: 'judge-never-parses', questions: this.unparsed, cut: this.cut, last: problem } as const;
    throw fail(this.judge === undefined ? fault : { ...fault, judge: this.judge });
  }
}
