/**
 * Splits `text` into chunks of 1 to 12 characters (UTF-16 code units), each size drawn from `next`, the way a
 * model's stream may cut a turn. With a seeded `next` (`mulberry32`, ./mulberry32.ts) the same text is cut the
 * same way on every run. Used by the parse-accuracy benchmark (streamed and printed modes) and the live-turn test.
 *
 * @param next - a generator of numbers in [0, 1), e.g. `mulberry32(seed)`.
 * @returns the chunks, in order; joined they give `text` back (none for an empty text).
 */
export function randomChunks(text: string, next: () => number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(next() * 12);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}
