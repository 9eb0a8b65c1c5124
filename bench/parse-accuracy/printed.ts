/**
 * The CLI's streamed printing (issue 16 item 6): every turn fed in random chunks through `LiveTurn`, as
 * `taoloop run` prints a streamed turn, must leave on screen exactly what the whole turn prints with
 * `--no-stream`. Turns that contradict themselves (an action and an answer, a placeholder answer) cannot:
 * what streamed stays and the whole turn is printed below it; they are counted apart.
 *
 * @module
 */

import { mulberry32 } from '../../scripts/lib/mulberry32.js';
import { randomChunks } from '../../scripts/lib/random-chunks.js';
import { LiveTurn } from '../../src/cli/live-turn.js';
import { turnParts } from '../../src/cli/turn-parts.js';
import {
  ENGLISH_LABELS,
  LABEL_SETS,
  type LabelLanguage,
  mergeLabels,
  primaryLabels,
} from '../../src/react/labels.js';
import { readReply } from '../../src/react/reply.js';
import type { Case } from './cases.js';

/** Chunkings tried per turn, besides one character at a time. */
export const PRINT_CHUNKINGS_PER_TURN = 10;

/** What the printed check found. */
export interface PrintedCheck {
  /** Turns printed exactly as the whole turn in every chunking. */
  same: number;
  /** Turns that contradict themselves, printed again whole below what streamed. */
  reprinted: string[];
  /** Any other turn whose streamed print differed (the goal: none). */
  misses: { id: string; chunks: string[]; printed: string; whole: string }[];
}

export function checkPrinted(turns: readonly Case[], seed = 16): PrintedCheck {
  const next = mulberry32(seed);
  const result: PrintedCheck = { same: 0, reprinted: [], misses: [] };
  for (const turn of turns) {
    const labels =
      turn.language === undefined || turn.language === 'en'
        ? ENGLISH_LABELS
        : mergeLabels(LABEL_SETS[turn.language as LabelLanguage]);
    const l = primaryLabels(labels);
    const tools = turn.tools ?? [];
    const read = readReply(turn.text, { labels, tools });
    const parts = turnParts(read.turn, turn.text, read.reasoning, l);
    const whole = parts.map((part) => `${part.text}\n`).join('');
    const chunkings = [[...turn.text]];
    for (let i = 0; i < PRINT_CHUNKINGS_PER_TURN; i++) chunkings.push(randomChunks(turn.text, next));
    let outcome: 'same' | 'reprinted' | 'miss' = 'same';
    for (const chunks of chunkings) {
      let printed = '';
      const live = new LiveTurn({
        labels,
        printLabels: l,
        tools,
        showReasoning: true,
        write: (text) => {
          printed += text;
        },
      });
      for (const chunk of chunks) live.text(chunk);
      live.finish(parts.map((part) => ({ ...part, style: (text: string) => text })));
      if (printed === whole) continue;
      if (printed.endsWith(`\n${whole}`) && read.turn.type === 'none') {
        outcome = 'reprinted';
        continue;
      }
      outcome = 'miss';
      result.misses.push({ id: turn.id, chunks, printed, whole });
      break;
    }
    if (outcome === 'same') result.same += 1;
    if (outcome === 'reprinted') result.reprinted.push(turn.id);
  }
  return result;
}
