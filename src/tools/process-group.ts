/**
 * Running a command as the leader of its own process group, so that a timeout or an abort kills
 * everything it started, keeping only a rolling tail of its output.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Sends `signal` to the whole process group led by `pid` (started with `detached: true`).
 * A group that is already gone is not an error.
 */
export function killProcessGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to kill.
  }
}

/** Options for {@link runProcessGroup}. */
export interface ProcessGroupOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment: nothing of the caller's is inherited (it may hold API keys). */
  env: Record<string, string>;
  /** Milliseconds before the group is killed. */
  timeoutMs: number;
  /** Aborting kills the group. */
  signal?: AbortSignal;
  /** Bytes of combined stdout and stderr kept, from the end. */
  maxTailBytes: number;
  /** Open descriptors the command receives as fds 3, 4, ... (in this order). @default none */
  passFds?: readonly number[];
}

/** How a process group run ended. */
export interface ProcessGroupResult {
  /** Exit code, or `null` when a signal ended it. */
  exitCode: number | null;
  signalName: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The last `maxTailBytes` bytes of output, as UTF-8 text. */
  tail: string;
  /** Output bytes dropped from the front. */
  droppedBytes: number;
}

/**
 * Runs a command as the leader of a new process group and waits for it. On timeout or abort, and again
 * once the leader exits (to end background processes it left), the whole group gets SIGKILL. Only a
 * rolling tail of the output is kept, so a chatty process cannot fill memory.
 *
 * @throws {Error} when the command cannot be started (the message names the command).
 */
export function runProcessGroup(options: ProcessGroupOptions): Promise<ProcessGroupResult> {
  return new Promise((resolve, reject) => {
    const tail = new TailBuffer(options.maxTailBytes);
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(options.passFds ?? [])],
    });
    let timedOut = false;
    let aborted = false;
    const kill = () => killProcessGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    // Both are pipes (stdio above), so never null.
    const stdout = child.stdout!;
    const stderr = child.stderr!;
    stdout.on('data', (chunk: Buffer) => tail.push(chunk));
    stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      done();
      reject(
        new Error(`Could not start ${path.basename(options.command)} (${error.code ?? error.message}).`),
      );
    });
    child.on('exit', (exitCode, signalName) => {
      kill();
      // Output still buffered in the pipes arrives before 'close'; a process that escaped the group could
      // hold them open forever, so stop waiting after a moment.
      const grace = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
      }, 1000);
      child.once('close', () => {
        clearTimeout(grace);
        done();
        const { text, dropped } = tail.read();
        resolve({ exitCode, signalName, timedOut, aborted, tail: text, droppedBytes: dropped });
      });
    });
  });
}

/** Keeps the last `max` bytes pushed into it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.max) {
      const first = this.chunks.shift()!;
      this.size -= first.length;
      this.dropped += first.length;
    }
  }

  read(): { text: string; dropped: number } {
    const all = Buffer.concat(this.chunks);
    const cut = Math.max(all.length - this.max, 0);
    // The cut may land inside a UTF-8 character; drop its replacement character.
    const text = all
      .subarray(cut)
      .toString('utf8')
      .replace(/^\uFFFD+/, '');
    return { text, dropped: this.dropped + cut };
  }
}
