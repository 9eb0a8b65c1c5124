/**
 * Path refusals a mutation sample found pinned only by chance (issue 28): URL-encoded dots and slashes in
 * upper case, and a symlink inside the root that leads into a hidden folder (a deterministic check; the
 * race test in `read-file-races.test.ts` swaps a folder for such a link mid-read).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createReadFileTool } from '../../src/tools/read-file.js';
import { checkPathText } from '../../src/tools/safe-path.js';

let root: string;
before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'taoloop-path-pins-'));
  await mkdir(path.join(root, '.hidden'));
  await writeFile(path.join(root, '.hidden', 'secret.md'), 'SECRET');
  await writeFile(path.join(root, 'notes.md'), 'notes');
  await symlink('.hidden/secret.md', path.join(root, 'to-hidden.md'));
  await symlink('.hidden', path.join(root, 'hidden-dir'));
});
after(() => rm(root, { recursive: true, force: true }));

test('URL-encoded dots, slashes, backslashes and NUL are refused in upper case as in lower case', () => {
  for (const input of ['%2E%2E/x.md', '..%2Fx.md', '..%5Cx.md', 'x.md%00', '%2E%2e%2F%2f.md']) {
    assert.throws(() => checkPathText(input), /URL-encoded/, input);
  }
  assert.doesNotThrow(() => checkPathText('100%25 done.md'), 'other percent escapes are plain names');
});

test('a symlink inside the root that leads into a hidden folder is refused, and nothing is read', async () => {
  const readFile = createReadFileTool({ root });
  const signal = new AbortController().signal;
  assert.equal(await readFile.run('notes.md', { signal }), 'notes');
  for (const input of ['to-hidden.md', 'hidden-dir/secret.md']) {
    await assert.rejects(async () => readFile.run(input, { signal }), /hidden file or folder/, input);
  }
});
