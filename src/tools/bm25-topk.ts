/**
 * An inverted index with exact top-k BM25+ retrieval: the best `k` passages of a query without scoring every
 * passage that matches it, by the MaxScore algorithm (Turtle & Flood 1995).
 *
 * Scores equal MiniSearch 7.2.0's, bit for bit, for an index of one field built with the same tokenizer and
 * `processTerm` (the scoring `DocumentIndex` used before it had this index of its own): BM25+ with
 * `k = 1.2`, `b = 0.7`, `d = 0.5`; `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`; a passage's length is its
 * number of distinct tokens before `processTerm` (stop words included), the average length is updated
 * passage by passage as MiniSearch does; the per-term scores are added up in query order, a duplicated
 * query term counting each time; and the sum is multiplied by the number of distinct query terms matched.
 *
 * @module
 */

import { type Bm25Data, buildBm25Data } from './bm25-build.js';
import { processTerm, tokenizeText } from './search-text.js';

const K = 1.2;
const B = 0.7;
const D = 0.5;
const K1 = K + 1;
/** Upper bounds are inflated by this factor before pruning, so that rounding can never prune a winner. */
const SLACK = 1 + 1e-9;

/** One passage found by {@link Bm25Index.topK}: its number (position in the index) and its score. */
export interface ScoredPassage {
  doc: number;
  score: number;
}

/** The query's terms as MiniSearch reads them: tokenized, processed, falsy ones dropped, duplicates kept. */
export function queryTerms(query: string): string[] {
  return tokenizeText(query).flatMap((token) => processTerm(token) || []);
}

/**
 * BM25+ top-k over passages.
 *
 * Order of results (a total order): higher score first, then the lower passage number; so among equal
 * scores the passage indexed first wins, on every run.
 */
export class Bm25Index {
  readonly size: number;
  private readonly termIds = new Map<string, number>();
  /** Per passage: `k * (1 - b + b * length / averageLength)`. */
  private readonly norms: Float64Array;
  private readonly idf: Float64Array;
  /** Per term: its highest score in any passage (the MaxScore bound). */
  readonly bounds: Float64Array;

  /** Derives the scoring tables from `data`, which must be well formed (see `bm25-codec.ts`). */
  constructor(readonly data: Bm25Data) {
    const { lengths, terms, offsets, docs, freqs } = data;
    const n = lengths.length;
    this.size = n;
    let average = 0;
    for (let d = 0; d < n; d++) average = (average * d + lengths[d]!) / (d + 1); // as MiniSearch does
    this.norms = new Float64Array(n);
    for (let d = 0; d < n; d++) this.norms[d] = K * (1 - B + (B * lengths[d]!) / average);
    this.idf = new Float64Array(terms.length);
    this.bounds = new Float64Array(terms.length);
    for (let t = 0; t < terms.length; t++) {
      this.termIds.set(terms[t]!, t);
      const df = offsets[t + 1]! - offsets[t]!;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      this.idf[t] = idf;
      let bound = 0;
      for (let p = offsets[t]!; p < offsets[t + 1]!; p++) {
        const tf = freqs[p]!;
        const score = idf * (D + (tf * K1) / (tf + this.norms[docs[p]!]!));
        if (score > bound) bound = score;
      }
      this.bounds[t] = bound;
    }
  }

  /** Tokenizes and indexes `texts`; passage `i` is `texts[i]`. */
  static build(texts: readonly string[]): Bm25Index {
    return new Bm25Index(buildBm25Data(texts));
  }

