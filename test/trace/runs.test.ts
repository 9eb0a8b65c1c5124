import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { findRun, listRuns, newRunFile, runsFolder, summarizeRun } from '../../src/trace/runs.js';
import { createTraceWriter } from '../../src/trace/trace.js';
import { tempDir } from '../helpers/temp.js';

const temp = () => tempDir('taoloop-runs-');

test("runs folder: the project's .taoloop/runs, else TAOLOOP_CACHE_DIR, XDG_CACHE_HOME, ~/.cache", () => {
  const cwd = temp();
  assert.equal(runsFolder(cwd, { TAOLOOP_CACHE_DIR: '/c' }), '/c/runs');
  assert.equal(runsFolder(cwd, { XDG_CACHE_HOME: '/x' }), '/x/taoloop/runs');
  assert.equal(runsFolder(cwd, {}), join(homedir(), '.cache', 'taoloop', 'runs'));
  mkdirSync(join(cwd, '.taoloop', 'runs'), { recursive: true });
  assert.equal(runsFolder(cwd, { TAOLOOP_CACHE_DIR: '/c' }), join(cwd, '.taoloop', 'runs'));
});

test('run files are named by time and a short id, and found by path, id, short id or "last"', () => {
  const folder = temp();
  const older = newRunFile(folder, new Date('2025-01-02T03:04:05.678Z'));
  const newer = newRunFile(folder, new Date('2025-02-01T00:00:00.000Z'));
  assert.match(basename(older), /^2025-01-02T03-04-05\.678Z-[0-9a-f]{6}\.jsonl$/);
  for (const file of [older, newer]) createTraceWriter(file, { question: 'q', modelId: 'm' });
  assert.equal(findRun('last', folder, '/'), newer);
  assert.equal(findRun(basename(older), folder, '/'), older);
  assert.equal(findRun(basename(older, '.jsonl'), folder, '/'), older);
  assert.equal(findRun(basename(older).slice(-12, -6), folder, '/'), older);
  assert.equal(findRun(older, '/nowhere', '/'), older);
  assert.equal(findRun('nope', folder, '/'), undefined);
});

test('listing tolerates broken files and reports incomplete and crashed runs', () => {
  const folder = temp();
  writeFileSync(join(folder, '2025-03-01T00-00-00.000Z-aaaaaa.jsonl'), 'garbage\nmore garbage\n');
  const crashed = createTraceWriter(join(folder, '2025-02-01T00-00-00.000Z-bbbbbb.jsonl'), {
    question: 'q2',
    modelId: 'm',
  });
  crashed.writeError('boom');
  createTraceWriter(join(folder, '2025-01-01T00-00-00.000Z-cccccc.jsonl'), { question: 'q1', modelId: 'm' });
  writeFileSync(join(folder, 'notes.txt'), 'ignored');
  const runs = listRuns(folder);
  assert.deepEqual(
    runs.map((r) => [r.shortId, r.status, r.question]),
    [
      ['aaaaaa', 'unreadable', ''],
      ['bbbbbb', 'crashed', 'q2'],
      ['cccccc', 'incomplete', 'q1'],
    ],
  );
  assert.equal(listRuns(folder, 1).length, 1);
  assert.equal(listRuns(join(folder, 'missing')).length, 0);
  assert.match(
    summarizeRun(join(folder, '2025-03-01T00-00-00.000Z-aaaaaa.jsonl')).problem ?? '',
    /not valid JSON/,
  );
});
