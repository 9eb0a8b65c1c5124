import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { streamAgent } from '../../src/agent/loop.js';
import type { AgentOptions } from '../../src/agent/options.js';
import type { RunResult, Step } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/node/resolve-model.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import type { Tool } from '../../src/tools/types.js';
import { replayModel } from '../../src/trace/replay-model.js';
import { createTraceWriter, readTrace, TraceFormatError } from '../../src/trace/trace.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('taoloop-replay-');
let traces = 0;

/** Runs the agent, writing every event to a new trace file; returns the result and the file. */
async function recordRun(options: AgentOptions): Promise<{ result: RunResult; file: string }> {
  traces += 1;
  const file = join(dir, `run-${traces}.jsonl`);
  const writer = createTraceWriter(file, { question: options.question ?? '', modelId: options.model.id });
  const run = streamAgent(options);
  let next = await run.next();
  for (; !next.done; next = await run.next()) writer.write(next.value);
  return { result: next.value, file };
}

/** A step without its timings, which differ between runs. */
function comparable(step: Step): Omit<Step, 'modelDurationMs'> {
  const { modelDurationMs: _model, ...rest } = step;
  if (!rest.observation) return rest;
  const { durationMs: _tool, ...observation } = rest.observation;
  return { ...rest, observation };
}

const prices: Tool = {
  name: 'price',
  description: 'Price per developer per month of a product.',
  run: (input: string) => (input.includes('Pro') ? '$20' : 'unknown product'),
};

const TURNS = [
  'Thought: I need the price first.\nAction: price[Brightgrid Pro]',
  'Thought: Badly formatted turn without an action.',
  'Thought: Now the yearly total.\nAction: calculator[20 * 12 * 7]\nObservation: 1680 (invented)',
  'Thought: The calculator gave the total.\nAnswer: $1,680 per year',
];
const USAGE = { inputTokens: 100, outputTokens: 20, cachedInputTokens: 64 };
const QUESTION = 'How much is Brightgrid Pro per year for 7 developers?';

describe('replayModel', () => {
  it('replays a recorded text-mode run with the same tools into identical steps and answer', async () => {
    const recorded = await recordRun({
      model: scriptedModel(TURNS, { usage: USAGE }),
      question: QUESTION,
      tools: [prices, calculator],
    });
    assert.equal(recorded.result.status, 'answered');
    assert.equal(recorded.result.steps.length, 4);

    const replay = replayModel(recorded.file);
    assert.equal(replay.id, `replay:${recorded.file}`);
    assert.equal(replay.recordedTurns, 4);
    assert.equal(replay.supportsToolCalls, false);
    const { result } = await recordRun({ model: replay, question: QUESTION, tools: [prices, calculator] });
    assert.equal(replay.usedTurns, 4);
    assert.equal(result.status, 'answered');
    assert.equal(result.answer, recorded.result.answer);
    assert.deepEqual(result.steps.map(comparable), recorded.result.steps.map(comparable));
    assert.deepEqual(result.usage, { inputTokens: 400, outputTokens: 80, cachedInputTokens: 256 });
  });

  it('with a changed tool, the observations differ but the model turns are the recorded ones', async () => {
    const recorded = await recordRun({
      model: scriptedModel(TURNS),
      question: QUESTION,
      tools: [prices, calculator],
    });
    const cheaper: Tool = { ...prices, run: () => '$10' };
    const trace = readTrace(recorded.file);
    const replay = replayModel(trace);
    assert.equal(replay.id, 'replay:scripted');
    const { result } = await recordRun({ model: replay, question: QUESTION, tools: [cheaper, calculator] });
    assert.deepEqual(
      result.steps.map((step) => step.modelText),
      TURNS,
    );
    assert.equal(result.steps[0]?.observation?.text, '$10');
    assert.equal(recorded.result.steps[0]?.observation?.text, '$20');
    assert.equal(result.answer, '$1,680 per year');
  });

  it('fails the run instead of inventing a turn past the recording', async () => {
    const recorded = await recordRun({
      model: scriptedModel([TURNS[0] ?? '', TURNS[2] ?? '']),
      question: QUESTION,
      tools: [prices, calculator],
      maxSteps: 2,
    });
    assert.equal(recorded.result.status, 'max_steps');
    const replay = replayModel(recorded.file, { id: 'replayed' });
    const { result } = await recordRun({
      model: replay,
      question: QUESTION,
      tools: [prices, calculator],
      maxSteps: 5,
    });
    assert.equal(result.status, 'error');
    assert.equal(result.steps.length, 2);
    assert.match(result.error ?? '', /the recorded run has only 2 model turns/);
    await assert.rejects(replay.generate({ messages: [] }), /only 2 model turns/);
  });

  it('replays a native tool-calling run recorded from an OpenAI-compatible server', async () => {
    const convert = defineTool({
      name: 'convert',
      description: 'Converts USD to EUR.',
      input: z.object({ amountUsd: z.number() }),
      run: ({ amountUsd }) => `${amountUsd * 0.5} EUR`,
    });
    const server = await startFakeOpenAI({
      replies: [
        {
          text: 'Yearly total first.',
          toolCalls: [{ name: 'calculator', arguments: '{"input":"20*12*7"}' }],
        },
        { toolCalls: [{ name: 'convert', arguments: '{"amountUsd":1680}' }] },
        'Answer: 840 EUR per year',
      ],
      usage: { promptTokens: 50, completionTokens: 10, cachedTokens: 32 },
    });
    try {
      const model = await resolveModelSpec(`openai-compatible:${server.baseURL}#m`, {});
      const options = {
        question: 'Yearly cost in EUR?',
        tools: [calculator, convert],
        modelSettings: { mode: 'auto' as const },
      };
      const recorded = await recordRun({ model, ...options });
      assert.equal(recorded.result.status, 'answered');
      const replay = replayModel(recorded.file);
      assert.equal(replay.supportsToolCalls, true);
      const { result } = await recordRun({ model: replay, ...options });
      assert.equal(server.requests.length, 3, 'the replay sent nothing to the server');
      assert.deepEqual(result.steps.map(comparable), recorded.result.steps.map(comparable));
      assert.deepEqual(result.steps[1]?.toolCall, recorded.result.steps[1]?.toolCall);
      assert.deepEqual(result.usage, recorded.result.usage);
      assert.equal(result.answer, '840 EUR per year');
    } finally {
      await server.close();
    }
  });

  it('is reachable as replay:<trace file> and refuses a file that is not a trace', async () => {
    const recorded = await recordRun({ model: scriptedModel([TURNS[3] ?? '']), question: 'q', tools: [] });
    const model = await resolveModelSpec(`replay:${recorded.file}`, {});
    assert.equal(model.id, `replay:${recorded.file}`);
    assert.equal((await model.generate({ messages: [] })).text, TURNS[3]);
    const notTrace = join(dir, 'not-a-trace.jsonl');
    writeFileSync(notTrace, '{"hello":1}\n');
    await assert.rejects(resolveModelSpec(`replay:${notTrace}`, {}), TraceFormatError);
    await assert.rejects(resolveModelSpec('replay:', {}), /no trace file after "replay:"/);
  });

  it('honours an aborted signal', async () => {
    const recorded = await recordRun({ model: scriptedModel([TURNS[3] ?? '']), question: 'q', tools: [] });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(replayModel(recorded.file).generate({ messages: [], signal: controller.signal }), {
      name: 'AbortError',
    });
  });
});
