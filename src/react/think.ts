/**
 * The reasoning of a reply: what reasoning models (Qwen3, DeepSeek-R1, QwQ) write between `<think>` and
 * `</think>`. Read by the same rules as `cleanReply` in `clean.ts`: tags in any case; a first `</think>`
 * without an opener closes a block the chat template opened, so everything before it is reasoning; a
 * `<think>` that is never closed runs to the end of the reply.
 *
 * @module
 */

/** The reasoning found in a reply. */
export interface Thinking {
  /** The text of each block, trimmed, in order; empty blocks are left out. */
  blocks: string[];
  /** True when the reply ends inside a block: the model was still reasoning when the reply stopped. */
  unclosed: boolean;
  /** The reply without its blocks (tags included), otherwise as written. */
  outside: string;
}

const TAGS = /<(\/?)think>/gi;

/** Splits a reply into its reasoning blocks and the text outside them. Linear in the reply. */
export function readThinking(raw: string): Thinking {
  if (!raw.includes('<')) return { blocks: [], unclosed: false, outside: raw };
  const blocks: string[] = [];
  let outside = '';
  let cursor = 0;
  let openAt = -1;
  let first = true;
  const keep = (text: string) => {
    if (text.trim() !== '') blocks.push(text.trim());
  };
  for (let m = TAGS.exec(raw); m !== null; m = TAGS.exec(raw)) {
    const closing = m[1] === '/';
    if (!closing && openAt < 0) {
      outside += raw.slice(cursor, m.index);
      openAt = m.index + m[0].length;
    } else if (closing && openAt >= 0) {
      keep(raw.slice(openAt, m.index));
      openAt = -1;
      cursor = m.index + m[0].length;
    } else if (closing && first) {
      keep(raw.slice(0, m.index));
      cursor = m.index + m[0].length;
    } else if (closing) {
      outside += raw.slice(cursor, m.index);
      cursor = m.index + m[0].length;
    }
    first = false;
  }
  TAGS.lastIndex = 0;
  if (openAt >= 0) keep(raw.slice(openAt));
  else outside += raw.slice(cursor);
  return { blocks, unclosed: openAt >= 0, outside };
}

/** The reasoning of a reply as one text (blocks separated by a blank line), or undefined when there is none. */
export function reasoningOf(raw: string): string | undefined {
  const { blocks } = readThinking(raw);
  return blocks.length ? blocks.join('\n\n') : undefined;
}
