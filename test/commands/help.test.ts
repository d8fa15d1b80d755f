/*
 * What `--help` tells a new user, held to what the docs say: every option a
 * command's table in docs/commands.md lists (written from the same table by
 * `npm run docs`) is in its help, the exit codes are listed, the download's
 * environment variables are named, and `compare` names the intervals it
 * computes (as docs/statistics.md does).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { runAwb } from '../support/cli.js';
import { exitCodes } from '../../src/commands/words/words.js';

const COMMANDS_DOC = new URL('../../docs/commands.md', import.meta.url);
const STATISTICS_DOC = new URL('../../docs/statistics.md', import.meta.url);
const COMMANDS = ['download', 'infer', 'judge', 'models', 'score', 'compare', 'drift', 'rows', 'merge', 'report'];

/** The options in the first column of the table under docs/commands.md's `## \`awb CMD\`` heading. */
async function tableOptions(cmd: string): Promise<string[]> {
  const doc = await readFile(COMMANDS_DOC, 'utf8');
  const start = doc.indexOf(`## \`awb ${cmd}\``);
  assert.ok(start >= 0, `docs/commands.md has a section for awb ${cmd}`);
  const section = doc.slice(start + 1).split(/\n##+ /)[0]!;
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('| `-'))
    .map((line) => line.split('|')[1]!);
  return [...new Set(firstCells.flatMap((cell) => cell.match(/--[a-z][a-z0-9-]*/g) ?? []))];
}

async function help(cmd: string): Promise<string> {
  const r = await runAwb([cmd, '--help']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

describe('awb CMD --help', { concurrency: 4 }, () => {
  for (const cmd of COMMANDS) {
    it(`${cmd}: every option of its table in docs/commands.md is in its help`, async () => {
      const text = await help(cmd);
      const listed = await tableOptions(cmd);
      assert.ok(listed.length > 0, `docs/commands.md has an options table for awb ${cmd}`);
      const missing = listed.filter((opt) => !new RegExp(`${opt}(?![a-z0-9-])`).test(text));
      assert.deepEqual(missing, [], `awb ${cmd} --help lacks options docs/commands.md lists`);
    });
  }

  it('download names the environment variables docs/commands.md lists for it', async () => {
    const text = await help('download');
    for (const name of [
      'HF_ENDPOINT',
      'HF_TOKEN',
      'HF_HOME',
      'HF_HUB_CACHE',
      'HF_HUB_OFFLINE',
      'MODELSCOPE_ENDPOINT',
      'MODELSCOPE_DOMAIN',
      'MODELSCOPE_API_TOKEN',
      'MODELSCOPE_CACHE',
    ])
      assert.match(text, new RegExp(`\\b${name}\\b`), name);
  });

  it('awb --help lists every exit code with its meaning, in order', async () => {
    const r = await runAwb(['--help']);
    assert.equal(r.code, 0, r.stderr);
    const listed = r.stdout.slice(r.stdout.indexOf('Exit codes:')).split('\n').slice(1).filter(Boolean);
    assert.deepEqual(
      listed.map((l) => l.trim().replace(/\s+/, ' ')),
      exitCodes().map(({ code, meaning }) => `${code} ${meaning}`),
    );
    assert.ok(exitCodes().some(({ code }) => code === 130) && exitCodes()[0]!.code === 0);
  });

  it('compare names the intervals it computes (cluster-robust over trajectories), not bootstrap ones', async () => {
    const text = (await help('compare')).replace(/\s+/g, ' ');
    assert.match(text, /cluster-robust/);
    assert.doesNotMatch(text, /bootstrap/);
    const doc = await readFile(STATISTICS_DOC, 'utf8');
    assert.match(doc, /\*\*Intervals\*\* are cluster-robust t intervals over trajectories/, 'docs/statistics.md says so too');
  });
});

describe("commander's errors in awb's words", () => {
  it('an unknown option, command or operand: one awb line naming it, the nearest suggested, the usage exit code', async () => {
    for (const [args, said] of [
      [
        ['infer', '--modle-name', 'x'],
        /^awb: unknown option '--modle-name': did you mean --model-name\? \(awb infer --help lists the options\)\n$/,
      ],
      [
        ['score', 'x.jsonl', '--formt', 'json'],
        /^awb: unknown option '--formt': did you mean --format\? \(awb score --help lists the options\)\n$/,
      ],
      [['infer', '--zzzzzz'], /^awb: unknown option '--zzzzzz' \(awb infer --help lists the options\)\n$/],
      [['infr'], /^awb: unknown command 'infr': did you mean infer\? \(awb --help lists the commands\)\n$/],
      [['rows'], /^awb: missing required argument 'judged' \(see awb rows --help\)\n$/],
      [['score', '--format'], /^awb: option '-f, --format <format>' argument missing \(see awb score --help\)\n$/],
    ] as const) {
      const r = await runAwb([...args]);
      assert.equal(r.code, exitCodes().find((c) => /usage/.test(c.meaning))!.code, args.join(' '));
      assert.match(r.stderr, said, args.join(' '));
      assert.equal(r.stdout, '');
    }
  });
});
