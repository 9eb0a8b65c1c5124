/**
 * What of a reply still arriving can be shown: its text up to where a later character could change how the
 * text before it reads. Only the shortest such tail is held back: an unfinished last line that may still
 * become a label (`Obs`, `**Action In`) or a code fence (`` `` ``), the start of a `<think>` or `</think>` tag, a lone `\r`.
 *
 * @module
 */
import type { LabelSet } from './labels.js';
import { labelIndex, mayBecomeLabel } from './scan.js';
import { lastLineStart, visibleHead } from './visible.js';

const TAGS = ['<think>', '</think>'];
/** A line that may still become a code fence (three backticks or tildes) with its next character. */
const FENCE_START = /^[ \t]*(`{1,2}|~{1,2})$/;

/**
 * `text` without the tail that may still change meaning as the reply goes on (see the module note). Reading
 * the result (`readReply`) gives the part of the turn known so far: a label held back can neither cut the
 * text before it nor end the thought or answer it follows.
 */
export function settledText(text: string, labels: LabelSet): string {
  let end = text.length;
  const lt = text.lastIndexOf('<');
  if (lt >= 0) {
    const tail = text.slice(lt).toLowerCase();
    if (TAGS.some((tag) => tag.startsWith(tail) && tag !== tail)) end = lt;
  }
  if (text[end - 1] === '\r') end -= 1;
  if (end === 0) return '';
  const lineStart = lastLineStart(text, end);
  const line = text.slice(lineStart, end);
  const index = labelIndex(labels);
  // Also a line that may become a label as a model reads it (`\u200bObserv`, Cyrillic `Оbs`): the cut reads
  // observations that way.
  const head = visibleHead(line, 100);
  if (
    FENCE_START.test(line) ||
    mayBecomeLabel(text, lineStart, end, index) ||
    mayBecomeLabel(head, 0, head.length, index)
  )
    end = lineStart;
  return text.slice(0, end);
}
