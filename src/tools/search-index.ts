/**
 * An in-memory BM25 index over passages, built on MiniSearch (which scores with BM25+).
 *
 * @module
 */

import MiniSearch, { type Options } from 'minisearch';
import { processTerm, splitPassages, tokenizeText } from './search-text.js';

/** A document to index: its id (a file path, say) and its full text. */
export interface SourceDocument {
  id: string;
  text: string;
}

/** One passage found by {@link DocumentIndex.search}. */
export interface SearchHit {
  /** The id of the document the passage comes from. */
  id: string;
  /** 0-based position of the passage within its document. */
  passage: number;
  /** The passage text, whitespace collapsed, with its Markdown heading in front. */
  text: string;
  /** BM25+ score; only comparable within one query. */
  score: number;
}

/** Options for {@link DocumentIndex.search}. */
export interface IndexSearchOptions {
  /**
   * Passages scoring below this fraction of the best passage's score are dropped, so that a weak
   * second match does not ride along with a strong first one. `0` keeps every match. @default 0.3
   */
  minRelativeScore?: number;
}

/** Default for {@link IndexSearchOptions.minRelativeScore}. */
export const DEFAULT_MIN_RELATIVE_SCORE = 0.3;

/**
 * Version of the serialized index ({@link DocumentIndex.serialize}); bump it when the passage shape or
 * the MiniSearch options change, so that indexes saved by an older taoloop are rebuilt, not misread.
 */
export const INDEX_FORMAT = 1;

/** A passage as serialized: its document id, its 0-based position in that document, and its text. */
export type SerializedPassage = readonly [id: string, passage: number, text: string];

/**
 * A {@link DocumentIndex} as two JSON texts: the passages (an array of {@link SerializedPassage}) and the
 * MiniSearch index (`JSON.stringify(miniSearch)`, read back with `MiniSearch.loadJSON`). Neither contains
 * a line break.
 */
export interface SerializedIndex {
  passagesJson: string;
  engineJson: string;
}

interface IndexedPassage {
  key: number;
  id: string;
  passage: number;
  text: string;
}

// Loading a saved index needs the options it was built with (MiniSearch.loadJSON's contract).
const ENGINE_OPTIONS: Options<IndexedPassage> = {
  idField: 'key',
  fields: ['text'],
  tokenize: tokenizeText,
  processTerm,
  searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
};

/**
 * Keyword search over passages with BM25+ (MiniSearch 7, `k = 1.2`, `b = 0.7`, `d = 0.5`).
 *
 * Documents are split into passages (paragraphs; long ones at about 500 characters on sentence
 * boundaries). Query and passages are tokenized the same way: lowercase, punctuation removed, English
 * stop words dropped, plurals reduced to the singular. Matching is on whole terms only, with no prefix
 * or fuzzy matching, so every hit shares at least one meaningful word with the query.
 *
 * @example
 * ```ts
 * const index = DocumentIndex.fromDocuments([{ id: 'refunds.md', text: 'Refunds take 5 working days.' }]);
 * index.search('how long do refunds take', 2); // [{ id: 'refunds.md', passage: 0, text: 'Refunds take...', score: ... }]
 * ```
 */
export class DocumentIndex {
  private constructor(
    private readonly engine: MiniSearch<IndexedPassage>,
    private readonly passages: readonly IndexedPassage[],
  ) {}

  /** Builds an index from whole documents, splitting each into passages. Documents may be empty. */
  static fromDocuments(docs: readonly SourceDocument[]): DocumentIndex {
    const passages: IndexedPassage[] = [];
    for (const doc of docs) {
      splitPassages(doc.text).forEach((text, passage) => {
        passages.push({ key: passages.length, id: doc.id, passage, text });
      });
    }
    const engine = new MiniSearch<IndexedPassage>(ENGINE_OPTIONS);
    engine.addAll(passages);
    return new DocumentIndex(engine, passages);
  }

  /**
   * Rebuilds an index saved with {@link DocumentIndex.serialize} (by the same {@link INDEX_FORMAT}),
   * without tokenizing anything again.
   *
   * @throws {Error} when either text is not valid JSON or not the expected shape (a corrupt save).
   */
  static deserialize(saved: SerializedIndex): DocumentIndex {
    const raw = JSON.parse(saved.passagesJson) as unknown;
    if (!Array.isArray(raw)) throw new Error('Saved passages are not an array');
    const passages = raw.map((item: unknown, key): IndexedPassage => {
      const [id, passage, text] = Array.isArray(item) ? (item as unknown[]) : [];
      if (typeof id !== 'string' || !Number.isInteger(passage) || typeof text !== 'string') {
        throw new Error(`Saved passage ${key} is malformed`);
      }
      return { key, id, passage: passage as number, text };
    });
    const engine = MiniSearch.loadJSON<IndexedPassage>(saved.engineJson, ENGINE_OPTIONS);
    if (engine.documentCount !== passages.length) {
      throw new Error(`Saved index has ${engine.documentCount} passages, expected ${passages.length}`);
    }
    return new DocumentIndex(engine, passages);
  }

  /** Saves the index as JSON texts for {@link DocumentIndex.deserialize}. */
  serialize(): SerializedIndex {
    const passages = this.passages.map((p): SerializedPassage => [p.id, p.passage, p.text]);
    return { passagesJson: JSON.stringify(passages), engineJson: JSON.stringify(this.engine) };
  }

  /** Number of passages indexed. */
  get size(): number {
    return this.passages.length;
  }

  /**
   * Returns at most `topK` passages, best first, each matching at least one non-stop-word query term.
   * An empty array when nothing matches (or the query has only stop words).
   *
   * @throws {RangeError} when `topK` is not a positive integer.
   */
  search(query: string, topK: number, options: IndexSearchOptions = {}): SearchHit[] {
    if (!Number.isInteger(topK) || topK < 1) {
      throw new RangeError(`topK must be a positive integer, got ${topK}`);
    }
    const minRelativeScore = options.minRelativeScore ?? DEFAULT_MIN_RELATIVE_SCORE;
    const results = this.engine.search(query);
    const best = results[0]?.score ?? 0;
    const hits: SearchHit[] = [];
    for (const result of results.slice(0, topK)) {
      const passage = this.passages[result.id as number];
      if (passage === undefined || result.score < best * minRelativeScore) continue;
      hits.push({ id: passage.id, passage: passage.passage, text: passage.text, score: result.score });
    }
    return hits;
  }
}
