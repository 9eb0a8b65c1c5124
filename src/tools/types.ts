/**
 * Tool definitions: data plus one function.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** A schema for a tool's input: zod 4, or any Standard Schema (https://standardschema.dev). */
export type ToolInputSchema = StandardSchemaV1;

/** What running a tool can change: `'read'` looks up, `'write'` changes local state, `'external'` reaches the world. */
export type ToolEffects = 'read' | 'write' | 'external';

/** Context passed to {@link Tool.run}. */
export interface ToolContext {
  /**
   * Aborted when the run is cancelled or the tool's timeout passes. Tools doing I/O should honour it.
   * The router makes it when it is first read (most tools never do), so it is an accessor: pass the context
   * on as it is, or read `signal` into a new object; a spread copy (`{ ...context }`) does not carry it.
   */
  readonly signal: AbortSignal;
  /**
   * Identifies this call of the tool within its run: `<run id>:step-<n>` (`<run id>:step-<n>-call-<k>` for
   * the `k`-th call of a native step that made several), the same on every attempt of the call, and on
   * every resume of a paused run's state (see `resumeAgent`). A durable run (Restate) gives at-least-once execution: a worker that dies after the tool's
   * effect but before the result was journaled runs the call again, with the same `callId`. Tools with
   * external effects (`effects: 'external'` or `'write'`) should pass it on as an idempotency key (an
   * `Idempotency-Key` header, a unique column) so the effect happens once. Outside a durable run the run id
   * is `durable.runId`, else a random UUID per run. Set on every call the loop makes; `undefined`
   * when the tool is called outside a run (`router.call` without a `callId`, or `tool.run` by hand).
   */
  readonly callId?: string | undefined;
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
  /** What the tool can change. Anything but `'read'` needs approval before it runs. @default 'read' */
  effects?: ToolEffects;
  /** Overrides the approval rule: `true` always asks, `false` never does. @default effects !== 'read' */
  needsApproval?: boolean;
  /**
   * When set, the model writes JSON in the brackets; the router parses and validates it and passes the
   * parsed value to `run`. Use `defineTool` to get a typed `run`.
   * @default none (the input is the text between the brackets)
   */
  inputSchema?: ToolInputSchema;
  /**
   * JSON Schema of the input object for native tool calling. `defineTool` fills it from a zod schema;
   * text tools are offered as `{ input: string }`.
   * @default none (`{ input: string }`)
   */
  inputJsonSchema?: Record<string, unknown>;
  /** Inputs longer than this are refused with an error observation. @default 200 */
  maxInputChars?: number;
  /** Output longer than this reaches the model truncated, with a marker saying how much was cut. @default 4000 */
  maxOutputChars?: number;
  /**
   * Time the tool may run before it is aborted and abandoned; a run's `limits.toolTimeoutMs`, when set,
   * takes its place. @default 30000
   */
  timeoutMs?: number;
  /**
   * State the tool keeps between calls of one run, for durable runs (a journal, e.g. Restate). After each
   * journaled call `save()` is recorded with the observation; when a resumed run replays that call from
   * the journal instead of running it, `restore(saved)` gets the value back, so later calls see the state
   * they would have seen (the Wikipedia tools' current page for `lookup` after `search`). The value must
   * be JSON and should stay small (the journal refuses an entry over its size limit).
   * @default undefined (a stateless tool)
   */
  snapshot?: ToolSnapshot;
  /**
   * Runs the tool on the text input (or the parsed value, for schema tools). A string is the observation;
   * any other value is turned into JSON (a reference back to an enclosing object is written `"[Circular]"`,
   * a `bigint` as its digits); a function, a symbol or a `toJSON` that throws is an `ok: false` error
   * observation. A thrown value becomes the observation `Error: <message>` (a non-Error is described, e.g.
   * `Error: a non-Error value: {"code":42}`); the loop goes on. A call cancelled while the tool runs, even
   * during its synchronous part, ends at once with `Error: <name> was cancelled.`
   */
  // biome-ignore lint/suspicious/noExplicitAny: schema tools receive their parsed value.
  run(input: any, context: ToolContext): unknown | Promise<unknown>;
}

/** See {@link Tool.snapshot}. */
export interface ToolSnapshot {
  /** The state to record after a call, as JSON (no functions, no cycles). */
  save(): unknown;
  /** Puts back the state recorded after a replayed call. */
  restore(saved: unknown): void;
}

/** Default for {@link Tool.maxInputChars}. */
export const DEFAULT_MAX_INPUT_CHARS = 200;
