/**
 * Stopping the run in progress from wherever the CLI notices it should: Ctrl-C at a prompt (readline in
 * terminal mode catches Ctrl-C itself and emits `'SIGINT'` on the interface, not on the process), and
 * standard output or error closing under the run (`taoloop run … | head -1`), and standard input ending
 * while the human tool waits for an answer (`taoloop ask` with its input closed: nobody can answer).
 *
 * `taoloop run` registers its handler while the run goes; the prompts (approval, the human tool) call
 * {@link interruptRun}. With no run registered, Ctrl-C is passed to the process as SIGINT, as if readline
 * had not caught it.
 *
 * @module
 */

/** Why the run is asked to stop. */
export type InterruptReason = 'ctrl-c' | 'output-closed' | 'input-ended';

type Handler = (reason: InterruptReason) => void;

let current: Handler | undefined;

/** Makes `handler` receive interrupts until the returned function is called. */
export function onRunInterrupt(handler: Handler): () => void {
  current = handler;
  return () => {
    if (current === handler) current = undefined;
  };
}

/** True while a run has registered a handler. */
export function runInProgress(): boolean {
  return current !== undefined;
}

/** Ctrl-C (or closed output, or the end of the input) reached the CLI: stop the run in progress. */
export function interruptRun(reason: InterruptReason = 'ctrl-c'): void {
  if (current) {
    current(reason);
    return;
  }
  if (reason === 'ctrl-c') process.kill(process.pid, 'SIGINT');
}

let guarded = false;

/**
 * Makes a closed standard output or error (EPIPE: the reader went away, as `head -1` does) end the CLI
 * quietly instead of crashing with a stack trace: the run in progress, if any, is stopped as by Ctrl-C
 * (status `aborted`, its trace complete) and later writes are dropped. Other stream errors are thrown as
 * before. Idempotent.
 */
export function quitQuietlyWhenOutputCloses(
  streams: NodeJS.WritableStream[] = [process.stdout, process.stderr],
): void {
  if (guarded) return;
  guarded = true;
  let closed = false;
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED' && !closed) throw error;
      if (closed) return;
      closed = true;
      interruptRun('output-closed');
    });
  }
}
