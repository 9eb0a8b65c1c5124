/**
 * The `human` tool as the CLI offers it: `createHumanTool` with the person's prompts in the run's language,
 * the model's request shown through {@link safeText}, and Ctrl-C at the prompt or the end of the input
 * stopping the run.
 *
 * @module
 */
import { createHumanTool } from '../tools/human.js';
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
  /**
   * Called when the input ends before an answer: nobody is left to answer, so by default the run stops
   * (status `aborted`, its error saying the input ended) instead of the model going on without observations.
   * @default {@link interruptRun} with `'input-ended'`
   */
  onInputEnd?: () => void;
}

/** Creates the CLI's human tool, speaking `messages`' language to the person and to the model. */
export function cliHumanTool(messages: CliMessages, streams: HumanToolStreams = {}): Tool {
  return createHumanTool({
    description: messages.humanToolDescription,
    messages: { asks: messages.humanAsks, observed: messages.humanObserved },
    show: safeText,
    onInterrupt: streams.onInterrupt ?? (() => interruptRun('ctrl-c')),
    onInputEnd: streams.onInputEnd ?? (() => interruptRun('input-ended')),
    ...(streams.input && { input: streams.input }),
    ...(streams.output && { output: streams.output }),
  });
}
