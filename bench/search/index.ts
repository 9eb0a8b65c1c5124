/**
 * search: query latency of the `search` tool's BM25 index (`DocumentIndex`) against MiniSearch used directly
 * at its best (see `miniSearchIndex`) and against a naive word-overlap scan, on 10,000 and 100,000 generated
 * passages, plus the index build time and the time to load a saved index (the on-disk cache) at 100,000;
 * then, at 1,000,000 passages, against taoloop's own index as it was before issue 30 (MiniSearch, which
 * scores and sorts every matching passage and keeps the best 2; see `beforeIssue30`), with both build
 * times. Report on stderr, figures on stdout. The 1M case takes about 3 minutes and 3.2 GB of memory (one
 * 1M index at a time), hence this script's longer limit in `bench/run.ts` (`SCRIPT_LIMITS_S`).
 *
 * Text: a seeded PRNG draws words from a 5,000-word vocabulary with a Zipf distribution (exponent 1); the
 * most frequent ranks are real English function words (the stop words the tokenizer drops), the rest
 * made-up syllable words, so term statistics look like English. Passages are 25 to 60 words in sentences
 * (at 1M too); documents hold 10 passages each, separated by blank lines. Queries: 2 to 5 words drawn the
 * same way, each with at least one word that is not a stop word. At 1M, only the first `MILLION_QUERIES`
 * queries are timed (the index before issue 30 takes over 100 ms for each).
 *
 * Naive scan: each passage tokenized once, up front, with the same tokenizer (`tokenizeText` +
 * `processTerm`) into a set of terms; a query scores every passage by how many distinct query terms it
 * contains, and keeps the best 2 (earliest first on ties). So the two sides differ only in the
 * algorithm: an inverted index with BM25+ ranking against a linear scan with overlap counts.
 *
 * Run: `npm run bench -- search` (or `node --import tsx bench/search/index.ts`).
 */

import MiniSearch from 'minisearch';
import { mulberry32 } from '../../scripts/lib/mulberry32.js';
import {
  DEFAULT_MIN_RELATIVE_SCORE,
  DocumentIndex,
  type SearchHit,
  type SourceDocument,
} from '../../src/tools/search-index.js';
import { processTerm, splitPassages, tokenizeText } from '../../src/tools/search-text.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';

const COMMAND = 'npm run bench -- search';
const NAIVE = 'naive word-overlap scan (pre-tokenized, same tokenizer)';
const VOCABULARY_SIZE = 5000;
const PASSAGES_PER_DOC = 10;
const QUERY_COUNT = 200;
const TOP_K = 2;
/** The MiniSearch the peer figures use directly, and that taoloop's index was built on before issue 30. */
const MINISEARCH_VERSION = '7.2.0';
/** Queries timed at 1M passages (the first of the same queries). */
const MILLION_QUERIES = 100;
/** The goal of issue 30: query time at 1M passages at most this fraction of the index before it. */
const MILLION_GOAL = 0.25;
const BEFORE_ISSUE_30 = `taoloop before issue 30: MiniSearch ${MINISEARCH_VERSION} scores and sorts every match`;

const log = (line = '') => process.stderr.write(`${line}\n`);
const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

// The most frequent English words, in rough frequency order: the top Zipf ranks, as in real text.
const FUNCTION_WORDS = (
  'the of and to a in is it you that he was for on are with as his they be at one have this from or ' +
  'had by but what some we can out other were all there when up use your how said an each she which do ' +
  'their if will way about many then them would so these her him has more could no into did our'
).split(' ');

interface Vocabulary {
  words: string[];
  /** Cumulative Zipf weights, normalized to end at 1. */
  cumulative: Float64Array;
}

function makeVocabulary(random: () => number): Vocabulary {
  const onsets = ['b', 'br', 'c', 'ch', 'd', 'f', 'g', 'gr', 'h', 'k', 'l', 'm', 'n', 'p', 'pl', 'r'];
  const more = ['s', 'st', 't', 'tr', 'v', 'w', 'z', 'th', 'sh', 'qu'];
  const nuclei = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
  const codas = ['', '', 'n', 'r', 'l', 'm', 'nd', 'rt', 'ck'];
  const pick = (list: readonly string[]) => list[Math.floor(random() * list.length)] ?? '';
  const words = [...FUNCTION_WORDS];
  const seen = new Set(words);
  while (words.length < VOCABULARY_SIZE) {
    const syllables = 1 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < syllables; i++) word += pick([...onsets, ...more]) + pick(nuclei) + pick(codas);
    if (word.length >= 3 && !seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  const cumulative = new Float64Array(VOCABULARY_SIZE);
  let total = 0;
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  for (let rank = 0; rank < VOCABULARY_SIZE; rank++) cumulative[rank] = (cumulative[rank] ?? 0) / total;
  return { words, cumulative };
}

function drawWord(vocabulary: Vocabulary, random: () => number): string {
  const u = random();
  let lo = 0;
  let hi = VOCABULARY_SIZE - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((vocabulary.cumulative[mid] ?? 1) < u) lo = mid + 1;
    else hi = mid;
  }
  return vocabulary.words[lo] ?? '';
}

