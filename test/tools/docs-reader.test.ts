/**
 * The search tool's docs reader never follows a symlink swapped in after listing, and caps each
 * document's size with a warning naming the file (issue 14, item 4).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createSearchTool, readDocuments } from '../../src/tools/search.js';

let base: string;
let docs: string;

before(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'taoloop-docsrace-'));
  docs = path.join(base, 'docs');
  await mkdir(path.join(docs, 'sub'), { recursive: true });
  await mkdir(path.join(base, 'outside'), { recursive: true });
  for (let i = 0; i < 40; i++) {
    await writeFile(path.join(docs, 'sub', `d${i}.md`), `inside document ${i}`);
    await writeFile(path.join(base, 'outside', `d${i}.md`), `CANARY outside ${i}`);
  }
});
after(() => rm(base, { recursive: true, force: true }));

test('a folder swapped for a symlink after listing is never followed', async () => {
  const sub = path.join(docs, 'sub');
  const swapper = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('node:fs'); const d = ${JSON.stringify(sub)};
       for (;;) { try { fs.renameSync(d, d + '.real'); fs.symlinkSync('../outside', d);
         fs.unlinkSync(d); fs.renameSync(d + '.real', d); } catch {} }`,
    ],
    { stdio: 'ignore' },
  );
  const leaked: string[] = [];
  try {
    for (let i = 0; i < 60; i++) {
      try {
        const read = await readDocuments(docs, { onWarning: () => {} });
        leaked.push(...read.filter((doc) => doc.text.includes('CANARY')).map((doc) => doc.id));
      } catch (error) {
        // The folder may be missing at the moment it is listed; that is an error, not a leak.
        if (!(error instanceof Error && error.name === 'DocsFolderError')) throw error;
      }
    }
  } finally {
    swapper.kill('SIGKILL');
    await new Promise((resolve) => swapper.once('exit', resolve));
  }
  assert.deepEqual(leaked, []);
});

test('each document is cut at maxDocumentBytes (1 MiB by default) with a warning naming it', async () => {
  const dir = path.join(base, 'big');
  await mkdir(dir);
  const filler = 'lorem ipsum dolor sit amet '.repeat(60_000); // about 1.6 MB
  await writeFile(path.join(dir, 'huge.md'), `zebrastart ${filler} zebraend`);
  await writeFile(path.join(dir, 'small.md'), 'a small note about otters');
  const warnings: string[] = [];
  const search = await createSearchTool({
    docsDir: dir,
    cacheDir: false,
    onWarning: (m) => warnings.push(m),
  });
  const signal = AbortSignal.timeout(10_000);
  assert.match(String(await search.run('zebrastart', { signal })), /zebrastart/);
  assert.doesNotMatch(String(await search.run('zebraend', { signal })), /zebraend/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /huge\.md is \d+ bytes; only its first 1048576 bytes are indexed/);
  const wider = await createSearchTool({
    docsDir: dir,
    cacheDir: false,
    maxDocumentBytes: 4 * 1024 ** 2,
    onWarning: (m) => warnings.push(m),
  });
  assert.match(String(await wider.run('zebraend', { signal })), /zebraend/);
  assert.equal(warnings.length, 1);
  await assert.rejects(
    readDocuments(dir, { maxDocumentBytes: 0 }),
    /maxDocumentBytes must be a positive integer/,
  );
});

test('files whose names look like secrets are skipped, counted in a warning, and indexed only with allowNames', async () => {
  const dir = path.join(base, 'secretive');
  await mkdir(path.join(dir, 'sub'), { recursive: true });
  await writeFile(path.join(dir, 'guide.md'), 'the guide explains widgets');
  await writeFile(path.join(dir, 'secrets.md'), 'widgets SECRET-CANARY');
  await writeFile(path.join(dir, 'credentials.txt'), 'widgets CREDENTIAL-CANARY');
  await writeFile(path.join(dir, 'sub', 'id_rsa.txt'), 'widgets KEY-CANARY');
  await writeFile(path.join(dir, 'sub', 'clientSecret.json'), '"widgets CLIENT-CANARY"');
  const warnings: string[] = [];
  const read = await readDocuments(dir, { onWarning: (m) => warnings.push(m) });
  assert.deepEqual(
    read.map((doc) => doc.id),
    ['guide.md'],
  );
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /Skipped 4 documents whose names look like a secret/);
  assert.match(warnings[0]!, /credentials\.txt, secrets\.md, sub\/clientSecret\.json, sub\/id_rsa\.txt/);
  assert.match(warnings[0]!, /allowNames/);
  const search = await createSearchTool({ docsDir: dir, cacheDir: false, topK: 5, onWarning: () => {} });
  const signal = AbortSignal.timeout(10_000);
  assert.doesNotMatch(String(await search.run('widgets', { signal })), /CANARY/);
  const allowed = await readDocuments(dir, {
    allowNames: ['secrets.md'],
    onWarning: (m) => warnings.push(m),
  });
  assert.deepEqual(
    allowed.map((doc) => doc.id),
    ['guide.md', 'secrets.md'],
  );
  assert.match(warnings[1]!, /Skipped 3 documents/);
});
