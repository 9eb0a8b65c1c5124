/**
 * The tool router: runs only the tools it was given, and turns every failure into an observation the model
 * can act on, so a failing tool never crashes the loop.
 *
 * A call has two halves so the loop can ask for approval in between: {@link ToolRouter.prepare} looks the
 * tool up (own properties only), checks the input length and validates schema input; {@link
 * ToolRouter.execute} runs it under a timeout and truncates long output.
 *
 * @module
 */
import { errorMessage, isPromiseLike, ownField } from '../util/own.js';
import { toolOutputText } from './tool-output.js';
import { DEFAULT_MAX_INPUT_CHARS, type Tool, type ToolContext } from './types.js';
import { validateToolInput } from './validate.js';

/** Tool names: letters, digits, `_` and `-`, starting with a letter (any script). */
const TOOL_NAME = /^\p{L}[\p{L}\p{N}_-]*$/u;

/** Default time a tool may run before the router abandons it. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** Default cap on the observation a tool produces, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 4000;

/** The outcome of one tool call. `observation` is what the model sees next. */
export interface ToolOutcome {
  /** False when the tool was unknown, refused the input, threw or timed out. */
  ok: boolean;
  observation: string;
  /** The whole output when `observation` was truncated (kept for the trace). */
  fullOutput?: string;
  durationMs: number;
}

/** A call that passed lookup and validation and may run. */
export interface PreparedCall {
  ok: true;
  tool: Tool;
  /** The text from the brackets. */
  rawInput: string;
  /** What `run` receives: the text, or the parsed and validated value for schema tools. */
  input: unknown;
  /** True when the tool's effects (or its `needsApproval`) require approval before it runs. */
  needsApproval: boolean;
}

/** A call refused before running; `observation` says why. */
export interface RefusedCall {
  ok: false;
  observation: string;
}

/** Thrown by {@link createToolRouter} for a caller mistake in the tool list. */
export class ToolConfigError extends Error {
  override name = 'ToolConfigError';
}

/** Options for running a prepared call. */
export interface ExecuteOptions {
  /** Cancels the call (the tool sees it through its own signal and is abandoned). */
  signal?: AbortSignal | undefined;
  /** Time the tool may run, in ms. @default the tool's `timeoutMs`, else `DEFAULT_TOOL_TIMEOUT_MS` */
  timeoutMs?: number | undefined;
  /** The call's identifier, passed to the tool as `context.callId` (see {@link ToolContext.callId}). */
  callId?: string | undefined;
}

/** Runs tool calls by name. Create one with {@link createToolRouter}. */
export interface ToolRouter {
  /** The tools, in the order given. */
  readonly tools: readonly Tool[];
  /** The tool names, in the order given. */
  readonly names: readonly string[];
  /** Looks the tool up and validates the input. Never throws. */
  prepare(tool: string, input: string): PreparedCall | RefusedCall;
  /** Runs a prepared call with a deadline. Never throws: failures become `Error: ...` observations. */
  execute(call: PreparedCall, options?: ExecuteOptions): Promise<ToolOutcome>;
  /**
   * {@link execute}, but the outcome of a tool that returns synchronously comes back synchronously (no
   * promise, no microtask): the loop's path for every step. Never throws or rejects.
   */
  runPrepared(call: PreparedCall, options?: ExecuteOptions): ToolOutcome | Promise<ToolOutcome>;
  /** {@link prepare} then {@link execute}, without approval: for tests and trusted callers. */
  call(tool: string, input: string, options?: ExecuteOptions): Promise<ToolOutcome>;
}

/**
 * Builds a router over `tools`.
 *
 * @throws {ToolConfigError} when a name is invalid or used twice.
 */
export function createToolRouter(tools: readonly Tool[]): ToolRouter {
  const byName: Record<string, Tool> = Object.create(null);
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) {
      throw new ToolConfigError(
        `Invalid tool name "${tool.name}": use letters, digits, "_" and "-", starting with a letter.`,
      );
    }
    if (ownField(byName, tool.name)) throw new ToolConfigError(`Two tools are named "${tool.name}".`);
    byName[tool.name] = tool;
  }
  const names = tools.map((t) => t.name);
  const router: ToolRouter = {
    tools,
    names,
    prepare(name, rawInput) {
      const tool = ownField(byName, name);
      if (!tool) return { ok: false, observation: `Error: unknown tool "${name}". Use: ${names.join(', ')}` };
      const limit = tool.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
      if (rawInput.length > limit) {
        return {
          ok: false,
          observation: `Error: the input to ${name} is ${rawInput.length} characters; the limit is ${limit}. Shorten it.`,
        };
      }
      const validated = validateToolInput(tool, rawInput);
      if (!validated.ok) return { ok: false, observation: `Error: ${validated.problem}` };
      const needsApproval = toolNeedsApproval(tool);
      return { ok: true, tool, rawInput, input: validated.value, needsApproval };
    },
    runPrepared(call, options = {}) {
      const started = performance.now();
      const timeoutMs = options.timeoutMs ?? call.tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
      let output: unknown;
      try {
        output = runWithTimeout(call, timeoutMs, options.signal, options.callId);
      } catch (error) {
        return failed(error, started);
      }
      if (!isPromiseLike(output)) return finished(call, output, started);
      return Promise.resolve(output).then(
        (value) => finished(call, value, started),
        (error: unknown) => failed(error, started),
      );
    },
    async execute(call, options) {
      return router.runPrepared(call, options);
    },
    async call(name, input, options = {}) {
      const prepared = router.prepare(name, input);
      if (!prepared.ok) return { ok: false, observation: prepared.observation, durationMs: 0 };
      return router.execute(prepared, options);
    },
  };
  return router;
}

