/**
 * Reading a model reply the same way whether it was streamed or not: the stream cut first (where reading
 * stops), then the parser on what comes before it.
 *
 * @module
 */
import { ENGLISH_LABELS } from './labels.js';
import { type ParseOptions, type ReadTurn, readTurn } from './parse.js';
import { cutReply, type ReplyCut } from './stream-cut.js';

/** A reply read by {@link readReply}. */
export interface ReadReply extends ReadTurn {
  /** Where reading stopped before the end of the text, if it did. */
  cut?: ReplyCut;
}

/**
 * Applies the stream cut to `text` (a whole reply, or what was read of a streamed one before the cut
 * stopped it), then parses what comes before the cut. A streamed reply and the same reply whole give the
 * same result, however the stream was split into chunks.
 */
export function readReply(text: string, options: Omit<ParseOptions, 'observationCut'> = {}): ReadReply {
  const cut = cutReply(text, options.labels ?? ENGLISH_LABELS);
  if (!cut) return readTurn(text, options);
  const read: ReadReply = readTurn(text.slice(0, cut.at), {
    ...options,
    observationCut: cut.reason === 'observation',
  });
  read.cut = cut;
  return read;
}
