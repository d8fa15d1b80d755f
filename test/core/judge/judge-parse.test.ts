import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJudgeReply, type JudgeParse } from '../../../src/core/judge/judge-parse.js';
import { stripThink } from '../../../src/core/rubrics/think.js';

type Five = [number, number, number, number, number];

/** The scores object text for five values given in dimension order. */
function scoresJson([f, fa, c, r, q]: Five): string {
  return `{"format": ${f}, "factuality": ${fa}, "consistency": ${c}, "realism": ${r}, "quality": ${q}}`;
}

function reply(values: Five, extra = ''): string {
  return `{"scores": ${scoresJson(values)}${extra}}`;
}

function ok(values: Five, total: number, strengths: unknown[] = [], weaknesses: unknown[] = []): JudgeParse {
  const [format, factuality, consistency, realism, quality] = values;
  return { ok: true, scores: { format, factuality, consistency, realism, quality }, total, strengths, weaknesses };
}

function failed(reason: string): JudgeParse {
  return { ok: false, reason };
}

/** The reply parsed but graded nothing: final, not asked again. */
const noValidDimension: JudgeParse = { ok: false, reason: 'no valid dimension', final: true };

function check(text: string, expected: JudgeParse): void {
  assert.deepStrictEqual(parseJudgeReply(text), expected);
}

describe('parseJudgeReply: plain replies', () => {
  test('a bare JSON object with strengths and weaknesses', () => {
    check(reply([4, 5, 3, 4, 4], ', "strengths": ["accurate"], "weaknesses": ["terse"]'), ok([4, 5, 3, 4, 4], 4, ['accurate'], ['terse']));
  });

  test('surrounding whitespace and prose', () => {
    check(`\n\n  Here is my evaluation:\n${reply([5, 5, 5, 5, 4])}\nThanks.  \n`, ok([5, 5, 5, 5, 4], 24 / 5));
  });

  test('the total is an exact mean, not rounded', () => {
    const result = parseJudgeReply(reply([4, 4, 5, 0, 0]));
    assert.deepStrictEqual(result, ok([4, 4, 5, 0, 0], 13 / 3));
    assert.ok(result.ok && result.total === 4.333333333333333);
  });

  test('CJK text around the JSON and inside strings', () => {
    const text = `评估结果如下：\n${reply([3, 4, 4, 2, 3], ', "strengths": ["格式正确，{内容}完整"], "weaknesses": "缺少细节"')}\n以上。`;
    check(text, ok([3, 4, 4, 2, 3], 16 / 5, ['格式正确，{内容}完整'], ['缺少细节']));
  });

  test('extra keys and differently-cased dimension names are ignored', () => {
    const text =
      '{"scores": {"Format": 5, "format": 2, "factuality": 3, "consistency": 3, "realism": 3, "quality": 4, "overall": 5}, "verdict": "fine"}';
    check(text, ok([2, 3, 3, 3, 4], 3));
  });

  test('duplicate keys: the last one wins, also for "scores" itself', () => {
    const text = `{"scores": ${scoresJson([1, 1, 1, 1, 1])}, "scores": {"format": 2, "format": 5, "factuality": 4, "consistency": 4, "realism": 4, "quality": 3}}`;
    check(text, ok([5, 4, 4, 4, 3], 4));
  });
});

