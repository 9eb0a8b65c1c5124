/**
 * Building the data of a `Bm25Index` (bm25-topk.ts): one pass over the passages, tokenized with `tokenizeText` and
 * `processTerm` as MiniSearch would (a passage's length is its number of distinct raw tokens, stop words
 * included), then the postings laid out term by term, passage numbers ascending.
 *
 * @module
 */

import { processTerm, tokenizeText } from './search-text.js';

/** Tokenizes and indexes `texts` for a `Bm25Index` (bm25-topk.ts); passage `i` is `texts[i]`. */
export function buildBm25Data(texts: readonly string[]): Bm25Data {
  const n = texts.length;
  const lengths = new Uint32Array(n);
  const terms: string[] = [];
  const termIds = new Map<string, number>();
  const tokenIds = new Map<string, number>(); // raw token -> its number
  // Per raw token: its term id + 1 (0: dropped) and the last passage + 1 it was counted in.
  let tokenTerm: Uint32Array = new Uint32Array(1024);
  let tokenSeen: Uint32Array = new Uint32Array(1024);
  // Per term: its document frequency, the last passage + 1 it was seen in, its frequency there.
  let df: Uint32Array = new Uint32Array(1024);
  let termSeen: Uint32Array = new Uint32Array(1024);
  let termFreq: Uint32Array = new Uint32Array(1024);
  let pairTerms: Uint32Array = new Uint32Array(4096);
  let pairFreqs: Uint32Array = new Uint32Array(4096);
  let pairs = 0;
  const docEnds = new Uint32Array(n);
  const passageTerms: number[] = [];
  const termId = (term: string | null): number => {
    if (!term) return -1; // dropped, as MiniSearch drops a falsy processTerm result
    let id = termIds.get(term);
    if (id === undefined) {
      id = terms.push(term) - 1;
      termIds.set(term, id);
      if (id >= df.length) {
        df = grow(df, id + 1);
        termSeen = grow(termSeen, id + 1);
        termFreq = grow(termFreq, id + 1);
      }
    }
    return id;
  };
  for (let d = 0; d < n; d++) {
    const stamp = d + 1;
    let distinct = 0; // distinct raw tokens, stop words included: MiniSearch's field length
    passageTerms.length = 0;
    for (const token of tokenizeText(texts[d]!)) {
      let raw = tokenIds.get(token);
      if (raw === undefined) {
        raw = tokenIds.size;
        tokenIds.set(token, raw);
        if (raw >= tokenTerm.length) {
          tokenTerm = grow(tokenTerm, raw + 1);
          tokenSeen = grow(tokenSeen, raw + 1);
        }
        tokenTerm[raw] = termId(processTerm(token)) + 1;
      }
      if (tokenSeen[raw] !== stamp) {
        tokenSeen[raw] = stamp;
        distinct++;
      }
      const id = tokenTerm[raw]! - 1;
      if (id < 0) continue;
      if (termSeen[id] !== stamp) {
        termSeen[id] = stamp;
        termFreq[id] = 0;
        passageTerms.push(id);
      }
      termFreq[id]!++;
    }
    lengths[d] = distinct;
    if (pairs + passageTerms.length > pairTerms.length) {
      pairTerms = grow(pairTerms, pairs + passageTerms.length);
      pairFreqs = grow(pairFreqs, pairs + passageTerms.length);
    }
    for (const id of passageTerms) {
      pairTerms[pairs] = id;
      pairFreqs[pairs++] = termFreq[id]!;
      df[id]!++;
    }
    docEnds[d] = pairs;
  }
  const offsets = new Uint32Array(terms.length + 1);
  for (let t = 0; t < terms.length; t++) offsets[t + 1] = offsets[t]! + df[t]!;
  const next = offsets.slice(0, terms.length);
  const docs = new Uint32Array(pairs);
  const freqs = new Uint32Array(pairs);
  for (let d = 0, p = 0; d < n; d++) {
    for (; p < docEnds[d]!; p++) {
      const at = next[pairTerms[p]!]!++;
      docs[at] = d;
      freqs[at] = pairFreqs[p]!;
    }
  }
  return { lengths, terms, offsets, docs, freqs };
}

function grow(array: Uint32Array, atLeast: number): Uint32Array {
  const bigger = new Uint32Array(Math.max(atLeast, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** The stored part of a `Bm25Index` (bm25-topk.ts); everything else is derived from it. */
export interface Bm25Data {
  /** Per passage: its number of distinct tokens (MiniSearch's field length). */
  lengths: Uint32Array;
  /** The indexed terms; a term's id is its position here. */
  terms: readonly string[];
  /** Term `t`'s postings are `docs` and `freqs` from `offsets[t]` to `offsets[t + 1]`. */
  offsets: Uint32Array;
  /** Passage numbers, strictly ascending within each term's postings. */
  docs: Uint32Array;
  /** Term frequencies, at least 1, parallel to `docs`. */
  freqs: Uint32Array;
}
