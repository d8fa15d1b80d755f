import { agreementOf, gradedRow, type AgreementReport } from '../agreement/index.js';
import { memberCollector, type JudgedVisitor } from '../score/index.js';

/** How far the members of one file's panel of judges agree, as `awb agreement` computes it between files. */
export interface PanelAgreement {
  /** Input index of the file. */
  run: number;
  /** The members are the judges, named by their models, in the panel's order. */
  agreement: AgreementReport;
}

/**
 * Collects, while the files are read, each panel member's grades
 * (score's memberCollector); `agreements()` then lines the members of
 * each file up row by row as agreementOf does files. A file judged by one
 * judge has no members and no figures. Predictions are not compared: the
 * members of a row graded the same one.
 */
export function panelAgreements(paths: readonly string[]): { visit: (run: number) => JudgedVisitor; agreements: () => PanelAgreement[] } {
  const collectors = new Map<number, ReturnType<typeof memberCollector>>();
  return {
    visit: (run) => {
      const c = memberCollector(paths[run]!);
      collectors.set(run, c);
      return c.visit;
    },
    agreements: () =>
      [...collectors].flatMap(([run, c]) => {
        const members = c.members();
        if (members.length < 2) return [];
        const judges = members.map((m) => ({ file: paths[run]!, label: m.judge, rows: m.records.map((r) => gradedRow(r, undefined)) }));
        return [{ run, agreement: agreementOf(judges, undefined) }];
      }),
  };
}