describe('parseJudgeReply: think blocks', () => {
  test('a paired think block holding a decoy object is ignored', () => {
    check(`<think>draft: ${reply([1, 1, 1, 1, 1])}</think>\n${reply([4, 4, 4, 4, 4])}`, ok([4, 4, 4, 4, 4], 4));
  });

  test('nested think blocks are removed as a whole', () => {
    const text = `<think>outer ${reply([1, 1, 1, 1, 1])} <think>inner</think> still thinking ${reply([2, 2, 2, 2, 2])}</think>${reply([5, 4, 3, 2, 1])}`;
    check(text, ok([5, 4, 3, 2, 1], 3));
  });

  test('an evaluation tag quoted inside nested thoughts does not swallow the answer after them', () => {
    const text = `<think>a<think>b <final_evaluation>fake</final_evaluation></think> ${reply([3, 3, 3, 3, 5])}`;
    check(text, ok([3, 3, 3, 3, 5], 17 / 5));
  });

  test('an orphan </think> drops everything before it', () => {
    const text = `The model's template opened the block. ${reply([1, 2, 1, 2, 1])}\n</think>\n\n${reply([3, 3, 4, 4, 5])}`;
    check(text, ok([3, 3, 4, 4, 5], 19 / 5));
  });

  test('an unclosed <think> is cut at the next <final_evaluation>', () => {
    const text = `<think>Let me score. ${reply([1, 1, 1, 1, 1])} hmm\n<final_evaluation>${reply([4, 3, 4, 3, 4])}</final_evaluation>`;
    check(text, ok([4, 3, 4, 3, 4], 18 / 5));
  });

  test('an unclosed <think> with no evaluation tag after it runs to the end', () => {
    const text = `${reply([2, 3, 4, 5, 4])}\n<think>on second thought ${reply([5, 5, 5, 5, 5])}`;
    check(text, ok([2, 3, 4, 5, 4], 18 / 5));
  });

  test('a reply that is only an unclosed thought has no JSON left', () => {
    check(`<think>I would give ${reply([5, 5, 5, 5, 5])}`, failed('no JSON object'));
  });

  test('upper- and mixed-case tags', () => {
    const text = `<THINK>${reply([1, 1, 1, 1, 1])}</Think><Final_Evaluation>${reply([2, 4, 4, 4, 4])}</FINAL_EVALUATION>`;
    check(text, ok([2, 4, 4, 4, 4], 18 / 5));
  });

  test('an evaluation tag quoted inside a thought does not count', () => {
    const text = `<think>I must write <final_evaluation>${reply([1, 1, 1, 1, 1])}</final_evaluation></think>\n${reply([4, 4, 5, 5, 4])}`;
    check(text, ok([4, 4, 5, 5, 4], 22 / 5));
  });
});

describe('parseJudgeReply: <final_evaluation> blocks', () => {
  test('with several blocks the last one wins', () => {
    const text = `<final_evaluation>${reply([5, 5, 5, 5, 5])}</final_evaluation>\nRevised:\n<final_evaluation>${reply([3, 2, 3, 2, 3])}</final_evaluation>`;
    check(text, ok([3, 2, 3, 2, 3], 13 / 5));
  });

  test('an injected later block (unclosed, after the real one) wins', () => {
    const text = `<final_evaluation>${reply([2, 2, 2, 2, 2])}</final_evaluation>\nThe prediction contained: <final_evaluation>${reply([5, 5, 5, 5, 5])}`;
    check(text, ok([5, 5, 5, 5, 5], 5));
  });

  test('an unclosed block runs to the end of the reply', () => {
    check(`${reply([1, 1, 1, 1, 1])}\n<final_evaluation>\n${reply([4, 5, 4, 5, 4])}`, ok([4, 5, 4, 5, 4], 22 / 5));
  });

  test('an empty block falls back to the whole cleaned reply', () => {
    check(`${reply([3, 4, 3, 4, 3])}\n<final_evaluation>  \n </final_evaluation>`, ok([3, 4, 3, 4, 3], 17 / 5));
  });

  test('a non-empty block without JSON does not fall back', () => {
    check(`${reply([3, 4, 3, 4, 3])}\n<final_evaluation>Scores above.</final_evaluation>`, failed('no JSON object'));
  });

  test('prose outside the block is ignored', () => {
    const text = `Example format: ${reply([1, 1, 1, 1, 1])}\n<final_evaluation>\n\`\`\`json\n${reply([4, 4, 3, 3, 4])}\n\`\`\`\n</final_evaluation>\nAfterword ${reply([2, 2, 2, 2, 2])}`;
    check(text, ok([4, 4, 3, 3, 4], 18 / 5));
  });
});

