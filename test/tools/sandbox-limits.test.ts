/**
 * The run_tests sandbox holds when taoloop runs as root (as in containers and CI): no kernel setting can
 * be opened for writing, no host folder descriptor leaks in, and processes, memory, file size and disk
 * are limited (issue 14, item 3). Kept small for a shared 2-core machine: a low process limit, short
 * timeouts, and allocations that are refused before any memory is touched.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createRunTestsTool, type RunTestsToolOptions } from '../../src/tools/run-tests.js';
import { findExecutable, probeBwrap } from '../../src/tools/sandbox.js';

const noSandbox: string | false = await (async () => {
  const bwrap = await findExecutable('bwrap');
  const problem = bwrap ? await probeBwrap(bwrap) : 'bubblewrap is not installed';
  if (problem && process.env.TAOLOOP_REQUIRE_SANDBOX) throw new Error(`TAOLOOP_REQUIRE_SANDBOX: ${problem}`);
  return problem ? `no usable bubblewrap: ${problem}` : false;
})();

let base: string;
let root: string;
const limits = {
  maxProcesses: 64,
  maxMemoryBytes: 1024 ** 3,
  maxFileBytes: 4 * 1024 ** 2,
  maxDiskBytes: 16 * 1024 ** 2,
};

before(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'taoloop-limits-'));
  root = path.join(base, 'project');
  await mkdir(path.join(root, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
});
after(() => rm(base, { recursive: true, force: true }));

async function run(name: string, body: string, options: Partial<RunTestsToolOptions> = {}): Promise<string> {
  await writeFile(
    path.join(root, name),
    `const { test } = require('node:test');\nconst fs = require('node:fs');\n${body}\n`,
  );
  const tool = createRunTestsTool({ root, timeoutMs: 20_000, limits, ...options });
  return tool.run(name, { signal: AbortSignal.timeout(60_000) });
}

test('no kernel setting under /proc can be opened for writing, and no host folder is open inside', {
  skip: noSandbox,
}, async () => {
  const output = await run(
    'proc.test.js',
    `test('proc', () => {
  const targets = ['/proc/sys/kernel/core_pattern', '/proc/sys/kernel/hostname', '/proc/sys/vm/drop_caches',
    '/proc/sys/vm/overcommit_memory', '/proc/sys/fs/file-max', '/proc/sysrq-trigger', '/proc/self/oom_score_adj'];
  for (const target of targets) {
    try {
      // Opened for writing and closed at once: nothing is ever written.
      fs.closeSync(fs.openSync(target, fs.constants.O_WRONLY));
      console.log('OPENED-FOR-WRITING ' + target);
    } catch (error) {
      console.log('REFUSED ' + target + ' ' + error.code);
    }
  }
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try { if (fs.fstatSync(Number(fd)).isDirectory()) console.log('OPEN-FOLDER-FD ' + fd); } catch {}
  }
  console.log('UID ' + process.getuid());
});`,
  );
  assert.match(output, /REFUSED \/proc\/sys\/kernel\/core_pattern/);
  assert.doesNotMatch(output, /OPENED-FOR-WRITING/);
  assert.doesNotMatch(output, /OPEN-FOLDER-FD/);
  if (process.getuid?.() === 0) assert.doesNotMatch(output, /UID 0\b/, 'the test must not run as root');
});

test('a fork bomb is stopped by the process limit and the host stays responsive', {
  skip: noSandbox,
}, async () => {
  const running = run(
    'bomb.test.js',
    `const { spawn } = require('node:child_process');
test('bomb', async () => {
  let started = 0;
  try {
    for (; started < 300; started++) {
      const child = spawn('sleep', ['20'], { stdio: 'ignore' });
      await new Promise((resolve, reject) => { child.once('spawn', resolve); child.once('error', reject); });
    }
  } catch (error) {
    console.log('SPAWN-REFUSED ' + error.code + ' after ' + started);
  }
  console.log('STARTED ' + started);
});`,
  );
  // While it runs, the host can still start a process quickly enough.
  const hostStarted = Date.now();
  await new Promise<void>((resolve, reject) =>
    execFile('true', (error) => (error ? reject(error) : resolve())),
  );
  assert.ok(Date.now() - hostStarted < 15_000);
  const output = await running;
  assert.match(output, /SPAWN-REFUSED EAGAIN after \d+/);
  const started = Number(/STARTED (\d+)/.exec(output)?.[1]);
  assert.ok(started < limits.maxProcesses, `${started} processes started`);
});

test('a 2 GB allocation fails inside the sandbox', { skip: noSandbox }, async () => {
  const output = await run(
    'alloc.test.js',
    `test('alloc', () => {
  // allocUnsafe maps the memory without touching it: nothing is used even where it succeeds.
  try { const b = Buffer.allocUnsafe(2 * 1024 ** 3); console.log('ALLOCATED ' + b.length); }
  catch (error) { console.log('ALLOC-REFUSED ' + error.message); }
});`,
  );
  assert.match(output, /ALLOC-REFUSED/);
  assert.doesNotMatch(output, /ALLOCATED/);
});

test('file size and disk are limited: a big file and many files fail inside', {
  skip: noSandbox,
}, async () => {
  const output = await run(
    'disk.test.js',
    `test('disk', () => {
  const chunk = Buffer.alloc(1024 * 1024, 120);
  try { const fd = fs.openSync('big.bin', 'w'); for (let i = 0; i < 8; i++) fs.writeSync(fd, chunk); console.log('BIG-WRITTEN'); }
  catch (error) { console.log('BIG-REFUSED ' + error.code); }
  try { for (let i = 0; i < 40; i++) fs.writeFileSync('part' + i + '.bin', chunk); console.log('DISK-FILLED'); }
  catch (error) { console.log('DISK-REFUSED ' + error.code); }
  try { for (let i = 0; i < 40; i++) fs.writeFileSync('/tmp/part' + i + '.bin', chunk); console.log('TMP-FILLED'); }
  catch (error) { console.log('TMP-REFUSED ' + error.code); }
});`,
  );
  assert.match(output, /BIG-REFUSED EFBIG/);
  assert.match(output, /DISK-REFUSED ENOSPC/);
  assert.match(output, /TMP-REFUSED ENOSPC/);
});

test('a project larger than the disk limit is refused before anything runs', {
  skip: noSandbox,
}, async () => {
  await writeFile(path.join(root, 'huge.txt'), Buffer.alloc(20 * 1024 ** 2));
  try {
    await assert.rejects(
      run('small.test.js', "test('x', () => {});"),
      /disk limit of 16777216 bytes.*raise limits\.maxDiskBytes/s,
    );
  } finally {
    await rm(path.join(root, 'huge.txt'));
  }
});

test('limits must be positive whole numbers', () => {
  assert.throws(
    () => createRunTestsTool({ root: os.tmpdir(), limits: { maxProcesses: 0 } }),
    /limits\.maxProcesses must be a positive whole number/,
  );
  assert.throws(
    () => createRunTestsTool({ root: os.tmpdir(), limits: { maxDiskBytes: 1.5 } }),
    /limits\.maxDiskBytes/,
  );
});

test('a project file over the per-file limit is named, with its size and the limit, before anything runs', {
  skip: noSandbox,
}, async () => {
  // Under the disk limit (16 MiB), over the file limit (4 MiB): the copy into the sandbox would be killed.
  await mkdir(path.join(root, 'data'), { recursive: true });
  await writeFile(path.join(root, 'data', 'big.bin'), Buffer.alloc(5 * 1024 ** 2));
  try {
    await assert.rejects(run('small.test.js', "test('x', () => {});"), (error: Error) => {
      assert.match(error.message, /data\/big\.bin is 5242880 bytes/);
      assert.match(error.message, /per-file limit of 4194304 bytes/);
      assert.match(error.message, /raise limits\.maxFileBytes/);
      assert.match(error.message, /no test was run/);
      assert.doesNotMatch(error.message, /exit code 153/);
      return true;
    });
  } finally {
    await rm(path.join(root, 'data'), { recursive: true });
  }
});

test('a process the file size limit kills during the run is reported with the limit', {
  skip: noSandbox,
}, async () => {
  await writeFile(path.join(root, 'write.test.sh'), 'head -c 8388608 /dev/zero > big.bin\n');
  const tool = createRunTestsTool({
    root,
    timeoutMs: 20_000,
    limits,
    runner: ['sh'],
    patterns: ['*.test.sh'],
  });
  const output = await tool.run('write.test.sh', { signal: AbortSignal.timeout(60_000) });
  assert.match(output, /^exit code 153/);
  assert.match(output, /SIGXFSZ/);
  assert.match(output, /per-file limit of 4194304 bytes/);
  assert.match(output, /limits\.maxFileBytes/);
});
