import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp.js';

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));

/**
 * A cache folder for the CLI processes of this test file (runs, search indexes), never the real home;
 * removed when the test file's process exits. Made when first needed.
 */
let testCacheDir: string | undefined;
const cacheDir = () => (testCacheDir ??= tempDir('taoloop-test-cache-'));

/** Environment without any model configuration, so tests never pick up a developer's keys. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/API_KEY|^TAOLOOP_|^OPENAI|^ANTHROPIC|^GOOGLE|^OLLAMA/.test(k)) continue;
    env[k] = v;
  }
  // No download is ever attempted, no local Ollama is found, and runs are written to a temp folder.
  return {
    ...env,
    NO_COLOR: '1',
    TAOLOOP_OFFLINE: '1',
    OLLAMA_BASE_URL: 'http://127.0.0.1:9',
    TAOLOOP_CACHE_DIR: cacheDir(),
    ...extra,
  };
}

/** Spawns the built CLI as a user would and collects its output. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
