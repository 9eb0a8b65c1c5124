/**
 * The streamed mode of parse-accuracy (issue 16): every turn fed in random chunks through the stream cut
 * and the parser, as the loop reads a streamed reply, must give the same turn as the whole turn parsed at
 * once. Chunk boundaries come from a seeded generator, so a run is reproducible.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { mulberry32 } from '../../scripts/lib/mulberry32.js';
import { randomChunks } from '../../scripts/lib/random-chunks.js';
import { LABEL_SETS, type LabelLanguage, mergeLabels } from '../../src/react/labels.js';
import { parseTurn } from '../../src/react/parse.js';
import { readReply } from '../../src/react/reply.js';
import { StreamCut } from '../../src/react/stream-cut.js';
import type { Case } from './cases.js';

/** Chunkings tried per turn: chunks of 1 to 12 characters, split at random points. */
export const CHUNKINGS_PER_TURN = 20;

/** A turn whose streamed reading differed from the whole one. */
export interface StreamedMiss {
  turn: Case;
  chunks: string[];
  streamed: unknown;
  whole: unknown;
}

function labelsFor(language: string | undefined) {
  if (language === undefined || language === 'en') return undefined;
  return mergeLabels(LABEL_SETS[language as LabelLanguage]);
}

/** Reads `chunks` as the loop reads a stream: stop at the cut, then parse what was received. */
function readStreamed(chunks: readonly string[], turn: Case) {
  const labels = labelsFor(turn.language);
  const cut = new StreamCut(labels ?? LABEL_SETS.en);
  let received = '';
  for (const chunk of chunks) {
    received += chunk;
    if (cut.push(chunk) >= 0) break;
  }
  return readReply(received, { tools: turn.tools, ...(labels ? { labels } : {}) }).turn;
}

/** Checks every turn under {@link CHUNKINGS_PER_TURN} chunkings; returns the turns read the same and the misses. */
export function checkStreamed(turns: readonly Case[], seed = 16): { same: number; misses: StreamedMiss[] } {
  const next = mulberry32(seed);
  const misses: StreamedMiss[] = [];
  let same = 0;
  for (const turn of turns) {
    const labels = labelsFor(turn.language);
    const whole = parseTurn(turn.text, { tools: turn.tools, ...(labels ? { labels } : {}) });
    let miss: StreamedMiss | undefined;
    for (let i = 0; i < CHUNKINGS_PER_TURN && !miss; i++) {
      const chunks = randomChunks(turn.text, next);
      const streamed = readStreamed(chunks, turn);
      if (!isDeepStrictEqual(streamed, whole)) miss = { turn, chunks, streamed, whole };
    }
    if (miss) misses.push(miss);
    else same += 1;
  }
  return { same, misses };
}
