/**
 * A chat's run in flight, kept in memory by chat id so that `useChat({ resume: true })` gets its stream back
 * after a reload (the AI SDK's resumable streams, for one server process): the response's server-sent
 * events are recorded as they are sent, and a resume replays them from the start, then follows the run to
 * its end. See `createAgentUIStreamResponse`'s `streams` option.
 *
 * @module
 */

/** One chat's run and the server-sent events its response sent so far. */
export class ChatStream {
  readonly #events: string[] = [];
  #done = false;
  /** Readers waiting for the next event (or the end). */
  #waiting: (() => void)[] = [];
  readonly #controller = new AbortController();

  /** Aborts the run (see {@link stop}); the run's own signal, in place of the request's. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the run's stream ended (the entry then leaves the map). */
  get done(): boolean {
    return this.#done;
  }

  /**
   * Stops the run: what a stop button's route calls, since with resumable streams a client that goes
   * away (a reload, `stop()`) only closes its connection and the run goes on.
   */
  stop(reason: unknown = new DOMException('The chat was stopped.', 'AbortError')): void {
    this.#controller.abort(reason);
  }

  /**
   * Reads `stream` (a copy of the response's events) to its end, keeping each event; `ended` is called when
   * it ends (before any reader hears of it).
   */
  async record(stream: ReadableStream<string>, ended?: () => void): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#events.push(value);
        this.#wake();
      }
    } finally {
      this.#done = true;
      ended?.();
      this.#wake();
      reader.releaseLock();
    }
  }

  /** The events sent so far, then each one as it is sent, until the run's stream ends. */
  replay(): ReadableStream<string> {
    let next = 0;
    return new ReadableStream<string>({
      pull: async (controller) => {
        while (next >= this.#events.length && !this.#done) {
          await new Promise<void>((resolve) => this.#waiting.push(resolve));
        }
        if (next < this.#events.length) controller.enqueue(this.#events.slice(next).join(''));
        next = this.#events.length;
        if (this.#done) controller.close();
      },
    });
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** The chat id in a resume request's URL (the AI SDK's default: `<api>/<chat id>/stream`), if any. */
export function chatIdInResumeUrl(url: string): string | undefined {
  const match = /\/([^/]+)\/stream\/?$/.exec(new URL(url, 'http://localhost').pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}
