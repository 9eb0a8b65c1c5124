/**
 * A small spinner on standard error while the model works. Written here rather than taken from a package
 * because it needs only a few lines and keeps `taoloop --help` from loading anything more.
 *
 * @module
 */

/** A spinner that can be started and stopped any number of times. */
export interface Spinner {
  /** Shows `text` with a turning frame (or updates the text while it turns). */
  start(text: string): void;
  /** Clears the spinner's line. Safe to call when it is not turning. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;

/**
 * True when a spinner helps: the stream is a terminal that understands cursor movement, and we are not
 * in CI (whose logs keep every frame). The same test as ora's, so taoloop behaves like other CLIs.
 */
export function spinnerEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env.TERM !== 'dumb' && env.CI === undefined;
}

/** Creates a spinner writing to `stream`; it does nothing when `enabled` is false. */
export function createSpinner(stream: NodeJS.WritableStream, enabled: boolean): Spinner {
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  let text = '';
  const draw = () => {
    stream.write(`\r${FRAMES[frame % FRAMES.length]} ${text}\x1b[K`);
    frame += 1;
  };
  return {
    start(next) {
      if (!enabled) return;
      text = next;
      if (timer) return;
      draw();
      timer = setInterval(draw, INTERVAL_MS);
      // The spinner alone never keeps the process alive.
      timer.unref();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      stream.write('\r\x1b[K');
    },
  };
}
