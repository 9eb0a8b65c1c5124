/**
 * A trace write that fails (a full disk, a removed folder) never throws at the run, never leaves half a
 * line, and nothing is appended after it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { streamAgent } from '../../src/agent/loop.js';
import type { RunResult } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import type { TraceFileSystem } from '../../src/trace/trace.js';
import { createTraceWriter, readTrace, type TraceWriter } from '../../src/trace/trace.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taoloop-trace-fail-');
const TURNS = ['Thought: add.\nAction: calculator[2 + 2]', 'Thought: done.\nAnswer: 4'];

/** An ENOSPC error as node:fs throws it. */
function noSpace(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/**
 * node:fs, except that the write of line `failAt` (0 = the header) writes only part of the line and the
 * next write call throws ENOSPC; later writes work again (as if the disk was freed).
 */
function fullDiskAt(failAt: number): TraceFileSystem & { lines: number } {
  let broken = false;
  const injected = {
    ...(fs as unknown as TraceFileSystem),
    lines: 0,
    writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number {
      if (broken) {
        broken = false;
        throw noSpace();
      }
      if (injected.lines === failAt) {
        broken = true;
        injected.lines += 1;
        return fs.writeSync(fd, buffer, offset, Math.max(1, Math.floor(length / 2)));
      }
      injected.lines += 1;
      return fs.writeSync(fd, buffer, offset, length);
    },
  };
  return injected;
}

/** Drives a run into `writer`; resolves with the result (a write failure must not reach here). */
async function run(writer: TraceWriter, afterEvent: (type: string) => void = () => {}): Promise<RunResult> {
  const events = streamAgent({ model: scriptedModel(TURNS), question: '2 + 2?', tools: [calculator] });
  let next = await events.next();
  for (; !next.done; next = await events.next()) {
    writer.write(next.value);
    afterEvent(next.value.type);
  }
  writer.writeError('not written: the trace already failed');
  return next.value;
}

test('a full disk mid-run (a write that fails part-way): no throw, one report, the trace ends with a whole line', async () => {
  for (const failAt of [1, 3, 5]) {
    const file = join(dir, `partial-${failAt}.jsonl`);
    const errors: Error[] = [];
    const writer = createTraceWriter(
      file,
      { question: '2 + 2?', modelId: 'scripted' },
      { fs: fullDiskAt(failAt), onError: (error) => errors.push(error) },
    );
    const result = await run(writer);
    assert.equal(result.status, 'answered', 'the run goes on');
    assert.equal(errors.length, 1, 'reported once');
    assert.match(errors[0]!.message, /^the trace could not be written: ENOSPC: no space left on device/);
    assert.equal(writer.error, errors[0]);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.endsWith('\n'), `no half line at the end: ${JSON.stringify(text.slice(-40))}`);
    // Every line is whole JSON, and only the lines before the failed one are there (nothing appended after it).
    const lines = text.trimEnd().split('\n');
    for (const line of lines) JSON.parse(line);
    assert.equal(lines.length, failAt);
    assert.equal(readTrace(file).result, undefined);
  }
});

test('a trace whose file became /dev/full (ENOSPC) or whose folder was removed (ENOENT) does not end the run', async (t) => {
  if (!fs.existsSync('/dev/full')) return t.skip('no /dev/full on this system');
  const full = join(dir, 'dev-full.jsonl');
  const fullErrors: Error[] = [];
  const fullWriter = createTraceWriter(
    full,
    { question: '2 + 2?', modelId: 'scripted' },
    { onError: (error) => fullErrors.push(error) },
  );
  const swap = (type: string) => {
    if (type !== 'model-end' || fs.lstatSync(full).isSymbolicLink()) return;
    fs.rmSync(full);
    fs.symlinkSync('/dev/full', full);
  };
  assert.equal((await run(fullWriter, swap)).status, 'answered');
  assert.equal(fullErrors.length, 1);
  assert.match(fullErrors[0]!.message, /^the trace could not be written: ENOSPC/);

  const folder = join(dir, 'removed');
  const gone = join(folder, 'run.jsonl');
  const goneErrors: Error[] = [];
  const goneWriter = createTraceWriter(
    gone,
    { question: '2 + 2?', modelId: 'scripted' },
    { onError: (error) => goneErrors.push(error) },
  );
  const remove = (type: string) => {
    if (type === 'model-end') fs.rmSync(folder, { recursive: true, force: true });
  };
  assert.equal((await run(goneWriter, remove)).status, 'answered');
  assert.equal(goneErrors.length, 1);
  assert.match(goneErrors[0]!.message, /^the trace could not be written: ENOENT.*run\.jsonl/);
  assert.equal(fs.existsSync(folder), false, 'nothing is made again after the failure');
});

test('a header that cannot be written throws a TraceWriteError and leaves no file', () => {
  const file = join(dir, 'no-header.jsonl');
  assert.throws(
    () => createTraceWriter(file, { question: 'q', modelId: 'm' }, { fs: fullDiskAt(0) }),
    (error: Error) =>
      error.name === 'TraceWriteError' && /^the trace could not be written: ENOSPC/.test(error.message),
  );
  assert.equal(fs.existsSync(file), false);
});
