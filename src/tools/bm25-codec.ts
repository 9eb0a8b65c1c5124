/**
 * The saved form of a {@link Bm25Index}'s data: one line of JSON,
 * `{"passages":N,"postingCount":P,"terms":[...],"lengths":"<base64>","postings":"<base64>"}`.
 *
 * `lengths` is N unsigned LEB128 varints (each passage's length). `postings` is, for each term in the order
 * of `terms`: its document frequency, then that many (passage gap, term frequency) pairs, all varints; the
 * first gap is the passage number, each next one the difference from the previous passage (at least 1).
 * Base64 is written and read here (no `Buffer`), so it works wherever the index does.
 *
 * Reading checks everything a search relies on (passage numbers ascending and in range, frequencies at
 * least 1, no passage with more distinct terms than its length, every byte used), so that a corrupt save
 * throws an `Error` saying so instead of answering wrongly or failing later.
 *
 * @module
 */

import type { Bm25Data } from './bm25-build.js';

/** Saves `data` as one line of JSON for {@link decodeBm25}. */
export function encodeBm25(data: Bm25Data): string {
  const { lengths, terms, offsets, docs, freqs } = data;
  const lengthBytes = new ByteWriter(lengths.length);
  for (const length of lengths) lengthBytes.push(length);
  const postingBytes = new ByteWriter(docs.length * 2 + terms.length);
  for (let t = 0; t < terms.length; t++) {
    const start = offsets[t]!;
    const end = offsets[t + 1]!;
    postingBytes.push(end - start);
    for (let p = start; p < end; p++) {
      postingBytes.push(p === start ? docs[p]! : docs[p]! - docs[p - 1]!);
      postingBytes.push(freqs[p]!);
    }
  }
  return JSON.stringify({
    passages: lengths.length,
    postingCount: docs.length,
    terms,
    lengths: toBase64(lengthBytes.bytes()),
    postings: toBase64(postingBytes.bytes()),
  });
}

/**
 * Reads what {@link encodeBm25} wrote, for an index of `expectedPassages` passages.
 *
 * @throws {Error} when `json` is not such a save (not JSON, the wrong shape, inconsistent, truncated), or
 * holds another number of passages.
 */
export function decodeBm25(json: string, expectedPassages: number): Bm25Data {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw corrupt(`not JSON (${(error as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null) throw corrupt('not an object');
  const saved = raw as Record<string, unknown>;
  const n = saved.passages;
  const postingCount = saved.postingCount;
  const terms = saved.terms;
  if (!isCount(n) || !isCount(postingCount) || typeof saved.lengths !== 'string') throw corrupt('bad header');
  if (typeof saved.postings !== 'string' || !Array.isArray(terms)) throw corrupt('bad header');
  if (n !== expectedPassages) {
    throw new Error(`Saved index has ${n} passages, expected ${expectedPassages}`);
  }
  if (
    !terms.every((term) => typeof term === 'string' && term !== '') ||
    new Set(terms).size !== terms.length
  ) {
    throw corrupt('terms are not distinct non-empty strings');
  }
  const lengthReader = new ByteReader(fromBase64(saved.lengths, 'lengths'), 'lengths');
  const lengths = new Uint32Array(n);
  for (let d = 0; d < n; d++) lengths[d] = lengthReader.next();
  lengthReader.finish();

  const postingBytes = fromBase64(saved.postings, 'postings');
  if (postingCount * 2 + terms.length > postingBytes.length) throw corrupt('postings too short');
  const reader = new ByteReader(postingBytes, 'postings');
  const offsets = new Uint32Array(terms.length + 1);
  const docs = new Uint32Array(postingCount);
  const freqs = new Uint32Array(postingCount);
  const perPassage = new Uint32Array(n);
  let p = 0;
  for (let t = 0; t < terms.length; t++) {
    const df = reader.next();
    if (df < 1 || df > n || p + df > postingCount) throw corrupt(`term ${t} has a bad posting count`);
    let doc = -1;
    for (let j = 0; j < df; j++, p++) {
      const gap = reader.next();
      if (j > 0 && gap === 0) throw corrupt(`term ${t}: passages not ascending`);
      doc = j === 0 ? gap : doc + gap;
      if (doc >= n) throw corrupt(`term ${t}: passage ${doc} out of range`);
      const tf = reader.next();
      if (tf < 1) throw corrupt(`term ${t}: zero frequency`);
      docs[p] = doc;
      freqs[p] = tf;
      perPassage[doc]!++;
    }
    offsets[t + 1] = p;
  }
  reader.finish();
  if (p !== postingCount) throw corrupt(`${p} postings, expected ${postingCount}`);
  for (let d = 0; d < n; d++) {
    if (perPassage[d]! > lengths[d]!) throw corrupt(`passage ${d} has more terms than its length`);
  }
  return { lengths, terms: terms as string[], offsets, docs, freqs };
}

function corrupt(why: string): Error {
  return new Error(`Saved search index is corrupt: ${why}`);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 0xffffffff;
}

/** Unsigned LEB128 varints (values below 2^32) into a growing byte array. */
class ByteWriter {
  private buffer: Uint8Array;
  private length = 0;
  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.length + 5 > this.buffer.length) {
      const bigger = new Uint8Array(this.buffer.length * 2 + 5);
      bigger.set(this.buffer);
      this.buffer = bigger;
    }
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.length++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buffer[this.length++] = v;
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

class ByteReader {
  private at = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  next(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (this.at >= this.bytes.length) throw corrupt(`${this.what} truncated`);
      const byte = this.bytes[this.at++]!;
      if (shift === 28 && byte > 0x0f) throw corrupt(`${this.what} holds a number too large`);
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  }

  finish(): void {
    if (this.at !== this.bytes.length) throw corrupt(`${this.what} has bytes left over`);
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CODES = new Uint8Array(64).map((_, i) => ALPHABET.charCodeAt(i));
const VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

function toBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  for (let i = 0; i < bytes.length; i += 3) {
    const rest = bytes.length - i;
    const triple = (bytes[i]! << 16) | ((rest > 1 ? bytes[i + 1]! : 0) << 8) | (rest > 2 ? bytes[i + 2]! : 0);
    out[o++] = CODES[triple >>> 18]!;
    out[o++] = CODES[(triple >>> 12) & 63]!;
    out[o++] = rest > 1 ? CODES[(triple >>> 6) & 63]! : 61; // '='
    out[o++] = rest > 2 ? CODES[triple & 63]! : 61;
  }
  const parts: string[] = [];
  for (let i = 0; i < out.length; i += 0x8000) {
    parts.push(String.fromCharCode.apply(null, out.subarray(i, i + 0x8000) as unknown as number[]));
  }
  return parts.join('');
}

function fromBase64(text: string, what: string): Uint8Array {
  if (text.length % 4 !== 0) throw corrupt(`${what} is not base64`);
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  const value = (i: number): number => {
    const code = text.charCodeAt(i);
    const v = code < 128 ? VALUES[code]! : -1;
    if (v < 0 && !(code === 61 && i >= text.length - padding)) throw corrupt(`${what} is not base64`);
    return Math.max(v, 0);
  };
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const quad = (value(i) << 18) | (value(i + 1) << 12) | (value(i + 2) << 6) | value(i + 3);
    out[o++] = quad >>> 16;
    if (o < out.length) out[o++] = (quad >>> 8) & 255;
    if (o < out.length) out[o++] = quad & 255;
  }
  return out;
}
