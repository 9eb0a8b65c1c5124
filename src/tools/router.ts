/**
 * The tool router: runs only the tools it was given, and turns every failure into an observation the model
 * can act on, so a failing tool never crashes the loop.
 *
 * @module
 */
import { errorMessage, getOwn } from '../util/own.js';
import { DEFAULT_MAX_INPUT_CHARS, type Tool } from './types.js';

/** Tool names: letters, digits, `_` and `-`, starting with a letter (any script). */
const TOOL_NAME = /^\p{L}[\p{L}\p{N}_-]*$/u;

/** Default time a tool may run before the router abandons it. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** The outcome of one tool call. `observation` is what the model sees next. */
export interface ToolOutcome {
  /** False when the tool was unknown, refused the input, threw or timed out. */
  ok: boolean;
  observation: string;
  durationMs: number;
}

/** Thrown by {@link createToolRouter} for a caller mistake in the tool list. */
export class ToolConfigError extends Error {
  override name = 'ToolConfigError';
}

/** Runs tool calls by name. Create one with {@link createToolRouter}. */
export interface ToolRouter {
  /** The tools, in the order given. */
  readonly tools: readonly Tool[];
  /** The tool names, in the order given. */
  readonly names: readonly string[];
  /**
   * Runs `tool` on `input`. Never throws: an unknown tool, an input over the tool's limit, a thrown error
   * or a timeout all become an `Error: ...` observation with `ok: false`.
   */
  call(
    tool: string,
    input: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ToolOutcome>;
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
    if (getOwn(byName, tool.name)) throw new ToolConfigError(`Two tools are named "${tool.name}".`);
    byName[tool.name] = tool;
  }
  const names = tools.map((t) => t.name);
  return {
    tools,
    names,
    async call(name, input, options = {}) {
      const started = performance.now();
      const done = (ok: boolean, observation: string): ToolOutcome => ({
        ok,
        observation,
        durationMs: Math.round(performance.now() - started),
      });
      const tool = getOwn(byName, name);
      if (!tool) return done(false, `Error: unknown tool "${name}". Use: ${names.join(', ')}`);
      const limit = tool.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
      if (input.length > limit) {
        return done(
          false,
          `Error: the input to ${name} is ${input.length} characters; the limit is ${limit}. Shorten it.`,
        );
      }
      try {
        const output = await runWithTimeout(
          tool,
          input,
          options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
          options.signal,
        );
        return done(true, output);
      } catch (error) {
        return done(false, `Error: ${errorMessage(error)}`);
      }
    },
  };
}

/** Runs a tool with a deadline; a tool that ignores its abort signal is abandoned, not awaited. */
async function runWithTimeout(
  tool: Tool,
  input: string,
  timeoutMs: number,
  outer?: AbortSignal,
): Promise<string> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onOuterAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${tool.name} timed out after ${timeoutMs} ms.`));
      controller.abort();
    }, timeoutMs);
    onOuterAbort = () => {
      reject(new Error(`${tool.name} was cancelled.`));
      controller.abort(outer?.reason);
    };
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
  });
  try {
    const running = Promise.resolve().then(() => tool.run(input, { signal: controller.signal }));
    // An abandoned tool may still fail later; that must not surface as an unhandled rejection.
    running.catch(() => undefined);
    return String(await Promise.race([running, deadline]));
  } finally {
    clearTimeout(timer);
    if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort);
  }
}
