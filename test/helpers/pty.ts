import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A process running in a pseudo-terminal (util-linux `script`), so it sees a TTY on stdin and stdout. */
export interface PtyProcess {
  /** Everything the process printed so far. */
  output(): string;
  /** Types text (add `\r` for Enter). */
  type(text: string): void;
  /** Resolves once the output matches, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
  /**
   * Sends `signal` to the command itself, as `kill` or `timeout` would (`kill` above signals `script`, which
   * then ends its session by force). Linux only: the command is found in `/proc`.
   */
  signalCommand(signal: NodeJS.Signals): void;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Starts `command args` in a pseudo-terminal. */
export function spawnPty(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): PtyProcess {
  // `script -c` runs the line through `$SHELL -c` (`/bin/sh` when SHELL is unset, as under CI). bash execs
  // a lone command, but dash stays as the command's parent: it would take the signals meant for the
  // command (`signalCommand`), and, catching Ctrl-C's SIGINT while it waits, re-raise it on itself when the
  // command exits, so `script` reports 130 for a command that exited 0. `exec` makes the command script's
  // only child, whatever the shell.
  const line = `exec ${[command, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qefc', line, '/dev/null'], {
    cwd: options.cwd,
    env: { ...options.env, TERM: 'dumb', COLUMNS: '200' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString('utf8');
    for (const w of waiters) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    output: () => out,
    type: (text) => child.stdin.write(text),
    exited,
    kill: (signal = 'SIGTERM') => child.kill(signal),
    signalCommand(signal) {
      // `script` runs the command as its only child.
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/);
      const pid = Number(children[0]);
      if (!Number.isInteger(pid) || pid <= 0)
        throw new Error(`script (pid ${child.pid}) has no child to signal`);
      process.kill(pid, signal);
    },
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${out}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
