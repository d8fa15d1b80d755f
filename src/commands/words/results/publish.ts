import type { PublishFault, PublishStep } from '../../../core/publish/index.js';
import { visible } from '../../../core/shown.js';
import { EXIT, type Words } from '../words.js';
import { gapText } from './notes.js';

const DOING: Record<PublishStep, string> = {
  'create-repo': 'making the traces dataset',
  'upload-traces': 'uploading the traces',
  'pull-request': 'opening the pull request',
};

export const PUBLISH_WORDS: Words<PublishFault> = {
  'publish-unranked': (f) =>
    `${f.file}: not a run \`score --with-published\` would rank (${f.gaps.map(gapText).join('; ')}); publish it anyway, with these reasons in its notes, with --allow-unranked`,
  'publish-nowhere': () => 'publish: say where to: --out DIR writes the files here, --repo OWNER/MODEL opens a pull request on the model repo',
  'publish-not-rubric': (f) => `${f.file}: is a --mode ${f.mode} file; publish takes a rubric judge's file (its 0-100 scores)`,
  'publish-no-scores': (f) => `${f.file}: no domain has a valid row, so there is no figure to publish`,
  'publish-repo-invalid': (f) => `--${f.option} must be OWNER/NAME as on the Hub, got "${visible(f.value)}"`,
  'publish-no-token': () => 'publish to the Hub needs a token with write access in HF_TOKEN (hf_...); it is read from nowhere else',
  'publish-token-malformed': () => 'HF_TOKEN is not a Hugging Face token (those start with hf_)',
  'publish-refused': (f) => ({
    message: `${f.hub}: ${DOING[f.step]} of ${f.repo} was refused (HTTP ${f.status})${f.message ? `: ${f.message}` : ''}${
      f.status === 401 ? ' (is HF_TOKEN valid?)' : f.status === 403 ? ' (does HF_TOKEN have write access to it?)' : ''
    }`,
    exit: f.status === 404 ? EXIT.usage : EXIT.endpoint,
  }),
  'publish-unreachable': (f) => ({ message: `${f.hub}: cannot reach the Hub while ${DOING[f.step]} (${f.code})`, exit: EXIT.endpoint }),
};
