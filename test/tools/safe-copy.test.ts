/**
 * The run_tests project copy never follows a symlink swapped in while copying (issue 14, item 4): a
 * separate process keeps swapping a folder of the project for a symlink to a folder outside it while
 * the copy runs, and no copy ever holds a file from outside.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ProjectChangedError } from '../../src/tools/safe-copy.js';
import { makeThrowawayCopy } from '../../src/tools/sandbox.js';

let base: string;
let root: string;

before(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'taoloop-copyrace-'));
  root = path.join(base, 'root');
  await mkdir(path.join(base, 'outside'), { recursive: true });
  await mkdir(path.join(root, 'sub'), { recursive: true });
  for (let i = 0; i < 50; i++) {
    await writeFile(path.join(base, 'outside', `f${i}.txt`), 'CANARY-outside');
    await writeFile(path.join(root, 'sub', `f${i}.txt`), 'inside');
  }
  for (let i = 0; i < 30; i++) await writeFile(path.join(root, `top${i}.txt`), 'inside');
});
after(() => rm(base, { recursive: true, force: true }));

/** Every file's content under `dir`, following nothing (symlinks are listed by name only). */
async function contents(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) found.push(await readFile(path.join(entry.parentPath, entry.name), 'utf8'));
  }
  return found;
}

test('a folder swapped for a symlink to outside files while copying is never followed', async () => {
  // Swaps root/sub with a symlink to ../outside and back, as fast as it can, until killed.
  const swapper = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs'); const sub = ${JSON.stringify(path.join(root, 'sub'))};
       for (;;) { try { fs.renameSync(sub, sub + '.real'); fs.symlinkSync('../outside', sub);
         fs.unlinkSync(sub); fs.renameSync(sub + '.real', sub); } catch {} }`,
    ],
    { stdio: 'ignore' },
  );
  let copies = 0;
  let refused = 0;
  try {
    for (let i = 0; i < 60; i++) {
      try {
        const copy = await makeThrowawayCopy(root, 1024 ** 3);
        copies++;
        try {
          assert.ok(
            !(await contents(copy.copyRoot)).includes('CANARY-outside'),
            'a file from outside was copied',
          );
        } finally {
          await copy.cleanup();
        }
      } catch (error) {
        if (!(error instanceof ProjectChangedError)) throw error;
        refused++;
      }
    }
  } finally {
    swapper.kill('SIGKILL');
    await new Promise((resolve) => swapper.once('exit', resolve));
  }
  assert.ok(copies + refused === 60);
});

test('a symlink in the project is copied as a symlink, not followed', async () => {
  const dir = path.join(base, 'linked');
  await mkdir(dir);
  await writeFile(path.join(dir, 'a.txt'), 'inside');
  await symlink('../outside', path.join(dir, 'out'));
  const copy = await makeThrowawayCopy(dir, 1024 ** 3);
  try {
    assert.deepEqual(await contents(copy.copyRoot), ['inside']);
  } finally {
    await copy.cleanup();
  }
});
