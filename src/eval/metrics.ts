/**
 * Scores: HotpotQA exact match and F1, FEVER label accuracy.
 *
 * Source: the official HotpotQA evaluation script `hotpot_evaluate_v1.py` (`normalize_answer`,
 * `exact_match_score`, `f1_score`), which the ReAct paper uses for HotpotQA (Yao et al. 2022, section 3.2),
 * and ReAct's `wrappers.py`, whose FEVER reward compares normalised answers in the same way.
 *
 * @module
 */

/** ASCII punctuation, exactly Python's `string.punctuation` (the official script removes only these). */
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
/** `\b(a|an|the)\b` with Python 3's Unicode word characters (letters, numbers, `_`), not JS's ASCII `\b`. */
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
/** The characters Python's `str.split()` splits on (its Unicode whitespace), which differ from JS `\s`. */
const PY_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/**
 * HotpotQA's answer normalisation: lower case, remove ASCII punctuation, replace the articles a / an / the
 * (whole words) with a space, then squeeze whitespace. Non-ASCII punctuation (curly quotes, dashes) is kept,
 * as in the official script.
 *
 * @example
 * ```ts
 * normalizeAnswer('The  Saimaa Gesture!'); // 'saimaa gesture'
 * ```
 */
export function normalizeAnswer(text: string): string {
  const lower = text.toLowerCase();
  let unpunctuated = '';
  for (const ch of lower) if (!PUNCTUATION.has(ch)) unpunctuated += ch;
  return unpunctuated
    .replace(ARTICLES, ' ')
    .split(PY_WHITESPACE)
    .filter((token) => token !== '')
    .join(' ');
}

/** Exact match after {@link normalizeAnswer}: 1 or 0. A missing prediction (`null`) scores 0. */
export function exactMatch(prediction: string | null, gold: string): 0 | 1 {
  if (prediction === null) return 0;
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

/** Token-level precision, recall and F1 between a prediction and the gold answer. */
export interface F1Score {
  f1: number;
  precision: number;
  recall: number;
}

const ZERO: F1Score = { f1: 0, precision: 0, recall: 0 };
const SPECIAL = new Set(['yes', 'no', 'noanswer']);

/**
 * HotpotQA's F1 over normalised tokens. As in the official script, `yes` / `no` / `noanswer` on either
 * side score 0 unless both sides are equal, and no shared token (including two empty answers) scores 0.
 * A missing prediction (`null`) scores 0.
 */
export function f1Score(prediction: string | null, gold: string): F1Score {
  if (prediction === null) return ZERO;
  const predicted = normalizeAnswer(prediction);
  const expected = normalizeAnswer(gold);
  if ((SPECIAL.has(predicted) || SPECIAL.has(expected)) && predicted !== expected) return ZERO;
  const predictedTokens = predicted.split(' ').filter((t) => t !== '');
  const expectedTokens = expected.split(' ').filter((t) => t !== '');
  const counts = new Map<string, number>();
  for (const token of expectedTokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  let same = 0;
  for (const token of predictedTokens) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      same += 1;
      counts.set(token, left - 1);
    }
  }
  if (same === 0) return ZERO;
  const precision = same / predictedTokens.length;
  const recall = same / expectedTokens.length;
  return { f1: (2 * precision * recall) / (precision + recall), precision, recall };
}

/** The three FEVER labels. */
export const FEVER_LABELS = ['SUPPORTS', 'REFUTES', 'NOT ENOUGH INFO'] as const;
/** A FEVER label. */
export type FeverLabel = (typeof FEVER_LABELS)[number];

/**
 * The FEVER label an answer names, compared after {@link normalizeAnswer} (so `Supports.` and
 * `supports` count, as in ReAct's FEVER reward), or `undefined` when it names none.
 */
export function feverLabel(answer: string | null): FeverLabel | undefined {
  if (answer === null) return undefined;
  const normalized = normalizeAnswer(answer);
  return FEVER_LABELS.find((label) => normalizeAnswer(label) === normalized);
}

/** FEVER label accuracy for one claim: 1 when the answer names the gold label, else 0. */
export function labelAccuracy(prediction: string | null, gold: string): 0 | 1 {
  const label = feverLabel(prediction);
  return label !== undefined && label === feverLabel(gold) ? 1 : 0;
}
