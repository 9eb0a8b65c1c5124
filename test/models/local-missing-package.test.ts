/**
 * The embedded model in an app without node-llama-cpp (issue 28): the missing package is said first, with
 * the exact install command, before anything is looked up or downloaded (the default model is about 1 GB);
 * `taoloop models` (describeModelChoices) says it too.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/temp.js';

const HIDE = fileURLToPath(new URL('./fixtures/without-llama-cpp.mjs', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./fixtures/local-without-llama-cpp.ts', import.meta.url));

test('without node-llama-cpp, a local model fails before any download, naming the install command', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--import', HIDE, SCRIPT, tempDir()],
    { timeout: 120_000 },
  );
  const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!);
  assert.deepEqual(outcome.asked, [], 'nothing looked up or downloaded');
  assert.equal(outcome.error?.name, 'ModelConfigError');
  assert.match(
    outcome.error.message,
    /needs node-llama-cpp .* not installed: run `npm install node-llama-cpp@3\.21\.1`/,
  );
  assert.equal(outcome.embedded.available, false);
  assert.match(
    outcome.embedded.note,
    /node-llama-cpp: not installed \(run `npm install node-llama-cpp@3\.21\.1`\)/,
  );
  assert.match(outcome.reason, /embedded local model cannot be used now/);
});
