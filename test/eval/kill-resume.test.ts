/**
 * A kill mid-run followed by a rerun finishes with the same results as an uninterrupted run: the eval runs
 * in a child process (`helpers/eval-child.ts`), gets SIGKILL after a few items, and is run again. Lines may
 * be in another order, so the files are compared sorted.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/temp.js';

const child = fileURLToPath(new URL('./helpers/eval-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function start(resultsFile: string, delayMs: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', child, resultsFile, String(delayMs)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function finish(
  process: ChildProcess,
): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  let stdout = '';
  let stderr = '';
  process.stdout?.on('data', (d) => (stdout += d));
  process.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    process.on('error', reject);
    process.on('close', (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`eval child failed (${code}): ${stderr}`));
      else resolve({ code, signal, stdout });
    });
  });
}

const sortedLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).sort();

test('SIGKILL mid-run, then a rerun: the same results as an uninterrupted run', {
  timeout: 60_000,
}, async () => {
  const dir = tempDir('taoloop-kill-');
  const reference = join(dir, 'reference.jsonl');
  const resumed = join(dir, 'resumed.jsonl');
  const whole = await finish(start(reference, 0));
  assert.match(whole.stdout, /finished ran=24 resumed=0/);

  const killed = start(resumed, 40);
  let done = 0;
  killed.stdout?.on('data', (chunk: Buffer) => {
    done += (chunk.toString().match(/^done /gm) ?? []).length;
    if (done >= 5 && killed.exitCode === null) killed.kill('SIGKILL');
  });
  const first = await finish(killed);
  assert.equal(first.signal, 'SIGKILL');
  assert.ok(existsSync(resumed));
  const kept = readFileSync(resumed, 'utf8').split('\n').filter(Boolean).length;
  assert.ok(kept >= 5 && kept < 24, `killed after ${kept} of 24 results`);

  const rerun = await finish(start(resumed, 0));
  const ran = Number(/ran=(\d+)/.exec(rerun.stdout)?.[1]);
  const resumedCount = Number(/resumed=(\d+)/.exec(rerun.stdout)?.[1]);
  assert.equal(ran + resumedCount, 24);
  assert.ok(resumedCount >= 5, `the rerun resumed ${resumedCount} results`);
  assert.deepEqual(sortedLines(resumed), sortedLines(reference));
});