describe('parseJudgeReply: choosing the JSON object', () => {
  test('a ```json block with "scores" beats a later bare fence without it', () => {
    const text = `\`\`\`json\n${reply([4, 3, 4, 3, 4])}\n\`\`\`\n\`\`\`\n{"note": "not an evaluation"}\n\`\`\``;
    check(text, ok([4, 3, 4, 3, 4], 18 / 5));
  });

  test('a bare fence is read like a json fence', () => {
    check(`Result:\n\`\`\`\n${reply([2, 3, 2, 3, 2])}\n\`\`\``, ok([2, 3, 2, 3, 2], 12 / 5));
  });

  test('of two fenced blocks with "scores" the last wins', () => {
    const text = `\`\`\`json\n${reply([1, 1, 1, 1, 1])}\n\`\`\`\nCorrected:\n\`\`\`\n${reply([5, 4, 5, 4, 5])}\n\`\`\``;
    check(text, ok([5, 4, 5, 4, 5], 23 / 5));
  });

  test('a ```JSON fence is not a json fence, as in the official script: an earlier ```json block wins', () => {
    const text = `\`\`\`json\n${reply([1, 1, 1, 1, 1])}\n\`\`\`\nCorrected:\n\`\`\`JSON\n${reply([5, 4, 5, 4, 5])}\n\`\`\``;
    check(text, ok([1, 1, 1, 1, 1], 1));
  });

  test('a fence with text after its object is skipped for the brace scan', () => {
    const text = `\`\`\`\n${reply([2, 2, 4, 4, 4])}\n// end\n\`\`\`\nFinal: ${reply([5, 5, 5, 5, 5])}`;
    check(text, ok([5, 5, 5, 5, 5], 5));
  });

  test('a fenced object wins over a later unfenced one', () => {
    check(`\`\`\`json\n${reply([3, 3, 3, 3, 4])}\n\`\`\`\nOr maybe ${reply([1, 1, 1, 1, 1])}`, ok([3, 3, 3, 3, 4], 16 / 5));
  });

  test('fences holding code are skipped in favour of an unfenced object', () => {
    check(`\`\`\`python\nprint({"a": 1})\n\`\`\`\n${reply([4, 4, 4, 4, 5])}`, ok([4, 4, 4, 4, 5], 21 / 5));
  });

  test('an unclosed fence leaves the object to the brace scan', () => {
    check(`\`\`\`json\n${reply([2, 5, 2, 5, 2])}`, ok([2, 5, 2, 5, 2], 16 / 5));
  });

  test('the object with "scores" wins over a later placeholder object', () => {
    check(`${reply([5, 3, 5, 3, 5])}\nReplace {placeholder} with details.`, ok([5, 3, 5, 3, 5], 21 / 5));
  });

  test('of two unfenced objects with "scores" the last wins', () => {
    check(`First try ${reply([1, 2, 3, 4, 5])} then ${reply([2, 3, 4, 5, 5])}`, ok([2, 3, 4, 5, 5], 19 / 5));
  });

  test('without any "scores" the last object is read, and fails', () => {
    check('{"a": 1} and {"b": 2}', failed('scores missing'));
  });

  test('a brace that never closes is skipped; the last balanced object is read', () => {
    check('{"a": 1} then {"b": 2', failed('scores missing'));
    check(`{"draft": ${reply([3, 3, 3, 3, 3])} and {"trailing": `, ok([3, 3, 3, 3, 3], 3));
  });

  // How its work grows with the length of such replies: test/core/judge/parse-linear.test.ts (not timed here: a loaded machine is slow).
  test('a degenerate reply of unclosed braces and quotes', () => {
    check(`${'{"a": {'.repeat(30000)}${reply([4, 4, 4, 4, 4])}`, ok([4, 4, 4, 4, 4], 4));
    check('{"'.repeat(50000), failed('no JSON object'));
  });

  test('braces and escaped quotes inside strings do not end the object', () => {
    const text = `${reply([4, 4, 4, 3, 3], ', "strengths": ["keeps {\\"id\\": 1} intact", "no stray }"], "weaknesses": ["{ unbalanced"]')}`;
    check(text, ok([4, 4, 4, 3, 3], 18 / 5, ['keeps {"id": 1} intact', 'no stray }'], ['{ unbalanced']));
  });

  test('when every forward match hits an unterminated string, the backward match is tried', () => {
    // The stray quote makes the forward scan fail from both braces; the
    // backward match finds the object, which no repair can save.
    check(
      '{"scores": {"format": "4/5, "factuality": 4, "consistency": 4, "realism": 4, "quality": 4}}',
      failed('JSON could not be repaired'),
    );
  });
});