  /**
   * The best `k` passages for `query` (fewer when fewer match), in the order documented on the class, with
   * the score MiniSearch gives each.
   *
   * MaxScore (H. Turtle and J. Flood, "Query evaluation: strategies and optimizations", Information
   * Processing & Management 31(6), 1995): the query's distinct terms are sorted by their highest possible
   * contribution; once the heap holds `k` passages, the longest prefix of that order whose combined bound
   * cannot beat the k-th score is "non-essential". Candidates come only from the essential terms' postings,
   * in passage order; the non-essential postings are only probed (galloping search) for those candidates,
   * and a candidate is dropped as soon as its score so far plus the bounds still unprobed cannot beat the
   * k-th. The bound of a set of terms is the sum of their bounds times their count, for MiniSearch's
   * multiplier. A min-heap of size `k` keeps the best so far.
   *
   * @throws {RangeError} when `k` is not a positive integer.
   */
  topK(query: string, k: number): ScoredPassage[] {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
    const { docs, freqs, offsets } = this.data;
    const norms = this.norms;
    // The distinct indexed terms of the query (slots), each with its multiplicity; byPosition gives the
    // slot of each query position whose term is indexed.
    const words = queryTerms(query);
    const termSlot = new Map<number, number>();
    const byPosition: number[] = [];
    const ids: number[] = [];
    const counts: number[] = [];
    for (const word of words) {
      const id = this.termIds.get(word);
      if (id === undefined) continue;
      let slot = termSlot.get(id);
      if (slot === undefined) {
        slot = ids.push(id) - 1;
        counts.push(0);
        termSlot.set(id, slot);
      }
      counts[slot]!++;
      byPosition.push(slot);
    }
    const m = ids.length;
    if (m === 0) return [];
    // Sort the slots by their highest contribution, ascending.
    const order = ids.map((_, s) => s).sort((a, b) => this.cap(ids, counts, a) - this.cap(ids, counts, b));
    const rank = new Int32Array(m);
    order.forEach((slot, r) => {
      rank[slot] = r;
    });
    const positions = Int32Array.from(byPosition, (slot) => rank[slot]!);
    const term = Int32Array.from(order, (slot) => ids[slot]!);
    const times = Float64Array.from(order, (slot) => counts[slot]!);
    const idf = Float64Array.from(term, (t) => this.idf[t]!);
    const pos = Uint32Array.from(term, (t) => offsets[t]!);
    const end = Uint32Array.from(term, (t) => offsets[t + 1]!);
    // prefix[r] = sum of the contribution bounds of ranks below r; cut[r] = the bound of a passage that
    // matches nothing but ranks below r.
    const prefix = new Float64Array(m + 1);
    const cut = new Float64Array(m + 1);
    for (let r = 0; r < m; r++) {
      prefix[r + 1] = prefix[r]! + times[r]! * this.bounds[term[r]!]!;
      cut[r + 1] = prefix[r + 1]! * (r + 1) * SLACK;
    }
    const heap = new MinHeap(k);
    const single = new Float64Array(m);
    const hit = new Uint8Array(m);
    let threshold = Number.NEGATIVE_INFINITY;
    let essential = 0; // ranks >= essential are essential
    for (;;) {
      let doc = 0xffffffff;
      for (let r = essential; r < m; r++) if (pos[r]! < end[r]! && docs[pos[r]!]! < doc) doc = docs[pos[r]!]!;
      if (doc === 0xffffffff) break;
      const norm = norms[doc]!;
      let partial = 0;
      let matched = 0;
      for (let r = essential; r < m; r++) {
        const p = pos[r]!;
        if (p < end[r]! && docs[p] === doc) {
          const tf = freqs[p]!;
          const score = idf[r]! * (D + (tf * K1) / (tf + norm));
          single[r] = score;
          hit[r] = 1;
          partial += times[r]! * score;
          matched++;
          pos[r] = p + 1;
        } else hit[r] = 0;
      }
      let pruned = false;
      for (let r = essential - 1; r >= 0; r--) {
        if ((partial + prefix[r + 1]!) * (matched + r + 1) * SLACK <= threshold) {
          pruned = true;
          break;
        }
        const p = seek(docs, pos[r]!, end[r]!, doc);
        pos[r] = p;
        if (p < end[r]! && docs[p] === doc) {
          const tf = freqs[p]!;
          const score = idf[r]! * (D + (tf * K1) / (tf + norm));
          single[r] = score;
          hit[r] = 1;
          partial += times[r]! * score;
          matched++;
          pos[r] = p + 1;
        } else hit[r] = 0;
      }
      if (pruned) continue;
      let sum = 0; // in query order, as MiniSearch adds them up
      for (let i = 0; i < positions.length; i++) {
        const r = positions[i]!;
        if (hit[r] === 1) sum += single[r]!;
      }
      if (heap.offer(doc, sum * matched) && heap.full) {
        threshold = heap.minScore;
        while (essential < m && cut[essential + 1]! <= threshold) essential++;
        if (essential === m) break;
      }
    }
    return heap.sorted();
  }

  private cap(ids: readonly number[], counts: readonly number[], slot: number): number {
    return counts[slot]! * this.bounds[ids[slot]!]!;
  }
}

/** The first position in `docs[from, end)` holding a passage number `>= doc`: galloping, then binary. */
function seek(docs: Uint32Array, from: number, end: number, doc: number): number {
  if (from >= end || docs[from]! >= doc) return from;
  let low = from; // docs[low] < doc
  let step = 1;
  while (low + step < end && docs[low + step]! < doc) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, end); // docs[high] >= doc, or high === end
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (docs[mid]! < doc) low = mid;
    else high = mid;
  }
  return high;
}

/** The best `k` so far; its root is the worst of them (lowest score, then highest passage number). */
class MinHeap {
  private readonly docs: number[] = [];
  private readonly scores: number[] = [];
  constructor(private readonly k: number) {}

  get full(): boolean {
    return this.docs.length >= this.k;
  }

  get minScore(): number {
    return this.scores[0] ?? Number.NEGATIVE_INFINITY;
  }

  /** Adds the passage when it beats the worst kept (or there is room); returns whether it was added. */
  offer(doc: number, score: number): boolean {
    if (!this.full) {
      this.docs.push(doc);
      this.scores.push(score);
      this.siftUp(this.docs.length - 1);
      return true;
    }
    if (!this.worse(0, doc, score)) return false;
    this.docs[0] = doc;
    this.scores[0] = score;
    this.siftDown(0);
    return true;
  }

  /** Everything kept, best first. */
  sorted(): ScoredPassage[] {
    return this.docs
      .map((doc, i) => ({ doc, score: this.scores[i]! }))
      .sort((a, b) => b.score - a.score || a.doc - b.doc);
  }

  /** Whether the entry at `i` ranks below (`doc`, `score`). */
  private worse(i: number, doc: number, score: number): boolean {
    const s = this.scores[i]!;
    return s < score || (s === score && this.docs[i]! > doc);
  }

  private swap(i: number, j: number): void {
    [this.docs[i], this.docs[j]] = [this.docs[j]!, this.docs[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, this.docs[parent]!, this.scores[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    for (;;) {
      let worst = i;
      for (const child of [2 * i + 1, 2 * i + 2]) {
        if (child < this.docs.length && this.worse(child, this.docs[worst]!, this.scores[worst]!))
          worst = child;
      }
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}
