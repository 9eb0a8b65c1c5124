import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createReadFileTool } from '../../src/tools/read-file.js';
import { createToolRouter } from '../../src/tools/router.js';
import { createRunTestsTool } from '../../src/tools/run-tests.js';

const CANARY = `CANARY-${Math.random().toString(36).slice(2)}`;

/**
 * Hostile inputs for both tools. `{x}` becomes the tool's extension (`.md` for read_file, `.test.js` for
 * run_tests), so every attack aims at a file that the tool would otherwise accept.
 */
const ATTACKS: readonly string[] = [
  '..',
  '../..',
  '../outside/secret{x}',
  'a/../../outside/secret{x}',
  './../outside/secret{x}',
  'docs/../../outside/secret{x}',
  'docs/./../../outside/secret{x}',
  'notes{x}/../../outside/secret{x}',
  '../root/../outside/secret{x}',
  '/etc/passwd',
  '/root/.bashrc',
  '//etc/passwd',
  '{base}/outside/secret{x}',
  '~',
  '~/x{x}',
  '~root/.bashrc',
  'notes{x}\u0000../outside/secret{x}',
  'notes{x}\n../outside/secret{x}',
  'notes{x}\r/../../outside/secret{x}',
  'notes{x}\u2028../outside/secret{x}',
  '\u202enotes{x}',
  '%2e%2e/%2e%2e/etc/passwd',
  '..%2foutside%2fsecret{x}',
  '%2e%2e%2Foutside%2Fsecret{x}',
  '..%5coutside%5csecret{x}',
  '..\\outside\\secret{x}',
  '..\\..\\etc\\passwd',
  '．．／outside／secret{x}',
  '\u2024\u2024/outside/secret{x}',
  '...',
  '.../outside/secret{x}',
  'docs/',
  'abs{x}',
  'evil{x}',
  'outlink/secret{x}',
  'nested/up/secret{x}',
  'chain1{x}',
  'loop{x}',
  'zero{x}',
  'stdin{x}',
  'environ{x}',
  '/dev/zero',
  '/dev/stdin',
  '/proc/self/environ',
  'fifo{x}',
  'sock{x}',
  '.',
  './',
  'docs',
  'dir{x}',
  `${'a/'.repeat(2500)}x{x}`,
  'file:///etc/passwd',
  'file://{base}/outside/secret{x}',
  '\\\\?\\C:\\Windows\\win.ini',
  'C:/x{x}',
  'C:\\x{x}',
  '\\\\server\\share\\x{x}',
  '.env',
  '.ssh/id_rsa',
  '.hidden/secret{x}',
  'secret.env',
  'missing{x}',
  '',
  '   ',
  '*{x}',
];

/** Inputs that stay inside the root and must work: a symlink to a file inside, and `..` that stays in. */
const ALLOWED: readonly string[] = ['link-inside{x}', 'docs/../real{x}'];

let base: string;
let root: string;
const socketServers: net.Server[] = [];

before(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'taoloop-attack-'));
  root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(outside, 'dir'), { recursive: true });
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await mkdir(path.join(root, 'nested'), { recursive: true });
  await mkdir(path.join(root, '.hidden'), { recursive: true });
  await mkdir(path.join(root, '.ssh'), { recursive: true });
  await writeFile(path.join(root, '.env'), `KEY=${CANARY}`);
  await writeFile(path.join(root, '.ssh', 'id_rsa'), CANARY);
  await writeFile(path.join(root, 'secret.env'), CANARY);
  for (const x of ['.md', '.test.js']) {
    await writeFile(path.join(outside, `secret${x}`), `console.log(${JSON.stringify(CANARY)});\n`);
    await writeFile(path.join(root, '.hidden', `secret${x}`), `console.log(${JSON.stringify(CANARY)});\n`);
    await writeFile(path.join(root, `notes${x}`), 'console.log("notes");\n');
    await writeFile(path.join(root, `real${x}`), 'console.log("inside ok");\n');
    await symlink(`real${x}`, path.join(root, `link-inside${x}`));
    await symlink('/etc/passwd', path.join(root, `abs${x}`));
    await symlink(`../outside/secret${x}`, path.join(root, `evil${x}`));
    await symlink(`chain2${x}`, path.join(root, `chain1${x}`));
    await symlink(path.join(outside, `secret${x}`), path.join(root, `chain2${x}`));
    await symlink(`loop${x}`, path.join(root, `loop${x}`));
    await symlink('/dev/zero', path.join(root, `zero${x}`));
    await symlink('/dev/stdin', path.join(root, `stdin${x}`));
    await symlink('/proc/self/environ', path.join(root, `environ${x}`));
    await mkdir(path.join(root, `dir${x}`));
    execFileSync('mkfifo', [path.join(root, `fifo${x}`)]);
  }
  await symlink(outside, path.join(root, 'outlink'));
  await symlink('../../outside', path.join(root, 'nested', 'up'));
  for (const name of ['sock.md', 'sock.test.js']) {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, name), resolve));
    socketServers.push(server);
  }
});

after(async () => {
  for (const server of socketServers) await new Promise((resolve) => server.close(resolve));
  await rm(base, { recursive: true, force: true });
});

