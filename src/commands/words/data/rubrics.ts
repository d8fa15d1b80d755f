import { join } from 'node:path';
import { OFFICIAL_FILE, type RubricsFault } from '../../../core/rubrics/index.js';
import type { Words } from '../words.js';

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
