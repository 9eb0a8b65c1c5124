/**
 * The search index's own BM25 top-k (`src/tools/bm25-topk.ts`, MaxScore) against MiniSearch 7.2.0 scoring
 * every match, with the options `DocumentIndex` used before it had an index of its own: same passages,
 * same scores (within 1e-9 relative; in fact bit for bit) and the same best `k` under the documented order
 * (higher score first, then the passage indexed first). Plus the saved form: round trip and corrupt saves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import MiniSearch from 'minisearch';
import { Bm25Index } from '../../src/tools/bm25-topk.js';
import { DocumentIndex, type SearchHit, type SourceDocument } from '../../src/tools/search-index.js';
import { processTerm, splitPassages, tokenizeText } from '../../src/tools/search-text.js';
import { mulberry32 } from '../../src/util/mulberry32.js';

// Stop words, single letters, plurals, numbers with digit grouping, accents, capitals.
const VOCABULARY = (
  'cat cats dog dogs policy policies box boxes refund refunds bird fish river lantern amber falcon ' +
  'copper harbor meadow quartz violet zebra Zebra café 42 5,000 x the of and is to what how a'
).split(' ');

interface Corpus {
  docs: SourceDocument[];
  /** `${id}#${passage}` -> position in the index. */
  keys: Map<string, number>;
  passages: string[];
}

function makeCorpus(random: () => number, maxDocs: number): Corpus {
  const word = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2)] ?? 'cat'; // skewed
  const docs: SourceDocument[] = [];
  const count = Math.floor(random() * (maxDocs + 1));
  for (let d = 0; d < count; d++) {
    const paragraphs: string[] = [];
    const n = 1 + Math.floor(random() * 4);
    for (let p = 0; p < n; p++) {
      const words = Array.from({ length: Math.floor(random() * 25) }, word);
      paragraphs.push((random() < 0.1 ? `# ${word()}\n` : '') + words.join(random() < 0.5 ? ' ' : ', '));
    }
    docs.push({ id: `doc-${d}`, text: paragraphs.join('\n\n') });
  }
  const keys = new Map<string, number>();
  const passages: string[] = [];
  for (const doc of docs) {
    splitPassages(doc.text).forEach((text, i) => {
      keys.set(`${doc.id}#${i}`, passages.length);
      passages.push(text);
    });
  }
  return { docs, keys, passages };
}

function makeQuery(random: () => number): string {
  const n = 1 + Math.floor(random() * 6);
  return Array.from({ length: n }, () =>
    random() < 0.1 ? 'unknownword' : (VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? ''),
  ).join(' ');
}

/** taoloop before issue 30: MiniSearch with the options DocumentIndex gave it. */
function miniSearchOf(passages: readonly string[]) {
  const engine = new MiniSearch<{ key: number; text: string }>({
    idField: 'key',
    fields: ['text'],
    tokenize: tokenizeText,
    processTerm,
    searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
  });
  engine.addAll(passages.map((text, key) => ({ key, text })));
  return (query: string, k: number) =>
    engine
      .search(query)
      .map((result) => ({ key: result.id as number, score: result.score }))
      .sort((a, b) => b.score - a.score || a.key - b.key)
      .slice(0, k);
}

function assertSame(
  corpus: Corpus,
  ours: readonly SearchHit[],
  theirs: readonly { key: number; score: number }[],
  what: string,
) {
  assert.deepEqual(
    ours.map((hit) => corpus.keys.get(`${hit.id}#${hit.passage}`)),
    theirs.map((hit) => hit.key),
    what,
  );
  ours.forEach((hit, i) => {
    const expected = theirs[i]?.score ?? Number.NaN;
    assert.ok(
      Math.abs(hit.score - expected) <= 1e-9 * Math.abs(expected),
      `${what}: ${hit.score} vs ${expected}`,
    );
    assert.equal(hit.text, corpus.passages[theirs[i]?.key ?? -1]);
  });
}

const KS = [1, 2, 2, 3, 5, 10, 10_000];

