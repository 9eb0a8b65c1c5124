import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ToolConfigError } from '../../src/tools/router.js';
import { createRunTestsTool, type RunTestsToolOptions } from '../../src/tools/run-tests.js';
import { findExecutable, probeBwrap } from '../../src/tools/sandbox.js';
import { skipUnless } from '../helpers/require.js';

let base: string;
let root: string;
/** Why sandboxed tests are skipped here, or false when bubblewrap works (set TAOLOOP_REQUIRE_SANDBOX=1 to fail instead). */
const noSandbox: string | false = await (async () => {
  const bwrap = await findExecutable('bwrap');
  const problem = bwrap ? await probeBwrap(bwrap) : 'bubblewrap is not installed';
  if (problem && process.env.TAOLOOP_REQUIRE_SANDBOX) throw new Error(`TAOLOOP_REQUIRE_SANDBOX: ${problem}`);
  return problem ? `no usable bubblewrap: ${problem}` : false;
})();

/** Writes a node:test file into the root. */
async function writeTest(name: string, body: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, name)), { recursive: true });
  await writeFile(path.join(root, name), `const { test } = require('node:test');\n${body}\n`);
}

/** Runs `run_tests` on `file`; sandboxed unless `options` says otherwise. */
function runTests(file: string, options: Partial<RunTestsToolOptions> = {}, signal?: AbortSignal) {
  return createRunTestsTool({ root, timeoutMs: 30_000, ...options }).run(file, {
    signal: signal ?? AbortSignal.timeout(60_000),
  });
}

/** Processes whose command line contains `marker`. */
async function processesWith(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
  }
  return found;
}

/** Waits up to 3 s for every process with `marker` to be gone. */
async function assertGone(marker: string): Promise<void> {
  for (let i = 0; i < 200 && (await processesWith(marker)).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(await processesWith(marker), []);
}

before(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'taoloop-runtests-'));
  root = path.join(base, 'project');
  await mkdir(root);
  await writeFile(path.join(base, 'canary.txt'), 'CANARY-outside');
  await writeTest('pass.test.js', "test('adds', () => { console.log('PASS-MARKER'); });");
  await writeTest(
    'fail.test.js',
    "const assert = require('node:assert');\ntest('breaks', () => assert.equal(1, 2));",
  );
  await writeFile(path.join(root, 'helper.js'), 'module.exports = 1;');
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