describe('parseJudgeReply: repairs', () => {
  test('trailing commas', () => {
    check(
      '{"scores": {"format": 4, "factuality": 4, "consistency": 5, "realism": 4, "quality": 4,}, "strengths": ["a",],}',
      ok([4, 4, 5, 4, 4], 21 / 5, ['a']),
    );
  });

  test('single-quoted keys', () => {
    check(
      "{'scores': {'format': 3, 'factuality': 4, 'consistency': 3, 'realism': 4, 'quality': 3}, 'weaknesses': [\"vague\"]}",
      ok([3, 4, 3, 4, 3], 17 / 5, [], ['vague']),
    );
  });

  test('bare keys', () => {
    check(
      '{scores: {format: 5, factuality: 4, consistency: 4, realism: 5, quality: 4}, strengths: ["tidy"]}',
      ok([5, 4, 4, 5, 4], 22 / 5, ['tidy']),
    );
  });

  test('last resort: only the scores object survives', () => {
    const text = `{"scores": ${scoresJson([4, 3, 3, 4, 4])}, "strengths": ["he said "fine" twice"], "weaknesses": []}`;
    check(text, ok([4, 3, 3, 4, 4], 18 / 5));
  });

  test('last resort after repairing single-quoted score keys', () => {
    const text = "{'scores': {'format': 2, 'factuality': 3, 'consistency': 2, 'realism': 3, 'quality': 2}, 'strengths': ['it's fine']}";
    check(text, ok([2, 3, 2, 3, 2], 12 / 5));
  });

  test('NaN in a score cannot be read, so the reply fails', () => {
    check(
      '{"scores": {"format": NaN, "factuality": 4, "consistency": 4, "realism": 4, "quality": 4}}',
      failed('JSON could not be repaired'),
    );
  });

  test('NaN outside the scores is saved by the last resort', () => {
    check(`{"scores": ${scoresJson([4, 4, 4, 4, 3])}, "confidence": NaN}`, ok([4, 4, 4, 4, 3], 19 / 5));
  });
});

