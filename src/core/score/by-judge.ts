import { fail } from '../errors.js';
import { decodeLine, parseSlice, topLevelValues, type LineBytes } from '../rows/index.js';
import { DIMENSIONS, panelEntrySchema } from '../schemas/index.js';
import { aggregate, scoreIntervals } from './aggregate.js';
import type { Provenance } from './comparability.js';
import { toSixtieths } from './exact.js';
import { countsAsFailed, describeIssue, repeatGrade, tokens, type JudgedRecord, type JudgedVisitor } from './judged-reader.js';
import type { RunReport, ScoreRequest } from './score-files.js';
import { usageOf } from './usage.js';

/** One member of a panel (`judge --judge-model a,b,c`) and its own judgements of a file's rows. */
export interface MemberRecords {
  judge: string;
  records: JudgedRecord[];
}

const PANEL = new Set(['panel']);
const ENTRIES = panelEntrySchema.array();

/**
 * `score --by-judge`: from each row's `panel`, every member's own judgement
 * as a record of the row of its own (same key, its grades, its usage), so a
 * member is scored exactly as a single judge's file would be. Members come
 * in the order they first appear; rows without a panel give none.
 */
export function memberCollector(path: string): { visit: JudgedVisitor; members: () => MemberRecords[] } {
  const byJudge = new Map<string, JudgedRecord[]>();
  return {
    visit: (record, line) => {
      for (const [i, entry] of panelOf(path, line).entries()) {
        // A member's grades under --repeat are means of its K judgements: to the nearest sixtieth, as a --repeat row's.
        const grade = entry.judge_repeats ? repeatGrade : (g: number) => g;
        const grades = [entry.total_score, ...DIMENSIONS.map((d) => entry.scores[d])].map((g, k) => {
          const v = toSixtieths(grade(g));
          if (v !== undefined) return v;
          const field = `panel.${i}.${k === 0 ? 'total_score' : `scores.${DIMENSIONS[k - 1]}`}`;
          throw fail({ kind: 'judged-grade-invalid', file: path, line: line.lineNo, field, value: g });
        });
        const [total, ...dims] = grades as [number, ...number[]];
        let records = byJudge.get(entry.judge);
        if (!records) byJudge.set(entry.judge, (records = []));
        records.push({
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
    members: () => [...byJudge].map(([judge, records]) => ({ judge, records })),
  };
}

/** The row's `panel` entries, checked; none when the row has no panel. */
function panelOf(path: string, line: LineBytes) {
  const found = topLevelValues(line.bytes, PANEL);
  // A line the byte walk cannot read (valid JSON all the same: the reader took it) is parsed whole.
  const value = found ? parseSlice(line.bytes, found.get('panel')) : (JSON.parse(decodeLine(line.bytes)) as { panel?: unknown }).panel;
  if (value === undefined || value === null) return [];
  const checked = ENTRIES.safeParse(value);
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
