import type { z } from 'zod';
import { fail } from '../errors.js';
import { decodeLine, parseSlice, topLevelValues, type LineBytes } from '../rows/index.js';
import { DIMENSIONS, choiceHits, choicePanelEntrySchema, panelEntrySchema } from '../schemas/index.js';
import { aggregate, scoreIntervals } from './aggregate.js';
import type { Provenance } from './comparability.js';
import { toSixtieths } from './exact.js';
import { countsAsFailed, describeIssue, repeatGrade, tokens, type JudgedRecord, type JudgedVisitor } from './judged-reader.js';
import type { RunReport, ScoreRequest } from './score-files.js';
import { usageOf } from './usage.js';
import { choiceRecord, type ChoiceRecord, type ModeVisitor } from './modes-reader.js';

/** One member of a panel (`judge --judge-model a,b,c`) and its own judgements of a file's rows (grades, or a choice mode's). */
export interface MemberRecords<R = JudgedRecord> {
  judge: string;
  records: R[];
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
      }
    },
    members: () => byJudge.members(),
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
  const found = topLevelValues(line.bytes, PANEL);
  // A line the byte walk cannot read (valid JSON all the same: the reader took it) is parsed whole.
  const value = found ? parseSlice(line.bytes, found.get('panel')) : (JSON.parse(decodeLine(line.bytes)) as { panel?: unknown }).panel;
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

/** A member's run beside its panel's: the panel run's file and provenance, the member as its judge. */
export function memberRun(
  panel: Omit<RunReport, 'members'>,
  member: MemberRecords,
  req: ScoreRequest,
  gapsOf: (provenance: Provenance) => string[],
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
  };
}