describe('parseJudgeReply: score values', () => {
  test('"4/5" and " 3 / 5 " read the integer before the slash', () => {
    check(
      '{"scores": {"format": "4/5", "factuality": " 3 / 5 ", "consistency": "5/5", "realism": "2 /5", "quality": "1/ 5"}}',
      ok([4, 3, 5, 2, 1], 3),
    );
  });

  test('floats round half to even', () => {
    check(reply([4.5, 3.5, 2.5, 1.5, 4.4]), ok([4, 4, 2, 2, 4], 16 / 5));
  });

  test('more floats: 4.6, 4.0, 5.5, 0.4, 0.6', () => {
    check(reply([4.6, 4.0, 5.5, 0.4, 0.6]), ok([5, 4, 5, 0, 1], 15 / 4));
  });

  test('out of range: 7 → 5, 0 and negatives are invalid', () => {
    check(reply([7, 0, -2, 3, 100]), ok([5, 0, 0, 3, 5], 13 / 3));
  });

  test('negative floats are invalid', () => {
    check(reply([-1.5, 4, 4, 4, 4]), ok([0, 4, 4, 4, 4], 4));
  });

  test('strings: "7/5" clamps, "0/5" and "-1/5" are invalid', () => {
    check(
      '{"scores": {"format": "7/5", "factuality": "0/5", "consistency": "-1/5", "realism": "3/5", "quality": "3/5"}}',
      ok([5, 0, 0, 3, 3], 11 / 3),
    );
  });

  /*
   * Score strings as the official script reads them: the text before the
   * first "/" through Python's int(). Each case was worked out against
   * int(s.split("/")[0]); where int() is accidental the chosen reading is
   * marked (see stringScore).
   */
  const stringScores: Array<[text: string, score: number]> = [
    ['4', 4],
    [' 3 ', 3],
    ['4 ', 4],
    ['4/5', 4],
    [' 3 / 5 ', 3],
    ['5/5', 5],
    ['1/5', 1],
    ['2 /5', 2],
    ['1/ 5', 1],
    ['4/', 4],
    ['4/5/5', 4],
    ['04', 4],
    ['+4', 4],
    ['\t4\n', 4],
    ['\r\n 2 \r\n', 2],
    ['\u00a04\u3000', 4], // no-break and ideographic spaces are Python whitespace
    ['3\u0085', 3], // so is NEL (not in JavaScript's trim)
    ['\u001f3', 0], // the separators \x1c-\x1f are str.isspace, yet int() refuses them
    ['\u2028 5 \u2029', 5],
    ['7', 5], // clamped like the integer 7
    ['7/5', 5],
    ['100', 5],
    ['99999999999999999999999', 5],
    ['\uff14', 4], // full-width digits: read, as int() reads them
    ['\uff13 / \uff15', 3],
    ['0', 0],
    ['0/5', 0],
    ['-1', 0], // negatives are invalid, as negative numbers are
    ['-1/5', 0],
    ['-0', 0],
    ['', 0],
    [' ', 0],
    ['/5', 0],
    ['4.5', 0],
    ['4.0', 0],
    ['4.5/5', 0],
    ['four', 0],
    ['four/5', 0],
    ['4 out of 5', 0],
    ['4 5', 0],
    ['4-5', 0],
    ['+-4', 0],
    ['+ 4', 0],
    ['1_0', 0], // int() reads 10 (clamped to 5); not a grade a judge means
    ['1_0/5', 0],
    ['4_', 0],
    ['0x4', 0],
    ['4e0', 0],
    ['\ufeff4', 0], // the BOM is not Python whitespace
    ['\u200b4', 0], // nor is a zero-width space
    ['\u0664', 0], // other scripts' digits: not read (int() reads this Arabic-Indic 4)
    ['Score: 4', 0],
    ['4 (good)', 0],
    ['true', 0],
    ['null', 0],
  ];

  for (const [text, score] of stringScores) {
    test(`the string ${JSON.stringify(text)} reads as ${score}`, () => {
      const json = JSON.stringify(text);
      check(
        `{"scores": {"format": ${json}, "factuality": 2, "consistency": 2, "realism": 2, "quality": 2}}`,
        ok([score, 2, 2, 2, 2], (score + 8) / (score > 0 ? 5 : 4)),
      );
    });
  }

  test('a reply whose five scores are all quoted integers is a success', () => {
    check(
      '{"scores": {"format": "4", "factuality": " 3 ", "consistency": "4/5", "realism": " 3 / 5 ", "quality": "5"}}',
      ok([4, 3, 4, 3, 5], 19 / 5),
    );
  });

  test('a reply whose five scores are all unreadable strings fails', () => {
    check(
      '{"scores": {"format": "4.5", "factuality": "four", "consistency": "4 out of 5", "realism": "", "quality": "1_0"}}',
      noValidDimension,
    );
  });

  test('full-width digits before the slash are read', () => {
    check(
      '{"scores": {"format": "４/5", "factuality": "３ / ５", "consistency": 4, "realism": 4, "quality": 4}}',
      ok([4, 3, 4, 4, 4], 19 / 5),
    );
  });

  test('booleans, null, arrays and objects are invalid', () => {
    check(
      '{"scores": {"format": true, "factuality": false, "consistency": null, "realism": [4], "quality": {"v": 4}}, "x": 1}',
      noValidDimension,
    );
  });

  test('a number too large for a double is invalid', () => {
    check('{"scores": {"format": 1e400, "factuality": 3, "consistency": 3, "realism": 3, "quality": 3}}', ok([0, 3, 3, 3, 3], 3));
  });

  test('missing dimensions: the total is over the present ones', () => {
    check('{"scores": {"format": 5, "quality": 2}}', ok([5, 0, 0, 0, 2], 7 / 2));
  });
});

