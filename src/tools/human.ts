/**
 * The human tool: "you play the tool". The agent's action is shown to the person at the terminal, who
 * does it (or checks something) and types what they observed, which becomes the observation. Handy for
 * tutorials and for tasks where only a person can look.
 *
 * @module
 */
import { createInterface } from 'node:readline/promises';
import type { Tool } from './types.js';

/** Options for {@link createHumanTool}. */
export interface HumanToolOptions {
  /** Where the person's answer is read from. @default process.stdin */
  input?: NodeJS.ReadableStream;
  /**
   * Where the request is shown. Standard error by default, so that standard output stays free for results
   * (the CLI's `--json` prints only JSON there). @default process.stderr
   */
  output?: NodeJS.WritableStream;
  /** The tool's name in `Action: name[...]`. @default 'human' */
  name?: string;
  /** One line for the model. @default `DEFAULT_HUMAN_DESCRIPTION` */
  description?: string;
  /** What the person reads, e.g. translated. @default English: "The agent asks you to:", "What did you observe?" */
  messages?: { asks: string; observed: string };
  /** Turns the model's request into the text shown, e.g. escaping control characters. @default as is */
  show?: (request: string) => string;
  /**
   * Called on Ctrl-C at the prompt (readline in terminal mode takes Ctrl-C for itself). The question
   * ends either way; a caller such as the CLI uses this to stop the run. @default none
   */
  onInterrupt?: () => void;
  /**
   * Called when the input ends before the person answered (standard input closed, a pipe that ran out),
   * before `run` throws. Nobody can answer any more; a caller such as the CLI uses this to stop the run
   * rather than let the model go on without observations. @default none
   */
  onInputEnd?: () => void;
}

/** The default description of the human tool. */
export const DEFAULT_HUMAN_DESCRIPTION =
  'Asks the person at the terminal to perform an action or check something, and returns what they observed. Input: what to do or check.';

/** How long the human tool waits for an answer: 30 minutes, since a person may have to go and look. */
export const DEFAULT_HUMAN_TIMEOUT_MS = 30 * 60 * 1000;

/** What the observation says when the person answers with an empty line. */
export const NO_OBSERVATION = '(no observation)';

/**
 * Creates a tool that asks a person. For `Action: human[check the kettle]` it writes
 *
 * ```
 * The agent asks you to: check the kettle
 * What did you observe?
 * ```
 *
 * and returns the line typed in answer, trimmed (`NO_OBSERVATION` for an empty line).
 *
 * - `effects: 'read'`: it only asks a person, who decides what to do, so the loop asks no approval.
 * - `timeoutMs`: `DEFAULT_HUMAN_TIMEOUT_MS`. An aborted run or a timeout closes the prompt.
 * - One line per answer. Each question opens its own `readline` interface and closes it after the answer
 *   (so the terminal is left as it was between questions); with piped input, lines beyond the answer that
 *   arrived in the same chunk are dropped.
 * - When the input ends before a line is typed, `onInputEnd` is called and `run` throws, which the router
 *   reports as `Error: the input ended before anyone answered.`
 *
 * @example
 * ```ts
 * const result = await runAgent({ model, question: 'Is it raining here?', tools: [createHumanTool()] });
 * ```
 */
export function createHumanTool(options: HumanToolOptions = {}): Tool {
  return {
    name: options.name ?? 'human',
    description: options.description ?? DEFAULT_HUMAN_DESCRIPTION,
    inputHint: 'what to do or check',
    effects: 'read',
    timeoutMs: DEFAULT_HUMAN_TIMEOUT_MS,
    maxInputChars: 500,
    run: (request: string, { signal }) => askPerson(request, options, signal),
  };
}

const ENGLISH = { asks: 'The agent asks you to:', observed: 'What did you observe?' };

const INPUT_ENDED = 'the input ended before anyone answered.';

/** Shows the request, reads one line, and always closes the readline interface. */
async function askPerson(request: string, options: HumanToolOptions, signal: AbortSignal): Promise<string> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const messages = options.messages ?? ENGLISH;
  signal.throwIfAborted();
  // A stream that already ended never emits 'end' again: fail now rather than wait out the timeout.
  if ((input as { readableEnded?: boolean }).readableEnded === true) return inputEnded(options);
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const rl = createInterface({ input, output, terminal });
  const interrupted = new AbortController();
  rl.on('SIGINT', () => {
    interrupted.abort(new Error('interrupted (Ctrl-C)'));
    options.onInterrupt?.();
  });
  const ended = new Promise<never>((_, reject) => {
    rl.once('close', () => reject(new Error(INPUT_ENDED)));
  });
  ended.catch(() => undefined); // closing after an answer (or an abort) is not a failure
  try {
    output.write(`${messages.asks} ${options.show ? options.show(request) : request}\n`);
    const asking = AbortSignal.any([signal, interrupted.signal]);
    const answer = await Promise.race([rl.question(`${messages.observed} `, { signal: asking }), ended]);
    return answer.trim() || NO_OBSERVATION;
  } catch (error) {
    if (error instanceof Error && error.message === INPUT_ENDED) return inputEnded(options);
    throw error;
  } finally {
    rl.close();
  }
}

/** The input ended before an answer: tells the caller, then fails the call. */
function inputEnded(options: HumanToolOptions): never {
  options.onInputEnd?.();
  throw new Error(INPUT_ENDED);
}