function tools() {
  return [
    { x: '.md', tool: createReadFileTool({ root }) },
    { x: '.test.js', tool: createRunTestsTool({ root, allowUnsandboxed: true, timeoutMs: 20_000 }) },
  ];
}

function expand(attack: string, x: string): string {
  return attack.replaceAll('{x}', x).replaceAll('{base}', base);
}

function assertNoLeak(observation: string, label: string): void {
  assert.ok(!observation.includes(CANARY), `canary leaked by ${label}: ${observation}`);
  assert.ok(!observation.includes('root:x:0:0'), `/etc/passwd leaked by ${label}`);
  assert.ok(!observation.includes('PATH='), `an environment leaked by ${label}`);
}

/** The root's absolute path never appears, unless the model wrote it itself (then it is echoed back). */
function assertNoHostPath(observation: string, input: string, label: string): void {
  if (input.includes(base)) return;
  assert.ok(!observation.includes(base), `${label} revealed a host path: ${observation}`);
  assert.ok(!observation.includes(os.tmpdir() + path.sep), `${label} revealed a temp path: ${observation}`);
}

test(`the battery has at least 40 attacks (${ATTACKS.length})`, () => {
  assert.ok(ATTACKS.length >= 40);
});

test('every attack is refused by read_file and run_tests through the router, and nothing leaks', async () => {
  const all = tools();
  const router = createToolRouter(all.map((t) => t.tool));
  let refused = 0;
  for (const { x, tool } of all) {
    for (const attack of ATTACKS) {
      const input = expand(attack, x);
      const label = `${tool.name}[${JSON.stringify(input.slice(0, 60))}]`;
      const outcome = await router.call(tool.name, input, { timeoutMs: 20_000 });
      assert.equal(outcome.ok, false, `${label} was not refused: ${outcome.observation}`);
      assert.match(outcome.observation, /^Error: /, label);
      assertNoLeak(outcome.observation, label);
      assertNoHostPath(outcome.observation, input, label);
      refused += 1;
    }
  }
  assert.equal(refused, ATTACKS.length * 2);
});

test('every attack is refused when the tool is called directly (no router input limit)', async () => {
  for (const { x, tool } of tools()) {
    for (const attack of ATTACKS) {
      const input = expand(attack, x);
      const label = `${tool.name}[${JSON.stringify(input.slice(0, 60))}]`;
      await assert.rejects(
        async () => tool.run(input, { signal: AbortSignal.timeout(20_000) }),
        (error: Error) => {
          assertNoLeak(error.message, label);
          assertNoHostPath(error.message, input, label);
          assert.ok(error.message.length > 20, `${label} gave no useful message`);
          return true;
        },
        label,
      );
    }
  }
});

test('paths that stay inside the root work, including a symlink to a file inside', async () => {
  for (const { x, tool } of tools()) {
    for (const allowed of ALLOWED) {
      const output = await tool.run(expand(allowed, x), { signal: AbortSignal.timeout(20_000) });
      assert.match(output, /inside ok/, `${tool.name}[${allowed}]`);
      assertNoLeak(output, allowed);
    }
  }
});

test('Unicode look-alikes of dots and slashes are literal file names, not separators', async () => {
  // (Not "secret.md": names that look like secrets are refused on their own, see read-file-races.test.ts.)
  const name = '．．／outside／notes.md';
  await writeFile(path.join(root, name), 'a file with a strange name');
  await writeFile(path.join(root, '\u2024\u2024.md'), 'one-dot leaders');
  await mkdir(path.join(root, '%2e%2e'), { recursive: true });
  const readFile = createReadFileTool({ root });
  const signal = AbortSignal.timeout(5000);
  assert.equal(await readFile.run(name, { signal }), 'a file with a strange name');
  assert.equal(await readFile.run('\u2024\u2024.md', { signal }), 'one-dot leaders');
});

test('specific refusals say what was wrong', async () => {
  const readFile = createReadFileTool({ root });
  const signal = AbortSignal.timeout(5000);
  const cases: [string, RegExp][] = [
    ['../outside/secret.md', /leaves the root folder/],
    ['evil.md', /symlink leading outside the root/],
    ['outlink/secret.md', /symlink leading outside the root/],
    ['/etc/passwd', /Absolute paths are refused/],
    ['~/x.md', /"~" is not expanded/],
    ['%2e%2e/x.md', /URL-encoded/],
    ['fifo.md', /not a regular file/],
    ['sock.md', /not a regular file/],
    ['docs/', /is a folder/],
    ['dir.md', /is a folder/],
    ['.', /root folder, not a file/],
    ['secret.env', /extension "\.env"/],
    ['.env', /Hidden files/],
    ['loop.md', /symlink loop/],
    ['missing.md', /No file "missing\.md" under the root/],
    ['C:/x.md', /drive letters/],
    ['a\\b.md', /Backslashes/],
    ['x'.repeat(1100), /limit is 1024/],
  ];
  for (const [input, pattern] of cases) {
    await assert.rejects(async () => readFile.run(input, { signal }), pattern, input.slice(0, 40));
  }
});
