import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { addCommand, command, declare, invokedCommand, parseOptions } from '../../../src/commands/shared/option-table.js';
import { intOption } from '../../../src/commands/shared/options.js';
import { poolSettings } from '../../../src/core/stage/index.js';
import { INFER_OPTIONS, JUDGE_OPTIONS } from '../../../src/commands/stage/stage-options.js';
import { UserError } from '../../../src/core/errors.js';

test('each option is parsed by its own parser, defaults included, into typed values', () => {
  const cmd = declare(new Command('infer').exitOverride(), INFER_OPTIONS);
  cmd.parse(
    ['--model-base-url', 'http://a/v1/', '--model-base-url', 'http://b/v1', '--model-name', 'm', '--timeout', '2', '--no-history'],
    {
      from: 'user',
    },
  );
  const o = parseOptions(INFER_OPTIONS, cmd.opts());
  assert.deepEqual(o.modelBaseUrl, ['http://a/v1', 'http://b/v1']);
  assert.equal(o.timeout, 2000);
  assert.equal(o.concurrency, 16);
  assert.equal(o.maxReplyMb, 16, 'the value is in the unit its name says');
  assert.equal(poolSettings({ ...o, shard: undefined }).maxReplyBytes, 16 * 2 ** 20);
  assert.equal(o.history, 'none');
  assert.equal(o.preflight, true);
  assert.equal(o.retryFailed, false);
});

test('a missing required option and a bad value are one-line user errors naming the option', () => {
  const cmd = declare(new Command('judge').exitOverride(), JUDGE_OPTIONS);
  cmd.parse(['--judge-base-url', 'http://x/v1', '--judge-model', 'j'], { from: 'user' });
  assert.throws(
    () => parseOptions(JUDGE_OPTIONS, cmd.opts()),
    (e: Error) => e instanceof UserError && e.message === '--predictions is required',
  );
  const bad = declare(new Command('judge').exitOverride(), JUDGE_OPTIONS);
  bad.parse(['--predictions', 'p.jsonl', '--judge-model', 'j', '--judge-base-url', 'http://x/v1', '--parse-attempts', '0'], {
    from: 'user',
  });
  assert.throws(() => parseOptions(JUDGE_OPTIONS, bad.opts()), /--parse-attempts must be a whole number from 1 to 20, got "0"/);
});

test('a table key that is not the option commander reads is caught when declared', () => {
  assert.throws(() => declare(new Command('x'), { wrong: { flags: '--right <v>', help: '', parse: (v: string) => v } }), /read as "right"/);
});

test('a command entry: its operands and parsed options reach its run; a bad value or an operand too many is one line', async () => {
  let got: unknown[] = [];
  const awb = (...args: string[]) => {
    const program = new Command('awb').exitOverride();
    const rows = { flags: '--rows <n>', help: 'rows', default: '3', parse: (v: string, n: string) => intOption(n, v, 1)! };
    const spec = command({
      name: 'pair',
      description: 'two files',
      operands: [
        { name: '<a>', help: 'first' },
        { name: '[b]', help: 'second' },
      ],
      tooMany: (n) => `pair takes two files, got ${n}`,
      options: async () => ({ rows }),
      examples: ['awb pair x y'],
      load: async () => ({
        run: async (a: string, b: string | undefined, o: { rows: number }) => {
          got = [a, b, o];
        },
      }),
    });
    addCommand(program, spec, { rows });
    return { program, done: program.parseAsync(args, { from: 'user' }) };
  };
  await awb('pair', 'x', '--rows', '7').done;
  assert.deepEqual(got, ['x', undefined, { rows: 7 }]);
  await awb('pair', 'x', 'y').done;
  assert.deepEqual(got, ['x', 'y', { rows: 3 }], 'the default, parsed');
  await assert.rejects(
    awb('pair', 'x', 'y', 'z').done,
    (e: Error) => e instanceof UserError && e.message === 'pair takes two files, got 3',
  );
  await assert.rejects(awb('pair', 'x', '--rows', '0').done, /^UserError: --rows must be a whole number >= 1, got "0"$/);
  const help = awb('pair', 'x').program.commands[0]!.helpInformation();
  assert.match(help, /--rows <n>\s+rows \(default: 3\)/);
});

test('the command whose options are loaded is the one commander runs, or whose help is asked for', () => {
  assert.equal(invokedCommand(['infer', '--model-name', 'm']), 'infer');
  assert.equal(invokedCommand(['help', 'judge']), 'judge');
  assert.equal(invokedCommand(['--help']), undefined);
  assert.equal(invokedCommand(['-V']), undefined);
  assert.equal(invokedCommand(['help']), undefined);
  assert.equal(invokedCommand(['-h', 'score', 'x.jsonl']), 'score');
});
