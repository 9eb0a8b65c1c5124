/**
 * A call cut on the client side (the server ignored the stop sequence and reading stopped) gets no usage
 * from the provider: its usage is estimated from the request's size and the text received, marked
 * `estimated`, and counted in the totals and the cost.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { RunResult } from '../../src/agent/types.js';
import { footerLines } from '../../src/cli/render.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import { createTraceWriter, readTrace } from '../../src/trace/trace.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

const dir = mkdtempSync(join(tmpdir(), 'taoloop-estimated-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const tail = '\nThought: It is five.\nAnswer: 5'.repeat(20);
const REPLIES = [`Thought: add\nAction: calculator[2 + 2]\nObservation: 5${tail}`, 'Thought: ok\nAnswer: 4'];

async function runOn(streaming: boolean, traceFile?: string): Promise<RunResult> {
  const server = await startFakeOpenAI({ ignoreStop: true, replies: REPLIES });
  try {
    const model = await resolveModelSpec('openai:gpt-4o-mini', {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });
    const options = { model, question: 'What is 2 + 2?', tools: [calculator], streaming };
    if (!traceFile) return await runAgent(options);
    const trace = createTraceWriter(traceFile, { question: options.question, modelId: model.id });
    let result: RunResult | undefined;
    for await (const event of streamAgent(options)) {
      trace.write(event);
      if (event.type === 'run-end') result = event.result;
    }
    return result!;
  } finally {
    await server.close();
  }
}

test('a streamed call cut client-side is counted with estimated usage, marked, and priced', async () => {
  const file = join(dir, 'cut.jsonl');
  const streamed = await runOn(true, file);
  assert.equal(streamed.status, 'answered');
  assert.equal(streamed.steps[0]?.finishReason, 'stop');
  const cut = streamed.steps[0]!.usage;
  assert.equal(cut.estimated, true, 'the cut call is marked estimated');
  assert.ok((cut.inputTokens ?? 0) > 50, `input estimated from the request: ${cut.inputTokens}`);
  assert.ok((cut.outputTokens ?? 0) > 0);
  assert.equal(streamed.steps[1]!.usage.estimated, undefined, 'the reported call is not');
  assert.equal(streamed.usage.estimated, true, 'so is the total');
  assert.equal(
    streamed.usage.inputTokens,
    (cut.inputTokens ?? 0) + (streamed.steps[1]!.usage.inputTokens ?? 0),
  );
  assert.notEqual(streamed.costUsd, undefined, 'gpt-4o-mini has a price: the cost is known');

  // Not a silent under-count: close to what the provider reports for the same run without streaming
  // (which also bills the text past the stop that the streamed run never read).
  const whole = await runOn(false);
  assert.equal(whole.usage.estimated, undefined);
  const ratio = (streamed.usage.inputTokens ?? 0) / (whole.usage.inputTokens ?? 1);
  assert.ok(ratio > 0.6 && ratio < 1.6, `input ${streamed.usage.inputTokens} vs ${whole.usage.inputTokens}`);

  // The trace keeps the mark, and the footer shows it.
  const ends = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'model-end');
  assert.equal(ends[0].usage.estimated, true);
  assert.equal(readTrace(file).result?.usage.estimated, true);
  const footer = footerLines(streamed).join('\n');
  assert.match(footer, /~\d+ in \/ ~\d+ out/);
  assert.match(footer, /~\$\d/);
  assert.doesNotMatch(footerLines(whole).join('\n'), /~/);
});
