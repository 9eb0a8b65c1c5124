/**
 * read_file checks what it actually opens, and refuses secret-looking names; a sibling folder whose
 * name starts with the root's is outside (issue 14, item 4).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createReadFileTool } from '../../src/tools/read-file.js';
import { createRunTestsTool } from '../../src/tools/run-tests.js';
import { PathRefusedError } from '../../src/tools/safe-path.js';

let base: string;
let root: string;
const signal = AbortSignal.timeout(120_000);

before(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'taoloop-readrace-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await mkdir(path.join(root, '.hidden'), { recursive: true });
  await writeFile(path.join(root, 'docs', 'a.md'), 'visible');
  await writeFile(path.join(root, '.hidden', 'a.md'), 'HIDDEN-CANARY');
  await mkdir(path.join(base, 'root-evil'), { recursive: true });
  await writeFile(path.join(base, 'root-evil', 'secret.md'), 'EVIL-CANARY');
  await writeFile(path.join(base, 'root-evil', 'x.test.js'), "console.log('EVIL-CANARY')");
  await symlink('../root-evil/secret.md', path.join(root, 'sibling.md'));
  await symlink('../root-evil/x.test.js', path.join(root, 'sibling.test.js'));
  await symlink('../root-evil', path.join(root, 'evil-dir'));
});
after(() => rm(base, { recursive: true, force: true }));

test('a folder swapped for a symlink to a hidden folder mid-read is refused', async () => {
  const tool = createReadFileTool({ root });
  const docs = path.join(root, 'docs');
  const swapper = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs'); const d = ${JSON.stringify(docs)};
       for (;;) { try { fs.renameSync(d, d + '.real'); fs.symlinkSync('.hidden', d);
         fs.unlinkSync(d); fs.renameSync(d + '.real', d); } catch {} }`,
    ],
    { stdio: 'ignore' },
  );
  const seen = new Set<string>();
  try {
    for (let i = 0; i < 400; i++) {
      try {
        seen.add(await tool.run('docs/a.md', { signal }));
      } catch (error) {
        if (!(error instanceof PathRefusedError)) throw error;
        seen.add('refused');
      }
    }
  } finally {
    swapper.kill('SIGKILL');
    await new Promise((resolve) => swapper.once('exit', resolve));
  }
  assert.ok(!seen.has('HIDDEN-CANARY'), 'the hidden file was read');
});

test('secret-looking names with an allowed extension are refused unless allowed by pattern', async () => {
  const names = [
    'id_rsa.txt',
    'secrets.json',
    'client_secret.json',
    'credentials.yaml',
    'aws-credentials.txt',
    'server.pem',
    'tls.key',
    'prod.env',
    'api_key.txt',
    'private-key.md',
  ];
  for (const name of names) await writeFile(path.join(root, name), 'SECRET');
  const tool = createReadFileTool({
    root,
    extensions: ['.txt', '.json', '.yaml', '.pem', '.key', '.env', '.md'],
  });
  for (const name of names) {
    await assert.rejects(tool.run(name, { signal }), /looks like a secret.*allowNames/s, name);
  }
  // A symlink with an innocent name to a secret-looking file is judged by the file it leads to.
  await symlink('secrets.json', path.join(root, 'notes.json'));
  await assert.rejects(tool.run('notes.json', { signal }), /looks like a secret/);
  // Hidden dotenv files stay refused as hidden; ordinary names that merely contain the letters pass.
  await writeFile(path.join(root, 'secretary.md'), 'ok');
  await writeFile(path.join(root, 'keyboard.md'), 'ok');
  assert.equal(await tool.run('secretary.md', { signal }), 'ok');
  assert.equal(await tool.run('keyboard.md', { signal }), 'ok');
  const allowing = createReadFileTool({ root, allowNames: ['secrets.*'] });
  assert.equal(await allowing.run('secrets.json', { signal }), 'SECRET');
  await assert.rejects(allowing.run('client_secret.json', { signal }), /looks like a secret/);
});

for (const allowHidden of [false, true]) {
  test(`a sibling folder whose name starts with the root's is outside (allowHidden: ${allowHidden})`, async () => {
    const readFile = createReadFileTool({ root, allowHidden });
    for (const input of [
      '../root-evil/secret.md',
      'sibling.md',
      'evil-dir/secret.md',
      'docs/../../root-evil/secret.md',
    ]) {
      await assert.rejects(readFile.run(input, { signal }), PathRefusedError, input);
    }
    const runTests = createRunTestsTool({
      root,
      allowHidden,
      allowUnsandboxed: true,
      bwrapPath: '/nonexistent',
    });
    for (const input of ['../root-evil/x.test.js', 'sibling.test.js', 'evil-dir/x.test.js']) {
      await assert.rejects(runTests.run(input, { signal }), PathRefusedError, input);
    }
  });
}
