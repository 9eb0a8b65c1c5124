/**
 * An in-memory BM25 index over passages: an inverted index of its own (`bm25-topk.ts`) that scores with
 * BM25+ exactly as MiniSearch 7.2.0 does, and finds the best few passages without scoring every match.
 *
 * @module
 */

import { decodeBm25, encodeBm25 } from './bm25-codec.js';
import { Bm25Index } from './bm25-topk.js';
import { splitPassages } from './search-text.js';

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
 * Version of the serialized index ({@link DocumentIndex.serialize}); bump it when the passage shape, the
 * saved index's encoding or the scoring change, so that indexes saved by an older taoloop are rebuilt, not
 * misread. 2: taoloop's own inverted index (`bm25-codec.ts`) instead of MiniSearch's JSON.
 */
export const INDEX_FORMAT = 2;

/** A passage as serialized: its document id, its 0-based position in that document, and its text. */
export type SerializedPassage = readonly [id: string, passage: number, text: string];

/**
 * A {@link DocumentIndex} as two JSON texts: the passages (an array of {@link SerializedPassage}) and the
 * inverted index (terms, passage lengths and postings, varint-coded in base64; see `bm25-codec.ts`).
 * Neither contains a line break.
 */
export interface SerializedIndex {
  passagesJson: string;
  engineJson: string;
}

interface IndexedPassage {
  id: string;
  passage: number;
  text: string;
}

/**
 * Keyword search over passages with BM25+ (`k = 1.2`, `b = 0.7`, `d = 0.5`), scored exactly as MiniSearch
 * 7.2.0 scores one field (see `bm25-topk.ts`), the best `topK` found by MaxScore without scoring every
 * match.
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
    private readonly engine: Bm25Index,
    private readonly passages: readonly IndexedPassage[],
  ) {}

  /** Builds an index from whole documents, splitting each into passages. Documents may be empty. */
  static fromDocuments(docs: readonly SourceDocument[]): DocumentIndex {
    const passages: IndexedPassage[] = [];
    for (const doc of docs) {
      splitPassages(doc.text).forEach((text, passage) => {
        passages.push({ id: doc.id, passage, text });
      });
    }
    return new DocumentIndex(Bm25Index.build(passages.map((p) => p.text)), passages);
  }

  /**
   * Rebuilds an index saved with {@link DocumentIndex.serialize} (by the same `INDEX_FORMAT`),
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
      return { id, passage: passage as number, text };
    });
    return new DocumentIndex(new Bm25Index(decodeBm25(saved.engineJson, passages.length)), passages);
  }

  /** Saves the index as JSON texts for {@link DocumentIndex.deserialize}. */
  serialize(): SerializedIndex {
    const passages = this.passages.map((p): SerializedPassage => [p.id, p.passage, p.text]);
    return { passagesJson: JSON.stringify(passages), engineJson: encodeBm25(this.engine.data) };
  }

  /** Number of passages indexed. */
  get size(): number {
    return this.passages.length;
  }

  /**
   * Returns at most `topK` passages, best first, each matching at least one non-stop-word query term.
   * An empty array when nothing matches (or the query has only stop words). Equal scores are ordered by
   * position in the index (documents in the order given, then passages in document order).
   *
   * @throws {RangeError} when `topK` is not a positive integer.
   */
  search(query: string, topK: number, options: IndexSearchOptions = {}): SearchHit[] {
    if (!Number.isInteger(topK) || topK < 1) {
      throw new RangeError(`topK must be a positive integer, got ${topK}`);
    }
    const minRelativeScore = options.minRelativeScore ?? DEFAULT_MIN_RELATIVE_SCORE;
    const results = this.engine.topK(query, topK);
    const best = results[0]?.score ?? 0;
    const hits: SearchHit[] = [];
    for (const result of results) {
      const passage = this.passages[result.doc];
      if (passage === undefined || result.score < best * minRelativeScore) continue;
      hits.push({ id: passage.id, passage: passage.passage, text: passage.text, score: result.score });
    }
    return hits;
  }
}
