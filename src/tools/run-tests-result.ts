/**
 * What `run_tests` tells the model about a run: the exit status, what a sandbox limit did when one was
 * hit, and the end of the output.
 *
 * @module
 */

import type { FileTooLargeError } from './safe-copy.js';
import type { ProcessGroupResult, SandboxLimits } from './sandbox.js';

/** The shell's exit status for a process killed by `SIGXFSZ` (128 + 25): it wrote past `RLIMIT_FSIZE`. */
export const FILE_SIZE_EXIT_CODE = 153;

/** How {@link formatResult} words a run. */
export interface ResultFormat {
  /** The sandbox's limits; `undefined` for an unsandboxed run (the output then starts `[unsandboxed]`). */
  sandbox: SandboxLimits | undefined;
  /** The test's time limit in milliseconds, named when it was reached. */
  timeoutMs: number;
  /** Characters of output kept, from the end. */
  maxOutputChars: number;
}

/**
 * `exit code N` (or how the run ended) on the first line, then, when a process of a sandboxed run was
 * killed by `SIGXFSZ` (exit code 153, or the signal itself), a line naming the per-file limit and what to
 * do, then the output's last `maxOutputChars` characters (`(no output)` when there was none).
 */
export function formatResult(result: ProcessGroupResult, format: ResultFormat): string {
  const status = result.timedOut
    ? `timed out after ${format.timeoutMs} ms; the test processes were killed`
    : result.exitCode !== null
      ? `exit code ${result.exitCode}`
      : `killed by ${result.signalName ?? 'a signal'}`;
  const chars = [...result.tail];
  const cut = chars.length > format.maxOutputChars || result.droppedBytes > 0;
  const tail = chars.slice(-format.maxOutputChars).join('');
  const header = `${format.sandbox ? '' : '[unsandboxed] '}${status}`;
  const note = fileSizeNote(result, format.sandbox);
  const body = tail.trim() === '' ? '(no output)' : `${cut ? '[... earlier output cut]\n' : ''}${tail}`;
  return `${header}\n${note === undefined ? '' : `${note}\n`}${body}`;
}

/** Why a sandboxed run ended with `SIGXFSZ`, or `undefined` when it did not. */
function fileSizeNote(result: ProcessGroupResult, limits: SandboxLimits | undefined): string | undefined {
  if (!limits || result.timedOut) return undefined;
  if (result.exitCode !== FILE_SIZE_EXIT_CODE && result.signalName !== 'SIGXFSZ') return undefined;
  const signal = result.exitCode === null ? 'SIGXFSZ' : `${FILE_SIZE_EXIT_CODE} is 128 + SIGXFSZ`;
  return (
    `(${signal}, "File size limit exceeded": a process was killed for writing a file over the sandbox's ` +
    `per-file limit of ${limits.maxFileBytes} bytes. Write smaller files, or the caller can raise ` +
    'limits.maxFileBytes.)'
  );
}

/** The message for a project file too large to copy into the sandbox: which file, its size, the limit. */
export function describeFileTooLarge(error: FileTooLargeError): string {
  return (
    `${error.file} is ${error.bytes} bytes, over the sandbox's per-file limit of ${error.limit} bytes, so ` +
    'the project cannot be copied into the sandbox; no test was run. Shrink the file or move it out of the ' +
    'project, or the caller can raise limits.maxFileBytes.'
  );
}