function makePassage(vocabulary: Vocabulary, random: () => number): string {
  const length = 25 + Math.floor(random() * 36);
  const sentences: string[] = [];
  for (let written = 0; written < length; ) {
    const n = Math.min(6 + Math.floor(random() * 9), length - written);
    const words = Array.from({ length: n }, () => drawWord(vocabulary, random));
    const sentence = words.join(' ');
    sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
    written += n;
  }
  return sentences.join(' ');
}

function makeDocuments(passages: number, vocabulary: Vocabulary, random: () => number): SourceDocument[] {
  const docs: SourceDocument[] = [];
  for (let d = 0; d * PASSAGES_PER_DOC < passages; d++) {
    const count = Math.min(PASSAGES_PER_DOC, passages - d * PASSAGES_PER_DOC);
    const text = Array.from({ length: count }, () => makePassage(vocabulary, random)).join('\n\n');
    docs.push({ id: `doc-${d}.md`, text });
  }
  return docs;
}

const terms = (text: string) => tokenizeText(text).flatMap((t) => processTerm(t) ?? []);

function makeQueries(vocabulary: Vocabulary, random: () => number): string[] {
  const queries: string[] = [];
  while (queries.length < QUERY_COUNT) {
    const n = 2 + Math.floor(random() * 4);
    const query = Array.from({ length: n }, () => drawWord(vocabulary, random)).join(' ');
    if (terms(query).length > 0) queries.push(query);
  }
  return queries;
}

interface NaivePassage {
  key: string;
  terms: Set<string>;
}

/** The naive side's up-front work: split into passages, tokenize each once into a set of terms. */
function naiveTokenize(docs: readonly SourceDocument[]): NaivePassage[] {
  const passages: NaivePassage[] = [];
  for (const doc of docs) {
    splitPassages(doc.text).forEach((text, i) => {
      passages.push({ key: `${doc.id}#${i}`, terms: new Set(terms(text)) });
    });
  }
  return passages;
}

interface NaiveResult {
  keys: string[];
  /** Every passage with the best overlap count: the naive scan cannot tell them apart. */
  bestTies: Set<string>;
}

function naiveSearch(passages: readonly NaivePassage[], query: string): NaiveResult {
  const wanted = [...new Set(terms(query))];
  const top: { key: string; score: number }[] = [];
  let best = 0;
  let bestTies = new Set<string>();
  for (const passage of passages) {
    let score = 0;
    for (const term of wanted) if (passage.terms.has(term)) score++;
    if (score === 0) continue;
    if (score > best) {
      best = score;
      bestTies = new Set([passage.key]);
    } else if (score === best) bestTies.add(passage.key);
    if (top.length < TOP_K || score > (top[top.length - 1]?.score ?? 0)) {
      top.push({ key: passage.key, score });
      top.sort((a, b) => b.score - a.score); // stable: earlier passages stay first on ties
      if (top.length > TOP_K) top.pop();
    }
  }
  return { keys: top.map((hit) => hit.key), bestTies };
}

/** Runs `fn` once per query and returns the mean milliseconds per query, after a short warm-up. */
function timePerQuery<T>(queries: readonly string[], fn: (query: string) => T): { ms: number; results: T[] } {
  for (const query of queries.slice(0, 5)) fn(query);
  const started = performance.now();
  const results = queries.map(fn);
  return { ms: (performance.now() - started) / queries.length, results };
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = fn();
  return { ms: performance.now() - started, value };
}

interface SizeReport {
  passages: number;
  buildMs: number;
  naiveTokenizeMs: number;
  index: DocumentIndex;
}

/**
 * MiniSearch at its best for the same job, as its documentation shows: one document per passage (the same
 * passages), stop words dropped by a `processTerm` (the same one taoloop uses; with MiniSearch's default
 * every query word like "the" matches nearly every passage, 290 ms a query at 100k), BM25+ ranking, and
 * the best 2 of `search(query)`.
 */
function miniSearchIndex(docs: readonly SourceDocument[]): MiniSearch<{ id: string; text: string }> {
  const engine = new MiniSearch<{ id: string; text: string }>({
    fields: ['text'],
    storeFields: ['text'],
    processTerm: (term) => processTerm(term) ?? null,
  });
  engine.addAll(
    docs.flatMap((doc) => splitPassages(doc.text).map((text, i) => ({ id: `${doc.id}#${i}`, text }))),
  );
  return engine;
}