/**
 * Whether `tool` must be approved before it runs. Fails closed: it asks unless the tool's own
 * `needsApproval` is exactly `false`, or `needsApproval` is unset and `effects` is unset or exactly
 * `'read'` (a misspelt effect such as `'READ'` asks). An inherited `needsApproval` (say, `false` set on
 * `Object.prototype`) counts as unset. `effects` is read as it is: any value but `'read'` asks, so an
 * inherited one can only make a tool ask.
 */
export function toolNeedsApproval(tool: Pick<Tool, 'effects' | 'needsApproval'>): boolean {
  const needsApproval = ownField(tool, 'needsApproval');
  if (needsApproval === false) return false;
  if (needsApproval !== undefined) return true;
  return tool.effects !== undefined && tool.effects !== 'read';
}

const elapsedMs = (started: number) => Math.round(performance.now() - started);

/** The outcome of a tool that returned `output`: its text, truncated to the tool's limit. */
function finished(call: PreparedCall, output: unknown, started: number): ToolOutcome {
  const converted = toolOutputText(output);
  if (!converted.ok)
    return { ok: false, observation: `Error: ${converted.problem}`, durationMs: elapsedMs(started) };
  const text = converted.text;
  const limit = call.tool.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  if (text.length <= limit) return { ok: true, observation: text, durationMs: elapsedMs(started) };
  const cut = text.length - limit;
  const observation = `${text.slice(0, limit)}\n[... output truncated: ${cut} more characters not shown]`;
  return { ok: true, observation, fullOutput: text, durationMs: elapsedMs(started) };
}

/** The outcome of a tool that threw, rejected, timed out or was cancelled. */
function failed(error: unknown, started: number): ToolOutcome {
  return { ok: false, observation: `Error: ${errorMessage(error)}`, durationMs: elapsedMs(started) };
}

/**
 * The context a tool runs with: its `signal` (and the AbortController behind it) is made only when the
 * tool reads it. A class, not an object literal with a getter, which is several times slower to create.
 */
class LazySignal {
  #controller: AbortController | undefined;
  readonly #outer: AbortSignal | undefined;
  /** Set when the call was aborted before the tool read its signal: a late read gets it aborted. */
  #abortedWith: { reason: unknown } | undefined;

  /** See {@link ToolContext.callId}. */
  readonly callId: string | undefined;

  constructor(outer: AbortSignal | undefined, callId: string | undefined) {
    this.#outer = outer;
    this.callId = callId;
  }

  /** Aborted when the call times out or the run is cancelled. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abortedWith) this.#controller.abort(this.#abortedWith.reason);
      else if (this.#outer?.aborted) this.#controller.abort(this.#outer.reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the tool's signal, now or when the tool first reads it (a static, so tools do not see it). */
  static abort(context: LazySignal, reason?: unknown): void {
    if (context.#controller) context.#controller.abort(reason);
    else context.#abortedWith ??= { reason };
  }
}

/**
 * Runs a tool with a deadline; a tool that ignores its abort signal is abandoned, not awaited. A tool that
 * returns synchronously needs no deadline (its value is returned as it is, and a throw is thrown), and the
 * AbortController is made only when the tool reads its signal: both are on every step's path, and most
 * tools need neither.
 */
function runWithTimeout(
  call: PreparedCall,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  callId: string | undefined,
): unknown {
  const { tool } = call;
  if (outer?.aborted) throw new Error(`${tool.name} was cancelled.`);
  const context = new LazySignal(outer, callId);
  const result = tool.run(call.input, context);
  if (!isPromiseLike(result)) return result;
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${tool.name} timed out after ${timeoutMs} ms.`));
      LazySignal.abort(context);
    }, timeoutMs);
    onOuterAbort = () => {
      reject(new Error(`${tool.name} was cancelled.`));
      LazySignal.abort(context, outer?.reason);
    };
    // The tool may have been cancelled while its synchronous part ran (a listener added now would never fire).
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
  });
  const running = Promise.resolve(result);
  // An abandoned tool may still fail later; that must not surface as an unhandled rejection.
  running.catch(() => undefined);
  return Promise.race([running, deadline]).finally(() => {
    clearTimeout(timer);
    if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort);
  });
}