describe('BM25 top-k (MaxScore) against MiniSearch scoring every match', () => {
  it('gives the same best k, in order, with the same scores, on random corpora and queries', () => {
    const random = mulberry32(304);
    for (let round = 0; round < 60; round++) {
      const corpus = makeCorpus(random, round % 10 === 9 ? 400 : 40);
      const index = DocumentIndex.fromDocuments(corpus.docs);
      assert.equal(index.size, corpus.passages.length);
      const reference = miniSearchOf(corpus.passages);
      for (let q = 0; q < 40; q++) {
        const query = makeQuery(random);
        const k = KS[Math.floor(random() * KS.length)] ?? 2;
        const what = `round ${round}, query "${query}", k ${k}`;
        assertSame(corpus, index.search(query, k, { minRelativeScore: 0 }), reference(query, k), what);
        // The default minRelativeScore, relative to the best hit, as before.
        const kept = reference(query, k).filter((hit, _, all) => hit.score >= (all[0]?.score ?? 0) * 0.3);
        assertSame(corpus, index.search(query, k), kept, `${what}, default minRelativeScore`);
      }
    }
  });

  it('counts a duplicated query term each time, as MiniSearch does', () => {
    const random = mulberry32(7);
    const corpus = makeCorpus(random, 200);
    const index = DocumentIndex.fromDocuments(corpus.docs);
    const reference = miniSearchOf(corpus.passages);
    for (const query of [
      'cat cat',
      'cat dog cat',
      'cats cat dog dogs',
      'river river river amber',
      'x x 42 42',
    ]) {
      for (const k of [1, 2, 7, 1000]) {
        assertSame(corpus, index.search(query, k, { minRelativeScore: 0 }), reference(query, k), query);
      }
    }
    assert.ok(index.search('cat cat', 1)[0]?.score !== index.search('cat', 1)[0]?.score);
  });

  it('finds nothing for stop words only, unknown words, or an empty corpus', () => {
    const index = DocumentIndex.fromDocuments([{ id: 'a', text: 'The cat and the dog. What is it?' }]);
    for (const query of ['the of and', 'what is it', 'a', '', '!!!', 'unknownword']) {
      assert.deepEqual(index.search(query, 2), [], query);
    }
    const empty = DocumentIndex.fromDocuments([]);
    assert.equal(empty.size, 0);
    assert.deepEqual(empty.search('cat', 3), []);
    const loaded = DocumentIndex.deserialize(empty.serialize());
    assert.equal(loaded.size, 0);
    assert.deepEqual(loaded.search('cat', 3), []);
  });

  it('returns every match when k is larger than the matches, best first', () => {
    const index = DocumentIndex.fromDocuments([
      { id: 'a', text: 'cat dog\n\ncat\n\nbird\n\ncat cat cat dog' },
      { id: 'b', text: 'dog' },
    ]);
    const hits = index.search('cat dog', 100, { minRelativeScore: 0 });
    assert.deepEqual(
      hits.map((hit) => `${hit.id}#${hit.passage}`),
      ['a#3', 'a#0', 'a#1', 'b#0'],
    );
  });

  it('orders equal scores by position in the index', () => {
    const index = Bm25Index.build(['cat', 'dog', 'cat', 'cat', 'cat dog']);
    assert.deepEqual(
      index.topK('cat', 2).map((hit) => hit.doc),
      [0, 2],
    );
    assert.deepEqual(
      index.topK('cat', 3).map((hit) => hit.doc),
      [0, 2, 3],
    );
    assert.throws(() => index.topK('cat', 0), RangeError);
  });
});

describe('saved BM25 index', () => {
  const random = mulberry32(99);
  const corpus = makeCorpus(random, 60);
  const index = DocumentIndex.fromDocuments(corpus.docs);
  const saved = index.serialize();
  const queries = Array.from({ length: 30 }, () => makeQuery(random));

  it('round-trips: same results, and saving the loaded index gives the same text', () => {
    const loaded = DocumentIndex.deserialize(saved);
    assert.equal(loaded.size, index.size);
    for (const query of queries) {
      assert.deepEqual(
        loaded.search(query, 3, { minRelativeScore: 0 }),
        index.search(query, 3, { minRelativeScore: 0 }),
      );
    }
    assert.deepEqual(loaded.serialize(), saved);
    assert.ok(!saved.engineJson.includes('\n'));
  });

  it('throws a clear Error for inconsistent saves', () => {
    const engine = JSON.parse(saved.engineJson) as Record<string, unknown>;
    const edit = (change: Record<string, unknown>) => JSON.stringify({ ...engine, ...change });
    const terms = engine.terms as string[];
    const cases: [string, RegExp][] = [
      ['', /not JSON/],
      ['[]', /bad header/],
      ['null', /not an object/],
      [edit({ passages: (engine.passages as number) + 1 }), /expected/],
      [edit({ postingCount: (engine.postingCount as number) + 1 }), /corrupt/],
      [edit({ terms: [...terms.slice(0, -1), terms[0]] }), /distinct/],
      [edit({ terms: terms.slice(1) }), /corrupt/],
      [edit({ lengths: 'AAAA' }), /corrupt/],
      [edit({ lengths: '@@@@' }), /not base64/],
      [edit({ postings: `${engine.postings as string}AAAA` }), /corrupt/],
      [edit({ lengths: '' }), /corrupt/],
      [JSON.stringify(new MiniSearch({ fields: ['text'] })), /bad header/], // a save of format 1
    ];
    for (const [engineJson, message] of cases) {
      assert.throws(
        () => DocumentIndex.deserialize({ ...saved, engineJson }),
        message,
        engineJson.slice(0, 80),
      );
    }
  });

  it('never fails otherwise than with an Error on damaged saves, and answers when it loads', () => {
    const text = saved.engineJson;
    const damage = mulberry32(5);
    for (let trial = 0; trial < 400; trial++) {
      const at = Math.floor(damage() * text.length);
      const chars = 'AZaz09+/=",:[]{}1';
      const replacement = chars[Math.floor(damage() * chars.length)] ?? 'A';
      const damaged =
        trial % 4 === 0
          ? text.slice(0, at)
          : trial % 4 === 1
            ? text.slice(0, at) + text.slice(at + 1)
            : text.slice(0, at) + replacement + text.slice(at + 1);
      let loaded: DocumentIndex | undefined;
      try {
        loaded = DocumentIndex.deserialize({ ...saved, engineJson: damaged });
      } catch (error) {
        assert.ok(error instanceof Error, String(error));
        assert.match(error.message, /Saved (search )?index/);
        continue;
      }
      for (const query of queries.slice(0, 5)) {
        for (const hit of loaded.search(query, 3)) assert.ok(Number.isFinite(hit.score) && hit.score > 0);
      }
    }
  });
});
