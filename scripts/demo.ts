/**
 * `npm run demo`: the whole pipeline, infer → judge → score, on the bundled
 * fixtures with no network. Two local OpenAI-compatible servers replay
 * recorded replies (one plays the world model, one the judge); awb talks to
 * them exactly as it would to vLLM or a judge API. The numbers mean nothing
 * about any model: the replies were written by hand.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invocationFor, shellWord } from '../src/commands/shared/invocation.js';
import { loadReplay, replayHandler, startOpenAIServer } from '../test/support/openai-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'awb.js');
/** awb as it can be run from this folder (`node bin/awb.js` without an awb on PATH): the commands shown paste. */
const shown = invocationFor(bin, process.cwd(), process.env);

function awb(args: string[]): Promise<number> {
  process.stderr.write(`\n$ ${shown} ${args.map(shellWord).join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      stdio: 'inherit',
      env: { ...process.env, AWB_MODEL_API_KEY: 'demo', AWB_JUDGE_API_KEY: 'demo' },
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const world = await startOpenAIServer({
  models: ['replay-world-model'],
  latencyMs: 30,
  reply: replayHandler(await loadReplay(join(root, 'fixtures/replay/world.jsonl'))),
});
const judge = await startOpenAIServer({
  models: ['replay-judge'],
  latencyMs: 30,
  reply: replayHandler(await loadReplay(join(root, 'fixtures/replay/judge.jsonl'))),
});
const out = await mkdtemp(join(tmpdir(), 'awb-demo-'));
let code: number;
try {
  process.stderr.write(
    'awb demo: REPLAY of recorded replies on the bundled fixture data (28 hand-made rows); no network, no real model.\n',
  );
  code = await awb([
    'infer',
    '--data',
    join(root, 'fixtures/data'),
    '--model-base-url',
    world.url,
    '--model-name',
    'replay-world-model',
    '--output',
    join(out, 'predictions.jsonl'),
    '--concurrency',
    '8',
  ]);
  if (code === 0) {
    code = await awb([
      'judge',
      '--predictions',
      join(out, 'predictions.jsonl'),
      '--judge-base-url',
      judge.url,
      '--judge-model',
      'replay-judge',
      '--output',
      join(out, 'judged.jsonl'),
      '--concurrency',
      '8',
    ]);
  }
  if (code === 0) code = await awb(['score', join(out, 'judged.jsonl')]);
  process.stderr.write(`\nawb demo: that was a replay of recorded replies, not a real evaluation. Files are in ${out}\n`);
} finally {
  await world.close();
  await judge.close();
}
process.exitCode = code;