test('a passing test file gives exit code 0 and the end of its output', { skip: noSandbox }, async () => {
  const output = await runTests('pass.test.js');
  assert.match(output, /^exit code 0\n/);
  assert.match(output, /PASS-MARKER/);
  assert.match(output, /# pass 1/);
});

test('a failing test file gives its exit code', { skip: noSandbox }, async () => {
  const output = await runTests('fail.test.js');
  assert.match(output, /^exit code 1\n/);
  assert.match(output, /# fail 1/);
});

test('tool metadata', () => {
  const tool = createRunTestsTool({ root });
  assert.equal(tool.name, 'run_tests');
  assert.equal(tool.effects, 'write');
  assert.equal(tool.inputHint, 'relative/path');
  assert.throws(() => createRunTestsTool({ root, timeoutMs: 0 }), ToolConfigError);
  assert.throws(() => createRunTestsTool({ root: path.join(base, 'missing') }), ToolConfigError);
});

test('files that do not match a test pattern are refused before anything runs', async () => {
  await assert.rejects(async () => runTests('helper.js'), /is not a test file: its name must match/);
  await assert.rejects(async () => runTests('pass.test.js', { patterns: ['*_spec.js'] }), /\*_spec\.js/);
  await assert.rejects(async () => runTests('*.test.js'), /Wildcards are refused/);
});

test('only the last maxOutputChars characters of output are kept', { skip: noSandbox }, async () => {
  await writeTest(
    'chatty.test.js',
    "for (let i = 0; i < 200000; i++) console.log('line ' + i);\ntest('x', () => {});",
  );
  const output = await runTests('chatty.test.js', { maxOutputChars: 300 });
  assert.match(output, /^exit code 0\n\[\.\.\. earlier output cut\]\n/);
  assert.ok(output.length <= 300 + 60, `${output.length} characters`);
  assert.match(output, /# todo 0/);
});

for (const sandboxed of [true, false]) {
  const how = sandboxed ? 'in the sandbox' : 'unsandboxed';
  const options = sandboxed ? {} : { bwrapPath: '/nonexistent', allowUnsandboxed: true };
  const skip = sandboxed ? noSandbox : false;

  test(`a timeout kills the whole process group ${how}, grandchildren included`, { skip }, async () => {
    const marker = `1000.${Math.floor(Math.random() * 1e6)}`;
    await writeTest(
      `hang-${sandboxed}.test.js`,
      `require('node:child_process').spawn('sleep', ['${marker}'], { stdio: 'inherit' });\n` +
        `test('hangs', () => new Promise(() => setInterval(() => {}, 1000)));`,
    );
    // The limit leaves a busy machine time to start the runner and its grandchild before the kill; the
    // grandchild must be seen running first, or the test would prove nothing.
    const running = runTests(`hang-${sandboxed}.test.js`, { ...options, timeoutMs: 8000 });
    let done = false;
    void running.finally(() => (done = true));
    let seen = false;
    while (!seen && !done) {
      seen = (await processesWith(marker)).length > 0;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(seen, 'the grandchild sleep never started before the timeout, so the test proves nothing');
    const output = await running;
    assert.match(output, /timed out after 8000 ms; the test processes were killed/);
    await assertGone(marker);
  });

  test(`aborting the tool's signal kills the test processes ${how}`, { skip }, async () => {
    const marker = `1000.${Math.floor(Math.random() * 1e6)}`;
    await writeTest(
      `abort-${sandboxed}.test.js`,
      `require('node:child_process').spawn('sleep', ['${marker}']);\n` +
        `test('hangs', () => new Promise(() => setInterval(() => {}, 1000)));`,
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1000);
    await assert.rejects(runTests(`abort-${sandboxed}.test.js`, options, controller.signal), /cancelled/);
    await assertGone(marker);
  });

  test(`writes by the test land in a throwaway copy, not the root, ${how}`, { skip }, async () => {
    await writeFile(path.join(root, 'data.txt'), 'original');
    await writeTest(
      `write-${sandboxed}.test.js`,
      "const fs = require('node:fs');\n" +
        "test('writes', () => {\n" +
        "  fs.writeFileSync('data.txt', 'changed');\n" +
        "  fs.writeFileSync(require('node:path').join(process.cwd(), 'new.txt'), 'new');\n" +
        "  fs.rmSync('helper.js');\n" +
        "  console.log('WROTE', fs.readFileSync('data.txt', 'utf8'));\n" +
        '});',
    );
    const output = await runTests(`write-${sandboxed}.test.js`, options);
    assert.match(output, /exit code 0/);
    assert.match(output, /WROTE changed/);
    assert.equal(await readFile(path.join(root, 'data.txt'), 'utf8'), 'original');
    assert.equal(await readFile(path.join(root, 'helper.js'), 'utf8'), 'module.exports = 1;');
    await assert.rejects(readFile(path.join(root, 'new.txt')));
  });

  test(`the caller's environment does not reach the test ${how}`, { skip }, async () => {
    process.env.TAOLOOP_FAKE_API_KEY = 'sk-should-not-leak';
    await writeTest(
      `env-${sandboxed}.test.js`,
      "test('env', () => console.log(JSON.stringify(process.env)));",
    );
    try {
      const output = await runTests(`env-${sandboxed}.test.js`, options);
      assert.match(output, /exit code 0/);
      assert.doesNotMatch(output, /sk-should-not-leak/);
    } finally {
      delete process.env.TAOLOOP_FAKE_API_KEY;
    }
  });
}

test('the sandbox has no network, not even the host loopback', { skip: noSandbox }, async () => {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await writeTest(
    'net.test.js',
    "const net = require('node:net');\n" +
      "test('connects', () => new Promise((resolve, reject) => {\n" +
      `  const socket = net.connect(${port}, '127.0.0.1', () => { socket.destroy(); resolve(); });\n` +
      "  socket.on('error', (error) => { console.log('NETWORK-ERROR', error.code); reject(error); });\n" +
      '}));',
  );
  try {
    const sandboxed = await runTests('net.test.js');
    assert.match(sandboxed, /^exit code 1\n/);
    assert.match(sandboxed, /NETWORK-ERROR (ECONNREFUSED|ENETUNREACH)/);
    assert.equal(connections, 0);
    // The same test connects when run without the sandbox, so the failure above is the sandbox's doing.
    const direct = await runTests('net.test.js', { bwrapPath: '/nonexistent', allowUnsandboxed: true });
    assert.match(direct, /^\[unsandboxed\] exit code 0\n/);
    assert.equal(connections, 1);
  } finally {
    server.close();
  }
});

test('the sandbox sees neither files outside the root nor the host /tmp', { skip: noSandbox }, async () => {
  const canary = path.join(base, 'canary.txt');
  await writeTest(
    'peek.test.js',
    "const fs = require('node:fs');\n" +
      `test('peeks', () => { console.log('EXISTS', fs.existsSync(${JSON.stringify(canary)}), JSON.stringify(fs.readdirSync('/tmp'))); });`,
  );
  const output = await runTests('peek.test.js');
  // /tmp holds only the folders leading to the project's own path (here under the host's temp folder).
  const leading = base.startsWith('/tmp/') ? [base.split('/')[2]] : [];
  assert.ok(output.includes(`EXISTS false ${JSON.stringify(leading)}`), output);
  assert.doesNotMatch(output, /CANARY-outside/);
});

test('node_modules is visible in the sandbox but read-only', { skip: noSandbox }, async () => {
  await mkdir(path.join(root, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(root, 'node_modules', 'dep', 'index.js'), "module.exports = 'DEP-LOADED';");
  await writeTest(
    'dep.test.js',
    "const fs = require('node:fs');\n" +
      "test('dep', () => {\n  console.log(require('dep'));\n" +
      "  try { fs.writeFileSync('node_modules/dep/index.js', 'x'); console.log('WRITABLE'); }\n" +
      "  catch (error) { console.log('READ-ONLY', error.code); }\n});",
  );
  const output = await runTests('dep.test.js');
  assert.match(output, /DEP-LOADED/);
  assert.match(output, /READ-ONLY EROFS/);
  await rm(path.join(root, 'node_modules'), { recursive: true });
});

test('without bubblewrap the tool refuses unless allowUnsandboxed', async () => {
  await assert.rejects(
    async () => runTests('pass.test.js', { bwrapPath: '/nonexistent' }),
    /bubblewrap \(bwrap\) is not installed; no test was run.*allowUnsandboxed: true/,
  );
  const output = await runTests('pass.test.js', { bwrapPath: '/nonexistent', allowUnsandboxed: true });
  assert.match(output, /^\[unsandboxed\] exit code 0\n/);
  assert.match(output, /PASS-MARKER/);
});

test('a folder where bubblewrap should be is not bubblewrap', async () => {
  const folder = path.join(base, 'bwrap-is-a-folder');
  await mkdir(path.join(folder, 'x'), { recursive: true });
  assert.equal(await findExecutable(folder), undefined);
  await assert.rejects(
    async () => runTests('pass.test.js', { bwrapPath: folder }),
    /bubblewrap \(bwrap\) is not installed; no test was run/,
  );
});

test('a bwrap that cannot create a sandbox counts as missing', async () => {
  const broken = path.join(base, 'broken-bwrap');
  await writeFile(broken, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', {
    mode: 0o755,
  });
  await assert.rejects(
    async () => runTests('pass.test.js', { bwrapPath: broken }),
    /bubblewrap cannot create one here \(bwrap: setting up uid map: Permission denied\); no test was run/,
  );
  const output = await runTests('pass.test.js', { bwrapPath: broken, allowUnsandboxed: true });
  assert.match(output, /^\[unsandboxed\] exit code 0\n/);
});

test('pytest files run with the default Python runner', async (t) => {
  try {
    execFileSync('python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' });
  } catch {
    t.skip(skipUnless(false, 'python3 -m pytest') || undefined);
    return;
  }
  await writeFile(path.join(root, 'test_math.py'), 'def test_adds():\n    assert 1 + 1 == 2\n');
  const options = noSandbox ? { bwrapPath: '/nonexistent', allowUnsandboxed: true } : {};
  const output = await runTests('test_math.py', options);
  assert.match(output, /exit code 0\n/);
  assert.match(output, /1 passed/);
});
