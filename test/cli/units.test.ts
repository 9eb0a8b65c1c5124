import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { AgentEvent } from '../../src/agent/types.js';
import { compareSteps } from '../../src/cli/commands/replay.js';
import { consumeRun } from '../../src/cli/commands/run.js';
import { durationMs, portNumber, positiveInt, usd } from '../../src/cli/options.js';
import { observationLines } from '../../src/cli/render.js';
import { safeText } from '../../src/cli/safe-text.js';
import { createSpinner, spinnerEnabled } from '../../src/cli/spinner.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { tempDir } from '../helpers/temp.js';
import { plain } from './support.js';

test('--timeout accepts 90s, 2m, 500ms, 1.5h or plain seconds', () => {
  assert.equal(durationMs('90s'), 90_000);
  assert.equal(durationMs('2m'), 120_000);
  assert.equal(durationMs('500ms'), 500);
  assert.equal(durationMs('1.5h'), 5_400_000);
  assert.equal(durationMs('30'), 30_000);
  for (const bad of ['', 'soon', '-5s', '0', '5 minutes', '0.0001ms'])
    assert.throws(() => durationMs(bad), /duration/);
});

test('--max-cost takes USD above 0, with or without a $; --max-steps whole numbers ≥ 1', () => {
  assert.equal(usd('0.5'), 0.5);
  assert.equal(usd('$2'), 2);
  for (const bad of ['0', 'abc', '-1', '1e3']) assert.throws(() => usd(bad), /USD/);
  assert.equal(positiveInt('12'), 12);
  for (const bad of ['0', '1.5', '1e2', 'x', '0x10', ' 5', '+5', '99999999999999999999'])
    assert.throws(() => positiveInt(bad), /whole number/);
  assert.equal(portNumber('0'), 0);
  assert.equal(portNumber('65535'), 65535);
  for (const bad of ['65536', '0x10', '1e3', '-1', ' 80']) assert.throws(() => portNumber(bad), /port/);
});

test('safeText shows terminal controls as visible escapes and leaves the rest alone', () => {
  assert.equal(safeText('rm -rf /\x1b[2K\x1b[1Gls'), 'rm -rf /\\x1b[2K\\x1b[1Gls');
  assert.equal(safeText('a\tb\nc\r\nd'), 'a\tb\nc\nd', 'tab and newline stay; CRLF is a newline');
  assert.equal(safeText('over\rwrite'), 'over\\x0dwrite');
  assert.equal(safeText('\x00\x07\x08\x7f'), '\\x00\\x07\\x08\\x7f');
  assert.equal(safeText('\x85\x9b'), '\\x85\\x9b', 'C1 controls (CSI as one byte)');
  assert.equal(
    safeText('\u202aa\u202eb\u2066c\u2069'),
    '\\u202aa\\u202eb\\u2066c\\u2069',
    'bidi embeddings, overrides and isolates',
  );
  assert.equal(safeText('café — 日本 \u00a0 ✓'), 'café — 日本 \u00a0 ✓');
  assert.equal(
    plain(observationLines('ok\x1b[31m\nnext', true, 'Observation')),
    '  Observation: ok\\x1b[31m\n    next',
  );
});

test('the spinner draws only on terminals outside CI, and clears its line when stopped', () => {
  assert.equal(spinnerEnabled({ isTTY: true }, {}), true);
  assert.equal(spinnerEnabled({ isTTY: false }, {}), false);
  assert.equal(spinnerEnabled({ isTTY: true }, { TERM: 'dumb' }), false);
  assert.equal(spinnerEnabled({ isTTY: true }, { CI: 'true' }), false);
  const out = new PassThrough();
  let written = '';
  out.on('data', (d: Buffer) => (written += d.toString()));
  const spinner = createSpinner(out, true);
  spinner.start('thinking (1)');
  spinner.stop();
  spinner.stop();
  assert.equal(written, '\r⠋ thinking (1)\x1b[K\r\x1b[K');
  const off = createSpinner(out, false);
  off.start('x');
  off.stop();
  assert.equal(written, '\r⠋ thinking (1)\x1b[K\r\x1b[K');
});

test('a crash while a run streams leaves a readable trace ending with a run-error line', async () => {
  const file = join(tempDir('taoloop-crash-'), 'crash.jsonl');
  async function* crashing(): AsyncGenerator<AgentEvent> {
    yield { type: 'run-start', question: 'q', modelId: 'm', tools: [], systemPrompt: 'p' };
    yield { type: 'model-start', step: 1 };
    throw new Error('something broke');
  }
  const rendered: string[] = [];
  await assert.rejects(
    consumeRun(crashing(), {
      openTrace: () => createTraceWriter(file, { question: 'q', modelId: 'm' }),
      render: (e) => rendered.push(e.type),
      spinner: { start() {}, stop() {} },
      thinking: 'thinking',
    }),
    /something broke/,
  );
  const trace = readTrace(file);
  assert.equal(trace.error, 'something broke');
  assert.deepEqual(
    trace.events.map((e) => e.type),
    ['run-start', 'model-start', 'run-error'],
  );
  assert.deepEqual(rendered, ['run-start', 'model-start']);
});

test('replay comparison: same, different and never-reached observations', () => {
  const step = (index: number, observation?: string) => ({
    index,
    modelText: '',
    transcriptText: '',
    turn: { type: 'action' as const, thought: '', tool: 'calculator', input: String(index) },
    usage: {},
    finishReason: 'stop' as const,
    modelDurationMs: 0,
    ...(observation !== undefined && {
      observation: { text: observation, source: 'tool' as const, ok: true },
    }),
  });
  const recorded = [step(1, 'a'), step(2, 'b'), step(3, 'c')];
  assert.deepEqual(compareSteps(recorded, recorded), []);
  assert.deepEqual(compareSteps(recorded, [step(1, 'a'), step(2, 'B')]), [
    { step: 2, action: 'calculator[2]', recorded: 'b', now: 'B' },
    { step: 3, action: 'calculator[3]', recorded: 'c', now: null },
  ]);
});