function benchSize(label: string, docs: readonly SourceDocument[], queries: readonly string[]): SizeReport {
  const peer = miniSearchIndex(docs);
  const peerQuery = timePerQuery(queries, (query) => peer.search(query).slice(0, TOP_K));
  const build = timed(() => DocumentIndex.fromDocuments(docs));
  const naive = timed(() => naiveTokenize(docs));
  const index = build.value;
  if (index.size !== naive.value.length) throw new Error('the two sides see different passages');
  const bm25 = timePerQuery(queries, (query) => index.search(query, TOP_K));
  const scan = timePerQuery(queries, (query) => naiveSearch(naive.value, query));
  let answered = 0;
  let sameTop = 0;
  let topAmongTies = 0;
  queries.forEach((_, i) => {
    const ours = bm25.results[i]?.[0];
    const theirs = scan.results[i];
    if (ours === undefined || theirs === undefined) return;
    answered++;
    const key = `${ours.id}#${ours.passage}`;
    if (theirs.keys[0] === key) sameTop++;
    if (theirs.bestTies.has(key)) topAmongTies++;
  });
  const speedup = scan.ms / bm25.ms;
  log(`${label}: ${index.size} passages, ${queries.length} queries (${answered} with a match)`);
  log(`  query: BM25 ${round(bm25.ms)} ms, naive scan ${round(scan.ms)} ms -> ${round(speedup, 1)}x faster`);
  log(`  build: BM25 index ${round(build.ms, 0)} ms, naive tokenization ${round(naive.ms, 0)} ms`);
  log(`  top-1 agreement with the naive scan: ${sameTop}/${answered} identical;`);
  log(`  BM25's top-1 has the best overlap count in ${topAmongTies}/${answered}`);
  log(`  (the naive scan's ties, broken by position, explain most of the difference)`);
  emitFigure({
    figure: `search query latency, ${label} passages (taoloop BM25)`,
    value: round(bm25.ms),
    unit: 'ms',
    against: 'naive',
    baseline: NAIVE,
    baselineValue: round(scan.ms),
    ratio: round(ratioOf(bm25.ms, scan.ms) ?? 0),
    command: COMMAND,
  });
  log(`  query: MiniSearch ${MINISEARCH_VERSION} at its best (stop words dropped) ${round(peerQuery.ms)} ms`);
  emitFigure({
    figure: `search query latency, ${label} passages (taoloop BM25)`,
    value: round(bm25.ms),
    unit: 'ms',
    against: 'peer',
    baseline: `MiniSearch ${MINISEARCH_VERSION} used directly, stop words dropped, the best ${TOP_K} of search()`,
    baselineValue: round(peerQuery.ms),
    ratio: round(ratioOf(bm25.ms, peerQuery.ms) ?? 0),
    command: COMMAND,
  });
  return { passages: index.size, buildMs: build.ms, naiveTokenizeMs: naive.ms, index };
}

function benchCacheLoad(report: SizeReport): void {
  const saved = timed(() => report.index.serialize());
  const loaded = timed(() => DocumentIndex.deserialize(saved.value));
  const mb = (saved.value.passagesJson.length + saved.value.engineJson.length) / 1e6;
  log(`  saved index: ${round(mb, 1)} MB of JSON, serialize ${round(saved.ms, 0)} ms,`);
  log(`  load ${round(loaded.ms, 0)} ms (the on-disk cache's work, without the disk)`);
  if (loaded.value.size !== report.passages) throw new Error('the loaded index lost passages');
  emitFigure({
    figure: 'search index load from cache, 100k passages (taoloop)',
    value: round(loaded.ms, 1),
    unit: 'ms',
    against: 'self',
    baseline: 'building the same index (taoloop BM25)',
    baselineValue: round(report.buildMs, 1),
    ratio: round(ratioOf(loaded.ms, report.buildMs) ?? 0),
    command: COMMAND,
  });
}

interface Searcher {
  search(query: string, topK: number): SearchHit[];
}

/**
 * taoloop's `DocumentIndex` as it was before issue 30, rebuilt here as it was: MiniSearch with the same
 * tokenizer and `processTerm`, one document per passage, whose `search(query)` scores every matching
 * passage and sorts them all; the best `topK` are kept, then those under 0.3 of the best are dropped.
 */