describe('parseJudgeReply: failures', () => {
  test('empty reply', () => {
    check('', failed('empty reply'));
  });

  test('whitespace-only reply', () => {
    check(' \n\t ', failed('empty reply'));
  });

  test('no JSON at all', () => {
    check('Format: 4/5\nFactuality: 3/5\nOverall solid.', failed('no JSON object'));
  });

  test('every dimension missing', () => {
    check('{"scores": {}, "strengths": ["x"]}', noValidDimension);
  });

  test('every dimension zero', () => {
    check(reply([0, 0, 0, 0, 0]), noValidDimension);
  });

  test('a broken object whose scores object is empty is unreadable, so asked again, as in the official script', () => {
    check('{"strengths": ["a" "b"], "scores": {}}', failed('JSON could not be repaired'));
  });

  test('"scores" missing', () => {
    check('{"format": 4, "factuality": 4, "consistency": 4, "realism": 4, "quality": 4}', failed('scores missing'));
  });

  test('"scores" as an array', () => {
    check('{"scores": [4, 4, 4, 4, 4]}', failed('scores is not an object'));
  });

  test('"scores" as a number or null', () => {
    check('{"scores": 4}', failed('scores is not an object'));
    check('{"scores": null}', failed('scores is not an object'));
  });

  test('strengths and weaknesses of other types become empty lists', () => {
    check(reply([3, 3, 3, 3, 3], ', "strengths": {"a": 1}, "weaknesses": 2'), ok([3, 3, 3, 3, 3], 3));
  });
});

describe('stripThink', () => {
  test('text without tags is unchanged', () => {
    assert.strictEqual(stripThink('  plain <thinking> text  '), '  plain <thinking> text  ');
  });

  test('paired blocks are removed, surrounding whitespace kept', () => {
    assert.strictEqual(stripThink('a <think>x</think> b <THINK>y</think>c'), 'a  b c');
  });

  test('nested blocks are removed as one', () => {
    assert.strictEqual(stripThink('a<think>x<think>y</think>z</think>b'), 'ab');
  });

  test('an orphan close drops everything up to the last orphan', () => {
    assert.strictEqual(stripThink('x</think>y</think>z'), 'z');
  });

  test('an orphan after a closed pair is still an orphan', () => {
    assert.strictEqual(stripThink('<think>a</think>b</think>c<think>d</think>e'), 'ce');
  });

  test('an unclosed block stops at the stop tag, which is kept', () => {
    assert.strictEqual(stripThink('a<think>b<final_evaluation>c', 'final_evaluation'), 'a<final_evaluation>c');
  });

  test('an unclosed block without a stop tag runs to the end', () => {
    assert.strictEqual(stripThink('a<think>b</final_evaluation>c', 'final_evaluation'), 'a');
  });

  test('a custom stop tag, matched case-insensitively', () => {
    assert.strictEqual(
      stripThink('<think>b<final_evaluation>c<PREDICTED_OBSERVATION>d', 'predicted_observation'),
      '<PREDICTED_OBSERVATION>d',
    );
  });

  test('without a stop tag an unclosed block runs to the end', () => {
    assert.strictEqual(stripThink('a<think>b<final_evaluation>c'), 'a');
  });

  test('with several unclosed blocks the cut starts at the first', () => {
    assert.strictEqual(stripThink('a<think>b<think>c<final_evaluation>d', 'final_evaluation'), 'a<final_evaluation>d');
  });

  test('each open takes the first free close after it, as the official script pairs them', () => {
    // The outer open takes the only close, so the inner one is the unclosed block: it stops at
    // the stop tag inside the removed pair, and the text after the close is kept.
    assert.strictEqual(
      stripThink('a<think>b<think><final_evaluation>c</think>d<final_evaluation>e', 'final_evaluation'),
      'ad<final_evaluation>e',
    );
    assert.strictEqual(
      stripThink('<think>a<think>b<final_evaluation>fake</final_evaluation></think> {"x": 1}', 'final_evaluation'),
      ' {"x": 1}',
    );
  });

  test('a close before every open is an orphan even when opens follow', () => {
    assert.strictEqual(stripThink('x</think>y<think>z</think>w'), 'yw');
  });
});
