/**
 * The `human` tool as the CLI offers it: `createHumanTool` (name, effects, limits) with the person's
 * prompts in the run's language, and Ctrl-C at the prompt stopping the run. `src/tools/human.ts` has
 * English prompts only, and readline in raw mode swallows Ctrl-C unless someone listens for it. What the
 * model asks is shown through {@link safeText}.
 *
 * @module
 */
import { createInterface } from 'node:readline/promises';
import { createHumanTool, NO_OBSERVATION } from '../tools/human.js';
import type { Tool } from '../tools/types.js';
import type { CliMessages } from './i18n.js';
import { interruptRun } from './interrupt.js';
import { safeText } from './safe-text.js';

/** Streams the tool talks to; the terminal's by default (standard error, so stdout stays for results). */
export interface HumanToolStreams {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Called on Ctrl-C at the prompt. @default {@link interruptRun}: stop the run in progress */
  onInterrupt?: () => void;
}

const INPUT_ENDED = 'the input ended before anyone answered.';

/** Creates the CLI's human tool, speaking `messages`' language to the person and to the model. */
export function cliHumanTool(messages: CliMessages, streams: HumanToolStreams = {}): Tool {
  const base = createHumanTool({ description: messages.humanToolDescription });
  const input = streams.input ?? process.stdin;
  const output = streams.output ?? process.stderr;
  const onInterrupt = streams.onInterrupt ?? (() => interruptRun('ctrl-c'));
  return {
    ...base,
    run: async (request, { signal }) => {
      signal.throwIfAborted();
      if ((input as { readableEnded?: boolean }).readableEnded === true) throw new Error(INPUT_ENDED);
      const terminal = (input as { isTTY?: boolean }).isTTY === true;
      const rl = createInterface({ input, output, terminal });
      // Ctrl-C stops the run, whose signal then ends the question.
      const interrupted = new AbortController();
      rl.on('SIGINT', () => {
        interrupted.abort(new Error('interrupted (Ctrl-C)'));
        onInterrupt();
      });
      const asking = AbortSignal.any([signal, interrupted.signal]);
      const ended = new Promise<never>((_, reject) => {
        rl.once('close', () => reject(new Error(INPUT_ENDED)));
      });
      ended.catch(() => undefined); // closing after an answer (or an abort) is not a failure
      try {
        output.write(`${messages.humanAsks} ${safeText(request)}\n`);
        const answer = await Promise.race([
          rl.question(`${messages.humanObserved} `, { signal: asking }),
          ended,
        ]);
        return answer.trim() || NO_OBSERVATION;
      } finally {
        rl.close();
      }
    },
  };
}
