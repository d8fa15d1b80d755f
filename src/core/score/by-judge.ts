import type { z } from 'zod';
import { fail } from '../errors.js';
import { decodeLine, parseSlice, topLevelValues, type LineBytes } from '../rows/index.js';
import { DIMENSIONS, choiceHits, choicePanelEntrySchema, panelEntrySchema } from '../schemas/index.js';
import { aggregate, scoreIntervals } from './aggregate.js';
import type { Provenance } from './ranking/index.js';
import type { PublishedGap } from './faults.js';
import { toSixtieths } from './exact.js';
import { countsAsFailed, describeIssue, repeatGrade, tokens, type JudgedRecord, type JudgedVisitor } from './readers/index.js';
import type { RunReport, ScoreRequest } from './score-files.js';
import { usageOf } from './usage.js';
import { choiceRecord, validTotals, type ChoiceRecord, type ModeVisitor, type RepeatRecord } from './readers/index.js';
import { scoreRepeatRows } from './modes.js';

/** One member of a panel (`judge --judge-model a,b,c`) and its own judgements of a file's rows (grades, or a choice mode's). */
export interface MemberRecords<R = JudgedRecord> {
  judge: string;
  records: R[];
  /** --repeat K: the member's row records of one judge's --repeat file, for its judge noise; undefined when it has no judge_repeats. */
  repeats?: RepeatRecord[];
}

const PANEL = new Set(['panel']);
const ENTRIES = panelEntrySchema.array();
const CHOICE_ENTRIES = choicePanelEntrySchema.array();

/** Each member's records, in the order the members first appear. */
class ByMember<R> {
  private readonly records = new Map<string, R[]>();

  add(judge: string, record: R): void {
    let records = this.records.get(judge);
    if (!records) this.records.set(judge, (records = []));
    records.push(record);
  }

  members(): MemberRecords<R>[] {
    return [...this.records].map(([judge, records]) => ({ judge, records }));
  }
}

/**
 * `score --by-judge`: from each row's `panel`, every member's own judgement
 * as a record of the row of its own (same key, its grades, its usage), so a
 * member is scored exactly as a single judge's file would be. Members come
 * in the order they first appear; rows without a panel give none.
 */
export function memberCollector(path: string): { visit: JudgedVisitor; members: () => MemberRecords[] } {
  const byJudge = new ByMember<JudgedRecord>();
  const repeats = new ByMember<RepeatRecord>();
  const repeated = new Set<string>();
  return {
    visit: (record, line) => {
      for (const [i, entry] of panelOf(path, line, ENTRIES).entries()) {
        // A member's grades under --repeat are means of its K judgements: to the nearest sixtieth, as a --repeat row's.
        const grade = entry.judge_repeats ? repeatGrade : (g: number) => g;
        const grades = [entry.total_score, ...DIMENSIONS.map((d) => entry.scores[d])].map((g, k) => {
          const v = toSixtieths(grade(g));
          if (v !== undefined) return v;
          const field = `panel.${i}.${k === 0 ? 'total_score' : `scores.${DIMENSIONS[k - 1]}`}`;
          throw fail({ kind: 'judged-grade-invalid', file: path, line: line.lineNo, field, value: g });
        });
        const [total, ...dims] = grades as [number, ...number[]];
        byJudge.add(entry.judge, {
          ...record,
          dims,
          total,
          failed: countsAsFailed(entry.failed, grades),
          // The world model's tokens are the panel run's; a member's are its own judge tokens only (its batch's part priced as batch).
          usage: undefined,
          batchUsage: undefined,
          judgeUsage: tokens(entry.judge_usage),
          judgeBatchUsage: tokens(entry.judge_batch_usage),
        });
        // An entry without judge_repeats (a row written unasked) counts as one judge's --repeat row whose K judgements all failed.
        const { domain, cluster, turn } = record;
        repeats.add(entry.judge, { domain, cluster, turn, lineNo: line.lineNo, totals: validTotals(entry.judge_repeats ?? []) });
        if (entry.judge_repeats) repeated.add(entry.judge);
      }
    },
    members: () => {
      const own = new Map(repeats.members().map((m) => [m.judge, m.records]));
      return byJudge.members().map((m) => (repeated.has(m.judge) ? { ...m, repeats: own.get(m.judge)! } : m));
    },
  };
}

