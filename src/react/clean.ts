/**
 * Removing what is not protocol text before labels are scanned: `<think>` blocks of reasoning models and one
 * code fence wrapped around the whole reply. Offsets into the original text are kept, so a cut found in the
 * cleaned text can be applied to the streamed original.
 *
 * @module
 */
import { lastLineStart, nextLineBreak, trimLinesEnd } from './visible.js';

/** A kept slice `[start, end)` of the original text. */
interface Range {
  start: number;
  end: number;
}

/** The cleaned reply and where each of its pieces came from. */
export interface CleanedReply {
  text: string;
  ranges: readonly Range[];
}

/**
 * Removes `<think>...</think>` blocks, a leading block whose `<think>` is missing (chat templates that put
 * the opening tag in the prompt), an unclosed `<think>` (the model was still reasoning), then unwraps one
 * code fence around the whole reply.
 */
export function cleanReply(raw: string): CleanedReply {
  const ranges = withoutThinking(raw);
  const text = join(raw, ranges);
  const inner = wrapperFenceBody(text);
  if (!inner) return { text, ranges };
  const clipped = clip(ranges, inner.start, inner.end);
  return { text: text.slice(inner.start, inner.end), ranges: clipped };
}

/** Maps an offset in the cleaned text back to the original text. */
export function toOriginal(cleaned: CleanedReply, at: number): number {
  let offset = 0;
  for (const range of cleaned.ranges) {
    const length = range.end - range.start;
    if (at < offset + length) return range.start + (at - offset);
    offset += length;
  }
  return cleaned.ranges.at(-1)?.end ?? at;
}

function join(raw: string, ranges: readonly Range[]): string {
  const only = ranges.length === 1 ? ranges[0] : undefined;
  if (only && only.start === 0 && only.end === raw.length) return raw;
  return ranges.map((r) => raw.slice(r.start, r.end)).join('');
}

function withoutThinking(raw: string): Range[] {
  // Most replies have no tag at all: one range, no regex.
  if (!raw.includes('<')) return raw === '' ? [] : [{ start: 0, end: raw.length }];
  const tags = /<(\/?)think>/gi;
  const kept: Range[] = [];
  let cursor = 0;
  let openAt = -1;
  let first = true;
  for (let m = tags.exec(raw); m !== null; m = tags.exec(raw)) {
    const closing = m[1] === '/';
    if (!closing && openAt < 0) {
      kept.push({ start: cursor, end: m.index });
      openAt = m.index;
    } else if (closing && openAt >= 0) {
      openAt = -1;
      cursor = m.index + m[0].length;
    } else if (closing && first) {
      // `...</think>` with no opener: the template opened the block, so all of it is reasoning.
      cursor = m.index + m[0].length;
    } else if (closing) {
      kept.push({ start: cursor, end: m.index });
      cursor = m.index + m[0].length;
    }
    first = false;
  }
  if (openAt < 0) kept.push({ start: cursor, end: raw.length });
  return kept.filter((r) => r.end > r.start);
}

/** Restricts ranges to the cleaned-text window `[from, to)`. */
function clip(ranges: readonly Range[], from: number, to: number): Range[] {
  const out: Range[] = [];
  let offset = 0;
  for (const range of ranges) {
    const length = range.end - range.start;
    const lo = Math.max(from, offset);
    const hi = Math.min(to, offset + length);
    if (hi > lo) out.push({ start: range.start + (lo - offset), end: range.start + (hi - offset) });
    offset += length;
  }
  return out;
}

/** A fence line: indentation, then three or more backticks or tildes. */
export interface Fence {
  char: string;
  count: number;
  /** True when nothing but spaces follows the marker, i.e. the line can close a fence. */
  bare: boolean;
}

/** Reads a fence marker on the line `[start, end)`, or returns undefined. CommonMark-like. */
export function readFence(text: string, start: number, end: number): Fence | undefined {
  let i = start;
  while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
  const char = text[i];
  if (char !== '`' && char !== '~') return undefined;
  let j = i;
  while (j < end && text[j] === char) j++;
  const count = j - i;
  if (count < 3) return undefined;
  const rest = text.slice(j, end);
  // A backtick "fence" whose info string holds a backtick is inline code (```x```), not a fence.
  if (char === '`' && rest.includes('`')) return undefined;
  return { char, count, bare: rest.trim() === '' };
}

/** True when `fence` is a bare marker that closes `open`. */
export function closesFence(open: Fence, fence: Fence | undefined): boolean {
  return fence?.bare === true && fence.char === open.char && fence.count >= open.count;
}

/**
 * The body of a fence that wraps the whole reply: the first non-blank line opens it and either the last
 * non-blank line closes it or nothing closes it (a stop sequence cut the reply inside the fence).
 */
function wrapperFenceBody(text: string): { start: number; end: number } | undefined {
  // Lines end at every line terminator, as the scan and the stream cut read them.
  // Blank: white space and every line terminator (U+001C-1E and NEL are not `\s` in JavaScript).
  const firstChar = text.search(/[^\s\x1c-\x1e\u0085]/);
  if (firstChar < 0) return undefined;
  const openStart = lastLineStart(text, firstChar);
  const nl = nextLineBreak(text, firstChar);
  const openEnd = nl < 0 ? text.length : nl;
  const open = readFence(text, openStart, openEnd);
  if (!open || nl < 0) return undefined;
  const contentEnd = trimLinesEnd(text).length;
  const lastStart = lastLineStart(text, contentEnd);
  if (lastStart > openStart && closesFence(open, readFence(text, lastStart, contentEnd))) {
    return { start: nl + 1, end: lastStart };
  }
  for (let p = nl + 1; p < text.length; ) {
    const e = nextLineBreak(text, p);
    const lineEnd = e < 0 ? text.length : e;
    if (closesFence(open, readFence(text, p, lineEnd))) return undefined;
    p = lineEnd + 1;
  }
  return { start: nl + 1, end: text.length };
}
