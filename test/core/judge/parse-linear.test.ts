/*
 * Every parser of model text is linear in its input (issue 52): a reply of
 * megabytes built from unclosed tags, nesting, quotes and braces costs at
 * most a constant times its length. The work is bounded by its growth: the
 * parser's CPU time at 8n against n, the least of a few runs each, must grow
 * far less than the 64 times a quadratic parser needs; the machine's speed
 * and load cancel out of the ratio.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseChoiceReply } from '../../../src/core/judge/choice-parse.js';
import { parseJudgeReply } from '../../../src/core/judge/judge-parse.js';
import { cleanObservation, extractPrediction, lastBlock, stripThink } from '../../../src/core/rubrics/index.js';
import { htmlPageGist } from '../../../src/core/endpoints/http/client.js';
import { mulberry32 } from '../../../src/core/score/index.js';

const PARSERS: Record<string, (text: string) => unknown> = {
  parseJudgeReply,
  parseChoiceReply,
  extractPrediction: (t) => extractPrediction(t),
  stripThink: (t) => stripThink(t, 'final_evaluation'),
  lastBlock: (t) => lastBlock(t, 'final_evaluation'),
  cleanObservation,
  // An endpoint's error page (a proxy's, or a hostile server's), read into the row's error.
  htmlPageGist: (t) => htmlPageGist(502, t),
};

const PIECES = [
  '<think>',
  '</think>',
  '<THINK>',
  '<final_evaluation>',
  '</final_evaluation>',
  '<predicted_observation>',
  '{',
  '}',
  '"',
  '\\',
  '\\"',
  "'",
  '```',
  '```json',
  '<html>',
  '<title>',
  '</title>',
  '<script>',
  '</script',
  '<style ',
  '<',
  '>',
  '"scores":',
  '"scores": {',
  'answer is ',
  'I choose ',
  'A is ',
  'boxed{',
  ':',
  ',',
  ' ',
  '\n',
  'x',
];

/** Texts of about `n` characters, each a pattern that a backtracking or rescanning parser pays for quadratically. */
const ADVERSARIAL: Record<string, (n: number) => string> = {
  'unclosed <think>': (n) => '<think>'.repeat(n / 7),
  'unclosed <think> before an evaluation block': (n) => `${'<think>x'.repeat(n / 8)}<final_evaluation>{"scores": {"format": 4}}`,
  'orphan </think>': (n) => 'a</think>'.repeat(n / 9),
  'nested <think>': (n) => `${'<think>'.repeat(n / 16)}${'</think>'.repeat(n / 16)}`,
  'unclosed evaluation blocks': (n) => '<final_evaluation>{'.repeat(n / 19),
  'unclosed nesting': (n) => '{"a": '.repeat(n / 6),
  'braces in and out of strings': (n) => '{"{'.repeat(n / 3),
  'escaped quotes in unclosed objects': (n) => '{"\\"{'.repeat(n / 5),
  'open braces': (n) => '{'.repeat(n),
  'close braces': (n) => '}'.repeat(n),
  quotes: (n) => '"'.repeat(n),
  'single-quoted keys without a colon': (n) => "'ab'".repeat(n / 4),
  'unclosed scores objects': (n) => `{${'"scores": {'.repeat(n / 11)}`,
  'scores then spaces': (n) => `{"scores"${' '.repeat(n)}`,
  'unclosed fences': (n) => '```json\n{'.repeat(n / 9),
  'a lone fence': (n) => `\`\`\`json\n${'{"a": 1, '.repeat(n / 9)}`,
  'answer then spaces': (n) => `answer is${' '.repeat(n)}x`,
  'answer then stars and spaces': (n) => `answer: ${'* '.repeat(n / 2)}x`,
  'choose then spaces': (n) => `I choose response${' '.repeat(n)}x`,
  'boxed without a letter': (n) => 'boxed{ '.repeat(n / 7),
  'letters then spaces': (n) => `A${' '.repeat(n)}is`,
  'bare keys without a colon': (n) => `{${'ab '.repeat(n / 3)}`,
  'commas then spaces': (n) => `{"a": 1,${' '.repeat(n)}`,
  'an HTML page of unclosed <title': (n) => `<html>${'<title '.repeat(n / 7)}`,
  'an HTML page of unclosed tags': (n) => `<html>${'<a '.repeat(n / 3)}`,
  'an HTML page of unclosed <script>s': (n) => `<!DOCTYPE html>${'<script>'.repeat(n / 8)}`,
  'an HTML page of closed <style>s': (n) => `<html>${'<style>x</style >'.repeat(n / 17)}`,
  'an HTML page of close tags with spaces and no >': (n) => `<body><script>${'</script     '.repeat(n / 13)}`,
  'an HTML page of empty tags': (n) => `<html>${'<b> </b>'.repeat(n / 8)}`,
  'an HTML page of text': (n) => `<html><title>${'502 '.repeat(n / 4)}</title>`,
  'a mix of all': (n) => {
    // Seeded (the bootstrap's generator), so a failure can be run again as it was.
    const next = mulberry32(52);
    const parts: string[] = [];
    for (let len = 0; len < n;) {
      const p = PIECES[Math.floor(next() * PIECES.length)]!;
      parts.push(p);
      len += p.length;
    }
    return parts.join('');
  },
};