/**
 * How many times the panel's members judged each row (judge --judge-model a,b,c --repeat K), told by
 * the file's first row with a generation (a row written unasked holds no judgements): without
 * --by-judge, score only says that --by-judge shows each member's judge noise. Undefined when the
 * members judged once, or the row has no panel; a panel this cannot read tells nothing, as only
 * --by-judge reads the panels.
 */
export function memberRepeatsProbe(): { visit: JudgedVisitor; repeats: () => number | undefined } {
  let told = false;
  let repeats: number | undefined;
  return {
    visit: (record, line) => {
      if (told || record.noGeneration) return;
      told = true;
      const checked = ENTRIES.safeParse(panelValue(line));
      if (checked.success) repeats = Math.max(0, ...checked.data.map((e) => e.judge_repeats?.length ?? 0)) || undefined;
    },
    repeats: () => repeats,
  };
}

/**
 * `score --by-judge` of a turing or pairwise file: from each row's `panel`, every member's own
 * judgement (both orders) as one judge's row of its own, so a member is scored exactly as a
 * file of that judge alone would be. Rows without a panel give none.
 */
export function choiceMemberCollector(
  path: string,
  mode: 'turing' | 'pairwise',
): { visit: ModeVisitor; members: () => MemberRecords<ChoiceRecord>[] } {
  const byJudge = new ByMember<ChoiceRecord>();
  return {
    visit: (record, line) => {
      const { domain, id, cluster, turn, lineNo } = record as ChoiceRecord;
      for (const entry of panelOf(path, line, CHOICE_ENTRIES))
        byJudge.add(entry.judge, choiceRecord({ domain, id, cluster, turn, lineNo }, choiceHits(entry[mode])));
    },
    members: () => byJudge.members(),
  };
}

/** The row's `panel` entries, checked against the mode's schema; none when the row has no panel. */
function panelOf<E>(path: string, line: LineBytes, entries: z.ZodType<E[]>): E[] {
  const value = panelValue(line);
  if (value === undefined || value === null) return [];
  const checked = entries.safeParse(value);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  throw fail({
    kind: 'judged-field-invalid',
    file: path,
    line: line.lineNo,
    field: ['panel', ...issue.path].join('.'),
    problem: describeIssue(issue),
  });
}

/** The row's `panel` as written (undefined: none). */
function panelValue(line: LineBytes): unknown {
  const found = topLevelValues(line.bytes, PANEL);
  // A line the byte walk cannot read (valid JSON all the same: the reader took it) is parsed whole.
  return found ? parseSlice(line.bytes, found.get('panel')) : (JSON.parse(decodeLine(line.bytes)) as { panel?: unknown }).panel;
}

/** A member's run beside its panel's: the panel run's file and provenance, the member as its judge. */
export function memberRun(
  panel: Omit<RunReport, 'members'>,
  member: MemberRecords,
  req: ScoreRequest,
  gapsOf: (provenance: Provenance) => PublishedGap[],
): RunReport {
  const provenance = { ...panel.provenance, judge: member.judge };
  return {
    file: panel.file,
    label: `${panel.label} (judge ${member.judge})`,
    memberOf: panel.label,
    provenance,
    score: aggregate(member.records, req),
    intervals: req.bootstrap ? scoreIntervals(member.records, req, req.bootstrap, req.byTurn) : undefined,
    usage: usageOf(member.records),
    publishedGaps: gapsOf(provenance),
    standing: panel.standing,
    ...(member.repeats && { noise: scoreRepeatRows(member.repeats, req.bootstrap) }),
  };
}
