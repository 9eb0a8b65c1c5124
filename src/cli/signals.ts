/**
 * The signals that stop a CLI command the way Ctrl-C does: SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`,
 * `docker stop`) and SIGHUP (the terminal went away). A command listens for all three while it runs, ends
 * its work cleanly (a run ends `aborted` with a complete trace), and exits with the shell's convention,
 * 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
 *
 * @module
 */

/** The signals that stop a command. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** One of {@link STOP_SIGNALS}. */
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The exit code for a command a signal stopped: 128 + the signal's number (130, 143, 129). */
export function signalExitCode(signal: StopSignal): number {
  switch (signal) {
    case 'SIGINT':
      return 130;
    case 'SIGTERM':
      return 143;
    case 'SIGHUP':
      return 129;
    default:
      return signal satisfies never;
  }
}

/** Calls `handler` on each stop signal until the returned function is called. */
export function onStopSignals(handler: (signal: StopSignal) => void): () => void {
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => handler(signal);
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}
