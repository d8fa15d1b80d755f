export { countsAsFailed, fieldProblem, readJudged, repeatGrade, tokens } from './judged-reader.js';
export type { JudgedFile, JudgedRecord, JudgedVisitor, TokenUsage } from './judged-reader.js';
export { choiceRecord, judgeModeOf, modeRecordOf, readModeFile, validTotals } from './modes-reader.js';
export type { ChoiceRecord, JudgeMode, ModeVisitor, RepeatRecord } from './modes-reader.js';
export { MODE_FIELD } from './judge-mode.js';
export { judgedRows } from './row-view.js';
export type { RowQuery, RowRef, RowView } from './row-view.js';
