/**
 * The human model: the person at the terminal plays the model. Each turn shows what the model would have
 * just received (the whole prompt on the first turn, then the latest observation) and reads the Thought
 * and Action (or Answer) lines the person types, ending with an empty line. Real tools answer, so this is
 * the loop walked by hand: the quickest way to learn how an agent behaves.
 *
 * @module
 */
import { createInterface } from 'node:readline';
import type { Model, ModelMessage, ModelRequest, ModelResponse } from './types.js';

/** What the human model says to the person. */
export interface HumanModelMessages {
  /** Shown once, above the prompt the model would see. */
  intro: string;
  /** Shown before each turn. */
  turn: string;
}

/** Options for {@link humanModel}. */
export interface HumanModelOptions {
  /** Where the person's lines are read from. @default process.stdin */
  input?: NodeJS.ReadableStream;
  /** Where the prompt is shown; standard error so that standard output stays free for results. @default process.stderr */
  output?: NodeJS.WritableStream;
  /** @default English messages */
  messages?: Partial<HumanModelMessages>;
  /** The model id in traces and results. @default 'human' */
  id?: string;
}

/** The default (English) messages of {@link humanModel}. */
export const HUMAN_MODEL_MESSAGES: HumanModelMessages = {
  intro:
    'You are the model. This is the prompt it would see; write each turn as it should (the program runs the tools).',
  turn: 'Your turn: type Thought and Action lines (or Thought and Answer); an empty line ends the turn.',
};

const INPUT_ENDED = 'the input ended before the turn was finished.';

/**
 * Creates a model whose turns a person types.
 *
 * - `generate` shows the new messages, then reads lines until an empty line (empty lines before the first
 *   text are ignored) and returns them joined by newlines as the model text, finish reason `stop`.
 * - Usage is unknown (`{}`): nobody counts a person's tokens. No `stream()`, no tool calling (text mode).
 * - The run's abort signal closes the prompt and rejects with the signal's reason. Ctrl-C at a terminal
 *   (which readline catches in raw mode) is sent on to the process as SIGINT, so it stops the run as it
 *   would anywhere else.
 * - When the input ends first, `generate` rejects (the run ends with status `error`).
 *
 * @example
 * ```ts
 * const result = await runAgent({ model: humanModel(), question: 'What is 17 * 23?', tools: [calculator] });
 * ```
 */
export function humanModel(options: HumanModelOptions = {}): Model {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const messages = { ...HUMAN_MODEL_MESSAGES, ...options.messages };
  let calls = 0;
  return {
    id: options.id ?? 'human',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      request.signal?.throwIfAborted();
      calls += 1;
      // First turn: the whole prompt, to learn what a model sees. Later: the observation that just came back.
      const last = request.messages.at(-1);
      const lines =
        calls === 1
          ? [messages.intro, '', ...request.messages.map(show)]
          : last && last.role !== 'assistant'
            ? [show(last)]
            : [];
      output.write(`\n${lines.join('\n')}\n\n${messages.turn}\n`);
      const text = await readTurn(input, output, request.signal);
      return { text, usage: {}, finishReason: 'stop' };
    },
  };
}

/** A message as the person reads it: the system prompt boxed off, the rest as written. */
function show(message: ModelMessage): string {
  if (message.role === 'system')
    return `----- system prompt -----\n${message.content}\n-------------------------`;
  return message.content;
}

/** Reads lines until an empty line after some text. */
function readTurn(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, signal?: AbortSignal) {
  // A stream that already ended never emits 'end' again: fail now rather than wait forever.
  if ((input as { readableEnded?: boolean }).readableEnded === true)
    return Promise.reject(new Error(INPUT_ENDED));
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const rl = createInterface({ input, output, terminal, prompt: '> ' });
  return new Promise<string>((resolve, reject) => {
    const lines: string[] = [];
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      finish();
      rl.close();
    };
    const onAbort = () => settle(() => reject(signal?.reason ?? new Error('aborted')));
    signal?.addEventListener('abort', onAbort, { once: true });
    rl.on('line', (line) => {
      if (line.trim() === '' && lines.length > 0) return settle(() => resolve(lines.join('\n')));
      if (line.trim() !== '') lines.push(line);
      rl.prompt();
    });
    rl.on('close', () => settle(() => reject(new Error(INPUT_ENDED))));
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    rl.prompt();
  });
}