/** The CPU time (µs) of one call. */
function cpuMicros(parse: (text: string) => unknown, text: string): number {
  const before = process.cpuUsage();
  parse(text);
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/** Runs of each input: the least time of them is the one least disturbed by other work on the machine. */
const RUNS = 4;
const SMALL = 1 << 18;
/** 8 times SMALL: a linear parser's time grows about 8 times, a quadratic one's 64 times. */
const LARGE = 8 * SMALL;
/** Generous: fixed costs, caches and the collector bend the line, never by this much. */
const MAX_GROWTH = 32;
/** Below this a time is mostly the clock's grain: a parser this fast on LARGE is linear enough. */
const NOISE_MICROS = 20_000;

describe('parsers of model text are linear in their input', () => {
  for (const [pattern, make] of Object.entries(ADVERSARIAL)) {
    it(pattern, () => {
      const small = make(SMALL);
      const large = make(LARGE);
      for (const [name, parse] of Object.entries(PARSERS)) {
        parse(small); // compiled and warm before anything is measured
        let t1 = Infinity;
        for (let i = 0; i < RUNS; i++) t1 = Math.min(t1, cpuMicros(parse, small));
        // The small input's time is floored where the large one's noise floor puts a linear parser: a time under a
        // millisecond fits caches the large input does not, and would read as growth (x41 seen on a clean clone).
        const floor = Math.max(t1, NOISE_MICROS / 8);
        // The large input's runs stop at the first within bounds: the verdict is the least of RUNS runs', as if all
        // were run, and a linear parser pays for one large run instead of RUNS.
        let t8 = Infinity;
        for (let i = 0; i < RUNS && t8 >= NOISE_MICROS && t8 / floor >= MAX_GROWTH; i++) t8 = Math.min(t8, cpuMicros(parse, large));
        if (t8 < NOISE_MICROS) continue;
        const growth = t8 / floor;
        assert.ok(
          growth < MAX_GROWTH,
          `${name} on ${pattern}: ${Math.round(t1)} µs at ${small.length} characters, ${Math.round(t8)} µs at ${large.length} (x${growth.toFixed(1)})`,
        );
      }
    });
  }

  it('a reply of megabytes of unclosed tags is still read as the official parser reads its answer', () => {
    const reply = `${'<think>'.repeat(300_000)}<final_evaluation>{"scores": {"format": 4, "factuality": 3, "consistency": 5, "realism": 4, "quality": 4}}</final_evaluation>`;
    const parsed = parseJudgeReply(reply);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.scores, { format: 4, factuality: 3, consistency: 5, realism: 4, quality: 4 });
    assert.equal(parseChoiceReply(`${'<think>'.repeat(300_000)}`).ok, false);
    assert.equal(extractPrediction(`${'<think>x'.repeat(300_000)}<predicted_observation>seen</predicted_observation>`), 'seen');
  });
});

describe('nesting no judge writes', () => {
  it('a reply whose object nests 10,000 levels deep keeps only its scores (the deep value would make its row unwritable)', () => {
    const deep = `{"scores": {"format": 4, "factuality": 4, "consistency": 4, "realism": 4, "quality": 4}, "strengths": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const parsed = parseJudgeReply(deep);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.strengths, []);
    assert.doesNotThrow(() => JSON.stringify(parsed));
  });
});
