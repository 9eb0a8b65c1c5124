/**
 * Helpers for the CLI's end-to-end tests: an environment whose runs folder is a fresh temp dir (so no
 * test writes to the real home), the built binary spawned with a handle (for signals), and traces read back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, ROOT } from '../helpers/cli.js';
import { tempDir as newTempDir } from '../helpers/temp.js';

export const BIN = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));

/** A new temp folder, removed when the test file's process exits. */
export const tempDir = (prefix = 'taoloop-cli-') => newTempDir(prefix);

/** `cleanEnv` plus a fresh `TAOLOOP_CACHE_DIR`; returns the env and the runs folder it implies. */
export function cliEnv(extra: Record<string, string> = {}): { env: NodeJS.ProcessEnv; runs: string } {
  const cache = tempDir('taoloop-cache-');
  return { env: cleanEnv({ TAOLOOP_CACHE_DIR: cache, ...extra }), runs: join(cache, 'runs') };
}

/** Spawns the built CLI with pipes, keeping the child so a test can signal it. */
export function spawnCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Polls until `check` returns a value, or throws after `timeoutMs`. */
export async function until<T>(check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Strips ANSI escapes and carriage returns from pseudo-terminal output. */
export const plain = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
