import { join } from 'node:path';
import { NO_OUTPUT, OFFICIAL_FILE, type RubricsFault, type RubricsNotice } from '../../../core/rubrics/index.js';
import { visible } from '../../../core/shown.js';
import type { NoticeWords, Words } from '../words.js';

/** No rubric for one domain names the two files looked for; for several, the two patterns. */
function missing(f: Extract<RubricsFault, { kind: 'rubric-missing' }>): string {
  const at = f.at ? `${f.at}: task: ` : '';
  const [one] = f.domains;
  if (f.domains.length === 1)
    return `${at}no rubric for domain '${one}' in ${f.root} (looked for ${join(f.root, `${one}.md`)} and ${join(f.root, one!, OFFICIAL_FILE)})`;
  return (
    `${at}no rubric for domains ${f.domains.map((d) => `'${d}'`).join(', ')} in ${f.root} ` +
    `(looked for ${join(f.root, '{domain}.md')} and ${join(f.root, '{domain}', OFFICIAL_FILE)})`
  );
}

export const RUBRICS_WORDS: Words<RubricsFault> = {
  'rubric-domain-invalid': (f) => `invalid domain name ${f.names.map((d) => JSON.stringify(d)).join(', ')} (rubrics in ${f.root})`,
  'rubric-missing': missing,
  'rubric-empty': (f) => `rubric file is empty: ${f.file}`,
  'judge-prompt-empty': (f) => `judge prompt file is empty: ${f.file}`,
  'rubric-unreadable': (f) => `cannot read rubric ${f.file}: ${f.reason}`,
  'rubrics-folder-missing': (f) => `rubrics folder not found: ${f.root}`,
  'rubrics-folder-unreadable': (f) => `cannot read rubrics folder ${f.root}: ${f.reason}`,
  'rubrics-not-a-folder': (f) => `rubrics path is not a folder: ${f.root}`,
};

/** What predictions without output usually mean, and the fix. */
const NO_OUTPUT_CAUSE =
  'a server started without a reasoning parser returns the thinking in the reply, an open <think> swallowing the answer: serve with one (vLLM and SGLang: --reasoning-parser), or raise --max-tokens if replies stop mid-thought';

export const RUBRICS_NOTICES: NoticeWords<RubricsNotice> = {
  'predictions-without-output': (n) => {
    const share = `${n.rows} of ${n.of} ${n.stage === 'score' ? 'rows' : 'predictions'} (${((n.rows / Math.max(n.of, 1)) * 100).toFixed(1)}%)`;
    const unclosed = n.unclosed ? `, ${n.unclosed === n.rows ? 'all' : n.unclosed} inside a <think> never closed` : '';
    const what =
      n.stage === 'infer'
        ? `${n.soFar ? 'so far ' : ''}${share} have no output once their reasoning is removed${unclosed}: the judge will grade them as "${NO_OUTPUT}"`
        : `${n.stage === 'score' && n.file !== undefined ? `${visible(n.file)}: ` : ''}${n.soFar ? 'so far ' : ''}${share} ${n.stage === 'judge' ? 'are' : 'were'} judged as "${NO_OUTPUT}" (their predictions have no output once their reasoning is removed${unclosed})`;
    return `${what}; a misconfigured server, not a weak model, is the usual cause: ${NO_OUTPUT_CAUSE}`;
  },
};
