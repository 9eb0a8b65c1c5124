/**
 * Loading a browser model without hanging: wllama gives no error for some failures (a `.wasm` URL that
 * answers with a 404 page makes its worker abort, and the load promise never settles; a server that never
 * answers leaves the download waiting forever), so {@link browserModel} checks the `.wasm` URL first,
 * watches the load for progress, and words each failure as what failed and what to do.
 *
 * @module
 */
import { errorMessage } from '../util/own.js';
import { ModelConfigError } from './errors.js';

/** Where wllama's WebAssembly file is in its package (what `wasmUrl` must serve). */
const WASM_FILE = '@wllama/wllama/esm/wasm/wllama.wasm';
/** The first bytes of every WebAssembly module: `\0asm`. */
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/**
 * Checks that `wasmUrl` serves a WebAssembly file: fetches it and reads only its first bytes.
 *
 * @throws {ModelConfigError} when the fetch fails, the server answers an error status, or the body is not
 *   WebAssembly (e.g. a page served for every unknown path); the message names the URL and what to serve.
 */
export async function checkWasmUrl(wasmUrl: string, signal: AbortSignal): Promise<void> {
  const fail = (problem: string, cause?: unknown): never => {
    throw new ModelConfigError(
      `Cannot load the browser model: wllama's WebAssembly file at wasmUrl ${wasmUrl} ${problem}. Serve ${WASM_FILE} (from the installed @wllama/wllama) at that URL, or set wasmUrl to where it is served.`,
      cause === undefined ? undefined : { cause },
    );
  };
  let response: Response;
  try {
    response = await fetch(wasmUrl, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    return fail(
      `could not be fetched (${errorMessage(error)}; a URL on another origin must allow this page through CORS)`,
      error,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return fail(`answered HTTP ${response.status}`);
  }
  const head = await firstBytes(response, WASM_MAGIC.length);
  if (!WASM_MAGIC.every((byte, index) => head[index] === byte)) {
    const text = new TextDecoder().decode(head).replace(/[^\x20-\x7e]/g, '?');
    fail(
      `is not a WebAssembly file (it starts with ${JSON.stringify(text)}; a server that answers unknown paths with a page does this)`,
    );
  }
}

/** The first `count` bytes of a response's body (fewer if it is shorter); the rest is not downloaded. */
async function firstBytes(response: Response, count: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  const head = new Uint8Array(count);
  let length = 0;
  if (!reader) return head.subarray(0, 0);
  try {
    while (length < count) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, count - length);
      head.set(part, length);
      length += part.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return head.subarray(0, length);
}

/**
 * A timer that fails a load making no progress: `enter(doing, advice)` says what the load does now and what
 * to check if it stalls there (and counts as progress), `progress()` restarts the timer, and `expired`
 * rejects with a {@link ModelConfigError} once `ms` pass without progress, its message
 * `describe(doing, advice)`. Not started until the first `enter`; `stop()` when the load has ended.
 */
export function loadWatchdog(ms: number, describe: (doing: string, advice: string) => string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stage = { doing: '', advice: '' };
  let reject: (error: Error) => void = () => undefined;
  const expired = new Promise<never>((_, fail) => {
    reject = fail;
  });
  const progress = () => {
    clearTimeout(timer);
    timer = setTimeout(() => reject(new ModelConfigError(describe(stage.doing, stage.advice))), ms);
  };
  return {
    expired,
    enter(doing: string, advice: string) {
      stage = { doing, advice };
      progress();
    },
    progress,
    stop: () => clearTimeout(timer),
  };
}

/**
 * The error for a model that failed to load: names the model and wllama's reason, and says what to check
 * (the URL when fetching failed, else the file).
 */
export function loadError(source: string | undefined, name: string, error: unknown): ModelConfigError {
  const reason = errorMessage(error);
  const fetching =
    source !== undefined &&
    (error instanceof TypeError || /failed to fetch|HTTP \d{3}|network|invalid model url/i.test(reason));
  const message =
    source === undefined
      ? `Cannot load the browser model ${name}: ${reason}. Check that the file is a GGUF model (a split model's parts in order) that fits in the page's memory.`
      : fetching
        ? `Cannot load the browser model from ${source}: ${reason}. Check the URL: it must point to a .gguf file this page can fetch (same origin, or a server whose CORS headers allow this page).`
        : `Cannot load the browser model from ${source}: ${reason}. Check that the file is a GGUF model llama.cpp supports and that it fits in the page's memory.`;
  return new ModelConfigError(message, { cause: error });
}
