import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createReadFileTool } from '../../src/tools/read-file.js';
import { createToolRouter, ToolConfigError } from '../../src/tools/router.js';

let root: string;
const signal = AbortSignal.timeout(60_000);

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'taoloop-read-'));
  await mkdir(path.join(root, 'docs'));
  await writeFile(path.join(root, 'docs', 'guide.md'), '# Guide\nStep one.\n');
  await writeFile(path.join(root, 'README.MD'), 'upper-case extension');
  await writeFile(path.join(root, 'empty.txt'), '');
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('reads a text file by its path relative to the root', async () => {
  const tool = createReadFileTool({ root });
  assert.equal(tool.name, 'read_file');
  assert.equal(tool.effects, 'read');
  assert.equal(tool.inputHint, 'relative/path');
  assert.match(tool.description, /relative to/);
  assert.equal(await tool.run('docs/guide.md', { signal }), '# Guide\nStep one.\n');
  assert.equal(await tool.run('  docs/guide.md\n', { signal }), '# Guide\nStep one.\n');
  assert.equal(await tool.run('./docs//guide.md', { signal }), '# Guide\nStep one.\n');
  assert.equal(await tool.run('empty.txt', { signal }), '');
});

test('works through the router', async () => {
  const router = createToolRouter([createReadFileTool({ root })]);
  const outcome = await router.call('read_file', 'docs/guide.md');
  assert.deepEqual([outcome.ok, outcome.observation], [true, '# Guide\nStep one.\n']);
  const refused = await router.call('read_file', '../secret.md');
  assert.equal(refused.ok, false);
  assert.match(refused.observation, /^Error: "\.\.\/secret\.md" leaves the root folder/);
});

test('a root is required, must exist and must be a folder', () => {
  assert.throws(() => createReadFileTool({} as { root: string }), ToolConfigError);
  assert.throws(() => createReadFileTool({ root: '' }), /needs a root folder/);
  assert.throws(() => createReadFileTool({ root: path.join(root, 'nope') }), /does not exist/);
  assert.throws(() => createReadFileTool({ root: path.join(root, 'empty.txt') }), /is not a folder/);
  assert.throws(() => createReadFileTool({ root: '/' }), /file system root/);
  assert.throws(() => createReadFileTool({ root, maxOutputChars: 0 }), ToolConfigError);
});

test('extensions are compared case-insensitively and can be configured', async () => {
  assert.equal(await createReadFileTool({ root }).run('README.MD', { signal }), 'upper-case extension');
  const onlyTxt = createReadFileTool({ root, extensions: ['.TXT'] });
  assert.equal(await onlyTxt.run('empty.txt', { signal }), '');
  await assert.rejects(async () => onlyTxt.run('docs/guide.md', { signal }), /reads only \.txt/);
});

test('long files are cut at maxOutputChars with a marker saying how much is left', async () => {
  await writeFile(path.join(root, 'long.txt'), 'a'.repeat(30));
  const tool = createReadFileTool({ root, maxOutputChars: 10 });
  assert.equal(
    await tool.run('long.txt', { signal }),
    `${'a'.repeat(10)}\n[... truncated: 20 more characters]`,
  );
  await writeFile(path.join(root, 'exact.txt'), 'b'.repeat(10));
  assert.equal(await tool.run('exact.txt', { signal }), 'b'.repeat(10));
});

test('the cut counts characters, not bytes, and never splits one', async () => {
  await writeFile(path.join(root, 'emoji.txt'), '😀é'.repeat(5));
  const tool = createReadFileTool({ root, maxOutputChars: 3 });
  // 30 bytes; 3 characters need at most 13 bytes, so the rest (7) is estimated from the part read.
  assert.match(
    await tool.run('emoji.txt', { signal }),
    /^😀é😀\n\[\.\.\. truncated: about [5-8] more characters\]$/,
  );
  const wider = createReadFileTool({ root, maxOutputChars: 8 });
  assert.equal(
    await wider.run('emoji.txt', { signal }),
    `${'😀é'.repeat(4)}\n[... truncated: 2 more characters]`,
  );
});

test('a 64 GB file is read only up to the limit', async () => {
  // Sparse: 64 KB of text, then a hole. Reading it whole would take minutes (and the test's time out), so
  // finishing at all shows that only the start was read; no clock is involved.
  const file = path.join(root, 'huge.txt');
  const size = 64 * 1024 ** 3;
  await writeFile(file, 'x'.repeat(64 * 1024));
  await truncate(file, size);
  const tool = createReadFileTool({ root });
  const output = await tool.run('huge.txt', { signal });
  assert.ok(output.startsWith('x'.repeat(20_000)));
  assert.match(output.slice(20_000), /^\n\[\.\.\. truncated: about \d+ more characters\]$/);
  assert.ok(output.length <= (tool.maxOutputChars ?? 0));
  assert.equal(Number(/about (\d+)/.exec(output)?.[1]), size - 20_000);
});

test('binary files are refused: NUL bytes or invalid UTF-8', async () => {
  await writeFile(path.join(root, 'image.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
  await writeFile(path.join(root, 'latin1.txt'), Buffer.from('caf\xe9 au lait', 'latin1'));
  const tool = createReadFileTool({ root });
  await assert.rejects(async () => tool.run('image.md', { signal }), /looks binary.*text only/);
  await assert.rejects(async () => tool.run('latin1.txt', { signal }), /not valid UTF-8/);
});

test('messages never show the absolute root path', async () => {
  const tool = createReadFileTool({ root });
  for (const input of ['missing.md', 'docs', '../x.md', 'image.md', 'a/b/c.exe']) {
    await writeFile(path.join(root, 'image.md'), Buffer.from([0, 1, 2]));
    await assert.rejects(
      async () => tool.run(input, { signal }),
      (error: Error) => !error.message.includes(root) && !error.message.includes(os.tmpdir()),
    );
  }
});

test('secret-looking names are refused in camelCase and joined forms too, and allowNames still allows them', async () => {
  const dir = path.join(root, 'keys');
  await mkdir(dir);
  const refused = [
    'mySecrets.yaml',
    'clientSecret.json',
    'dbCredentials.json',
    'AppSecrets.yml',
    'myapikey.txt',
    'MyAPIKey.txt',
    'api-key.txt',
    'privatekey.md',
    'secretKey.txt',
    'mysecrets.yaml',
    'passwords.txt',
    'dbPassword.json',
    'aws_access_key.txt',
    'serviceAccountKey.json',
    'service-account-key.json',
    'prod.env.json',
    'backup_id_rsa.txt',
  ];
  const readable = [
    'secretary.md',
    'keyboard.md',
    'monkey.json',
    'environment.md',
    'env.txt',
    'tokenizer.md',
  ];
  for (const name of [...refused, ...readable]) await writeFile(path.join(dir, name), 'CONTENT');
  const tool = createReadFileTool({ root: dir, extensions: ['.txt', '.json', '.yaml', '.yml', '.md'] });
  for (const name of refused) {
    await assert.rejects(tool.run(name, { signal }), /looks like a secret.*allowNames/s, name);
  }
  for (const name of readable) assert.equal(await tool.run(name, { signal }), 'CONTENT', name);
  const allowing = createReadFileTool({
    root: dir,
    extensions: ['.yaml', '.json'],
    allowNames: ['*secret*'],
  });
  assert.equal(await allowing.run('mySecrets.yaml', { signal }), 'CONTENT');
  assert.equal(await allowing.run('clientSecret.json', { signal }), 'CONTENT');
  await assert.rejects(allowing.run('dbCredentials.json', { signal }), /looks like a secret/);
});
