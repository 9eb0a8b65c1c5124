/**
 * The scores against known values: HotpotQA's normalize_answer / EM / F1 (hotpot_evaluate_v1.py) and FEVER
 * label accuracy. The normalisation cases were checked against the official Python function.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exactMatch, f1Score, feverLabel, labelAccuracy, normalizeAnswer } from '../../src/eval/metrics.js';

describe('normalizeAnswer (hotpot_evaluate_v1.normalize_answer)', () => {
  const cases: [string, string][] = [
    ['The Saimaa Gesture', 'saimaa gesture'],
    ['  An   apple a day ', 'apple day'],
    ['the', ''],
    ['', ''],
    ['   ', ''],
    // Articles go only as whole words: "theatre", "another", "ban", "a1" stay.
    ['theatre another ban a1', 'theatre another ban a1'],
    // Punctuation is removed before articles, so "the-end" becomes "theend" and "a.m." becomes "am".
    ['the-end', 'theend'],
    ['a.m.', 'am'],
    // An article between punctuation: "(a)" → "a" → removed.
    ['(a) b', 'b'],
    ["Arthur's Magazine!", 'arthurs magazine'],
    ['1,800 to 7,000 ft', '1800 to 7000 ft'],
    ['under_score', 'underscore'],
    // Unicode: lower-cased; non-ASCII punctuation kept (the script removes string.punctuation only).
    ['Café Ünïcode', 'café ünïcode'],
    // ...and an article between curly quotes is still a whole word, so it goes.
    ['“The” Beatles — band', '“ ” beatles — band'],
    // Python's \b is Unicode-aware: "the" inside "éthe" or "theé" is not a word, "the" after "é " is.
    ['éthe theé é the x', 'éthe theé é x'],
    // Python's str.split() squeezes Unicode whitespace (no-break space, ideographic space).
    ['New\u00a0York\u3000City', 'new york city'],
    ['line\nbreak\ttab', 'line break tab'],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.equal(normalizeAnswer(input), expected));
  }
});

describe('exactMatch', () => {
  test('equal after normalisation', () => {
    assert.equal(exactMatch('the Saimaa gesture.', 'The Saimaa Gesture'), 1);
    assert.equal(exactMatch('Yes', 'yes'), 1);
    assert.equal(exactMatch('Saimaa', 'The Saimaa Gesture'), 0);
  });
  test('empty and missing answers', () => {
    assert.equal(exactMatch('', ''), 1);
    assert.equal(exactMatch('the', ''), 1);
    assert.equal(exactMatch('', 'Paris'), 0);
    assert.equal(exactMatch(null, 'Paris'), 0);
  });
});

describe('f1Score', () => {
  test('partial overlap: precision 1/2, recall 1/3, F1 0.4', () => {
    const score = f1Score('Richard Milhous', 'President Richard Nixon');
    assert.equal(score.precision, 0.5);
    assert.ok(Math.abs(score.recall - 1 / 3) < 1e-12);
    assert.ok(Math.abs(score.f1 - 0.4) < 1e-12);
  });
  test('articles and punctuation do not count as tokens', () => {
    assert.equal(f1Score('The director.', 'director, screenwriter, actor').f1, 0.5);
  });
  test('repeated tokens count as often as they appear on both sides', () => {
    // prediction "a a b" → tokens [b] (articles gone); use non-articles: "x x y" vs "x y y".
    const score = f1Score('x x y', 'x y y');
    assert.ok(Math.abs(score.f1 - 2 / 3) < 1e-12);
  });
  test('yes / no / noanswer score 0 unless equal', () => {
    assert.equal(f1Score('yes', 'no').f1, 0);
    assert.equal(f1Score('yes it is', 'yes').f1, 0);
    assert.equal(f1Score('Yes.', 'yes').f1, 1);
    assert.equal(f1Score('noanswer', 'no answer').f1, 0);
  });
  test('no shared token, empty answers and a missing answer score 0', () => {
    assert.equal(f1Score('Paris', 'London').f1, 0);
    assert.equal(f1Score('', '').f1, 0);
    assert.equal(f1Score('the', 'a').f1, 0);
    assert.equal(f1Score(null, 'London').f1, 0);
  });
  test('exact answers score 1', () => {
    assert.deepEqual(f1Score('1,800 to 7,000 ft', '1800 to 7000 ft'), { f1: 1, precision: 1, recall: 1 });
  });
});

describe('FEVER label accuracy', () => {
  test('labels are read after normalisation', () => {
    assert.equal(feverLabel('SUPPORTS'), 'SUPPORTS');
    assert.equal(feverLabel('refutes.'), 'REFUTES');
    assert.equal(feverLabel('Not enough info'), 'NOT ENOUGH INFO');
    assert.equal(feverLabel('NOT ENOUGH INFORMATION'), undefined);
    assert.equal(feverLabel('true'), undefined);
    assert.equal(feverLabel(null), undefined);
  });
  test('1 only for the gold label', () => {
    assert.equal(labelAccuracy('REFUTES', 'REFUTES'), 1);
    assert.equal(labelAccuracy('SUPPORTS', 'REFUTES'), 0);
    assert.equal(labelAccuracy('', 'NOT ENOUGH INFO'), 0);
    assert.equal(labelAccuracy(null, 'SUPPORTS'), 0);
  });
});