function beforeIssue30(docs: readonly SourceDocument[]): Searcher {
  const passages = docs.flatMap((doc) =>
    splitPassages(doc.text).map((text, passage) => ({ id: doc.id, passage, text })),
  );
  const engine = new MiniSearch<{ key: number; text: string }>({
    idField: 'key',
    fields: ['text'],
    tokenize: tokenizeText,
    processTerm,
    searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
  });
  engine.addAll(passages.map((p, key) => ({ key, text: p.text })));
  return {
    search(query, topK) {
      const results = engine.search(query);
      const best = results[0]?.score ?? 0;
      const hits: SearchHit[] = [];
      for (const result of results.slice(0, topK)) {
        const p = passages[result.id as number];
        if (p === undefined || result.score < best * DEFAULT_MIN_RELATIVE_SCORE) continue;
        hits.push({ ...p, score: result.score });
      }
      return hits;
    },
  };
}

/** Builds the index before issue 30 and times its queries; the index is garbage once this returns. */
function timeBeforeIssue30(docs: readonly SourceDocument[], queries: readonly string[]) {
  const built = timed(() => beforeIssue30(docs));
  return { buildMs: built.ms, query: timePerQuery(queries, (query) => built.value.search(query, TOP_K)) };
}

/**
 * 1M passages: taoloop's index (top-2 by MaxScore) against itself before issue 30. One side is built,
 * timed and dropped before the other is built, so that only one 1M index is in memory at a time.
 */
function benchMillion(vocabulary: Vocabulary, random: () => number, allQueries: readonly string[]): void {
  const queries = allQueries.slice(0, MILLION_QUERIES);
  const generated = timed(() => makeDocuments(1_000_000, vocabulary, random));
  const docs = generated.value;
  log(`1M: ${docs.length} documents generated in ${round(generated.ms / 1000, 1)} s`);
  const before = timeBeforeIssue30(docs, queries);
  const build = timed(() => DocumentIndex.fromDocuments(docs));
  const index = build.value;
  const ours = timePerQuery(queries, (query) => index.search(query, TOP_K));
  const scores = (hits: readonly SearchHit[] | undefined) => (hits ?? []).map((hit) => hit.score).join();
  const same = queries.filter((_, i) => scores(ours.results[i]) === scores(before.query.results[i])).length;
  const ratio = ratioOf(ours.ms, before.query.ms) ?? 0;
  log(`1M: ${index.size} passages, ${queries.length} queries`);
  log(`  query: taoloop top-${TOP_K} ${round(ours.ms)} ms, before issue 30 ${round(before.query.ms)} ms`);
  log(
    `  build: taoloop ${round(build.ms / 1000, 1)} s, before issue 30 ${round(before.buildMs / 1000, 1)} s`,
  );
  log(`  same top-${TOP_K} scores as before issue 30: ${same}/${queries.length} queries`);
  if (same !== queries.length) throw new Error('taoloop and its index before issue 30 disagree');
  emitFigure({
    figure: `search query latency, 1M passages (taoloop BM25 top-${TOP_K})`,
    value: round(ours.ms),
    unit: 'ms',
    against: 'self',
    baseline: BEFORE_ISSUE_30,
    baselineValue: round(before.query.ms),
    ratio: round(ratio),
    command: COMMAND,
    goal: `<= ${MILLION_GOAL}x before issue 30`,
    met: ratio <= MILLION_GOAL,
  });
  emitFigure({
    figure: 'search index build, 1M passages (taoloop BM25)',
    value: round(build.ms, 1),
    unit: 'ms',
    against: 'self',
    baseline: BEFORE_ISSUE_30,
    baselineValue: round(before.buildMs, 1),
    ratio: round(ratioOf(build.ms, before.buildMs) ?? 0),
    command: COMMAND,
  });
}

function main(): void {
  const started = performance.now();
  const random = mulberry32(20_240_611);
  const vocabulary = makeVocabulary(random);
  const queries = makeQueries(vocabulary, random);
  const small = benchSize('10k', makeDocuments(10_000, vocabulary, random), queries);
  log();
  const large = benchSize('100k', makeDocuments(100_000, vocabulary, random), queries);
  emitFigure({
    figure: 'search index build, 100k passages (taoloop BM25)',
    value: round(large.buildMs, 1),
    unit: 'ms',
    against: 'naive',
    baseline: 'naive tokenization into term sets',
    baselineValue: round(large.naiveTokenizeMs, 1),
    ratio: round(ratioOf(large.buildMs, large.naiveTokenizeMs) ?? 0),
    command: COMMAND,
  });
  benchCacheLoad(large);
  log();
  benchMillion(vocabulary, random, queries);
  log();
  log(`ratio column = taoloop / baseline (bench protocol): below 1 means taoloop is faster.`);
  log(
    `done in ${round((performance.now() - started) / 1000, 1)} s (10k build ${round(small.buildMs, 0)} ms)`,
  );
}

main();
