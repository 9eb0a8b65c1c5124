/**
 * Tool definitions: data plus one function.
 *
 * @module
 */

/** What running a tool can change. Anything but `'read'` is a side effect that needs approval (issue 4). */
export type ToolEffects = 'read' | 'write' | 'external';

/** Context passed to {@link Tool.run}. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the tool's timeout passes. Tools doing I/O should honour it. */
  signal: AbortSignal;
}

/**
 * A tool the model can call as `Action: name[input]`.
 *
 * @example
 * ```ts
 * const echo: Tool = { name: 'echo', description: 'Repeats its input.', run: (input) => input };
 * ```
 */
export interface Tool {
  /** Name the model writes in `Action: name[...]`: letters, digits, `_` and `-`. */
  name: string;
  /** One line telling the model what the tool does and what input it takes. */
  description: string;
  /** How to write the input, shown in the prompt as `name[<inputHint>]`. @default 'input' */
  inputHint?: string;
  /** What the tool can change. @default 'read' */
  effects?: ToolEffects;
  /** Inputs longer than this are refused with an error observation. @default 200 */
  maxInputChars?: number;
  /** Output longer than this reaches the model truncated, with a marker saying how much was cut. @default 4000 */
  maxOutputChars?: number;
  /** Time the tool may run before it is aborted and abandoned. @default 30000 */
  timeoutMs?: number;
  /** Runs the tool. A thrown error becomes the observation `Error: <message>`; the loop goes on. */
  run(input: string, context: ToolContext): string | Promise<string>;
}

/** Default for {@link Tool.maxInputChars}. */
export const DEFAULT_MAX_INPUT_CHARS = 200;
