import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { readUIMessageStream } from 'ai';
import { z } from 'zod';
import { mulberry32 } from '../../scripts/lib/mulberry32.js';
import { randomChunks } from '../../scripts/lib/random-chunks.js';
import { streamAgent } from '../../src/agent/loop.js';
import type { AgentEvent } from '../../src/agent/types.js';
import type { Model, ModelStreamPart } from '../../src/models/types.js';
import { LABEL_SETS, mergeLabels } from '../../src/react/labels.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/define.js';
import { uiMessagesToAgentMessages } from '../../src/ui/ui-response.js';
import {
  type DISCARDED,
  type TaoloopUIMessage,
  type TaoloopUIMessageChunk,
  toUIMessageStream,
} from '../../src/ui/ui-stream.js';

/** Reads the stream with the `ai` package's own reader; returns the last message state. */
async function lastMessage(stream: ReadableStream<TaoloopUIMessageChunk>): Promise<TaoloopUIMessage> {
  let last: TaoloopUIMessage | undefined;
  for await (const message of readUIMessageStream<TaoloopUIMessage>({ stream })) last = message;
  assert.ok(last, 'the stream produced a message');
  return last;
}

async function chunksOf(stream: ReadableStream<TaoloopUIMessageChunk>): Promise<TaoloopUIMessageChunk[]> {
  const chunks: TaoloopUIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

test('readUIMessageStream gives one assistant message: reasoning, a tool part with output, the answer', async () => {
  const model = scriptedModel([
    'Thought: I need 20 * 12.\nAction: calculator[20 * 12]',
    'Thought: That is the total.\nAnswer: 240',
  ]);
  const messages: TaoloopUIMessage[] = [];
  const stream = toUIMessageStream(streamAgent({ model, question: 'What is 20 * 12?', tools: [calculator] }));
  for await (const m of readUIMessageStream<TaoloopUIMessage>({ stream })) messages.push(m);
  const ids = new Set(messages.map((m) => m.id));
  assert.equal(ids.size, 1, 'one assistant message');
  const message = messages.at(-1)!;
  assert.equal(message.role, 'assistant');
  const kinds = message.parts.map((p) => p.type);
  assert.deepEqual(kinds, [
    'step-start',
    'reasoning',
    'tool-calculator',
    'step-start',
    'reasoning',
    'text',
    'data-stop',
  ]);
  const reasoning = message.parts.filter((p) => p.type === 'reasoning').map((p) => p.text);
  assert.deepEqual(reasoning, ['I need 20 * 12.', 'That is the total.']);
  const tool = message.parts.find((p) => p.type === 'tool-calculator');
  assert.ok(tool && tool.type === 'tool-calculator');
  assert.equal(tool.state, 'output-available');
  assert.equal(tool.input, '20 * 12');
  assert.equal((tool as { output?: unknown }).output, '240');
  const text = message.parts.find((p) => p.type === 'text');
  assert.equal(text?.type === 'text' && text.text, '240');
  const stop = message.parts.find((p) => p.type === 'data-stop');
  assert.equal(stop?.type === 'data-stop' && stop.data.status, 'answered');
  model.assertAllUsed();
});

test('format errors and invented observations are typed data parts; the stop reason is the last one', async () => {
  const model = scriptedModel([
    'I am thinking about it.',
    'Thought: add\nAction: calculator[1 + 1]\nObservation: 3',
    'Thought: still going',
  ]);
  const message = await lastMessage(
    toUIMessageStream(streamAgent({ model, question: 'q', tools: [calculator], maxSteps: 1 })),
  );
  const data = message.parts.filter((p) => p.type.startsWith('data-'));
  assert.deepEqual(
    data.map((p) => p.type),
    ['data-format-error', 'data-invented-observation', 'data-stop'],
  );
  const formatError = data[0]!;
  assert.ok(formatError.type === 'data-format-error');
  assert.equal(formatError.data.step, 1);
  assert.match(formatError.data.problem, /Action|Answer/);
  const invented = data[1]!;
  assert.ok(invented.type === 'data-invented-observation');
  assert.equal(invented.data.droppedText, 'Observation: 3');
  const stop = data[2]!;
  assert.ok(stop.type === 'data-stop');
  assert.equal(stop.data.status, 'max_steps');
  const tool = message.parts.find((p) => p.type === 'tool-calculator');
  assert.equal(tool?.type === 'tool-calculator' && tool.state, 'output-available');
});

test('a failing tool ends its part with an error; schema tools get their input as an object', async () => {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks up a price.',
    input: z.object({ plan: z.string() }),
    run: ({ plan }) => {
      throw new Error(`no plan called ${plan}`);
    },
  });
  const model = scriptedModel(['Thought: look\nAction: lookup[{"plan": "Pro"}]', 'Answer: unknown']);
  const message = await lastMessage(
    toUIMessageStream(streamAgent({ model, question: 'q', tools: [lookup] }), { tools: [lookup] }),
  );
  const tool = message.parts.find((p) => p.type === 'tool-lookup');
  assert.ok(tool && tool.type === 'tool-lookup');
  assert.equal(tool.state, 'output-error');
  assert.deepEqual(tool.input, { plan: 'Pro' });
  assert.match((tool as { errorText?: string }).errorText ?? '', /no plan called Pro/);
});

test('approvals: the request is an approval part; a rejected call is denied and never runs', async () => {
  let ran = false;
  const send = defineTool({
    name: 'send',
    description: 'Sends.',
    input: z.object({ to: z.string() }),
    effects: 'external',
    run: () => {
      ran = true;
      return 'sent';
    },
  });
  const model = scriptedModel(['Thought: send\nAction: send[{"to": "a"}]', 'Answer: not sent']);
  const chunks = await chunksOf(
    toUIMessageStream(
      streamAgent({ model, question: 'q', tools: [send], approve: () => ({ type: 'reject' }) }),
    ),
  );
  const types = chunks.map((c) => c.type);
  const request = types.indexOf('tool-approval-request');
  assert.ok(types.indexOf('tool-input-available') < request && request >= 0);
  assert.ok(types.indexOf('tool-output-denied') > request);
  assert.equal(ran, false);
  const message = await lastMessage(
    new ReadableStream({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    }),
  );
  const part = message.parts.find((p) => p.type === 'tool-send');
  assert.equal(part?.type === 'tool-send' && part.state, 'output-denied');
});

test('an approval that edits the input shows as edited: a data-approval-edit part with the input that ran', async () => {
  const ran: string[] = [];
  const send = defineTool({
    name: 'send',
    description: 'Sends.',
    input: z.object({ to: z.string() }),
    effects: 'external',
    run: ({ to }) => {
      ran.push(to);
      return `sent to ${to}`;
    },
  });
  const model = scriptedModel(['Thought: send\nAction: send[{"to": "a"}]', 'Answer: sent']);
  const stream = toUIMessageStream(
    streamAgent({
      model,
      question: 'q',
      tools: [send],
      approve: () => ({ type: 'edit', input: '{"to": "b"}' }),
    }),
  );
  const message = await lastMessage(stream);
  assert.deepEqual(ran, ['b']);
  const edit = message.parts.find((p) => p.type === 'data-approval-edit');
  assert.deepEqual(edit?.type === 'data-approval-edit' && edit.data, {
    toolCallId: 'step-1',
    approvalId: edit?.type === 'data-approval-edit' ? edit.data.approvalId : '',
    input: '{"to": "b"}',
  });
  assert.match((edit as { data: { approvalId: string } }).data.approvalId, /\/step-1\/call-1$/);
  const part = message.parts.find((p) => p.type === 'tool-send');
  assert.equal(part?.type === 'tool-send' && part.state, 'output-available');
  assert.equal(part?.type === 'tool-send' && part.output, 'sent to b');
  // A plain approval adds no such part.
  const plain = await lastMessage(
    toUIMessageStream(
      streamAgent({
        model: scriptedModel(['Thought: send\nAction: send[{"to": "a"}]', 'Answer: sent']),
        question: 'q',
        tools: [send],
        approve: () => ({ type: 'approve' }),
      }),
    ),
  );
  assert.equal(plain.parts.filter((p) => p.type === 'data-approval-edit').length, 0);
});

test('a model failure ends with an error chunk; a caller mistake too; cancelling closes the run', async () => {
  const failing = scriptedModel([new Error('server down')]);
  const chunks = await chunksOf(toUIMessageStream(streamAgent({ model: failing, question: 'q', tools: [] })));
  const error = chunks.find((c) => c.type === 'error');
  assert.match(error?.type === 'error' ? error.errorText : '', /server down/);

  const bad = await chunksOf(
    toUIMessageStream(streamAgent({ model: failing, question: '  ', tools: [] }), { messageId: 'm1' }),
  );
  assert.deepEqual(bad[0], { type: 'start', messageId: 'm1' });
  assert.equal(bad.at(-1)?.type, 'error');

  let closed = false;
  async function* events() {
    try {
      yield* streamAgent({ model: scriptedModel(['Answer: x']), question: 'q', tools: [] });
    } finally {
      closed = true;
    }
  }
  const reader = toUIMessageStream(events()).getReader();
  await reader.read();
  await reader.read();
  await reader.cancel();
  assert.equal(closed, true);
});

test('a refused answer is a data-answer-refused part; only the accepted answer becomes text', async () => {
  const model = scriptedModel(['Answer: {"totalUsd": "lots"}', 'Answer: {"totalUsd": 1680}']);
  const message = await lastMessage(
    toUIMessageStream(
      streamAgent({ model, question: 'q', tools: [], output: z.object({ totalUsd: z.number() }) }),
    ),
  );
  const refused = message.parts.find((p) => p.type === 'data-answer-refused');
  assert.ok(refused?.type === 'data-answer-refused');
  assert.equal(refused.data.answer, '{"totalUsd": "lots"}');
  assert.match(refused.data.problem, /totalUsd/);
  const texts = message.parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : ''));
  assert.deepEqual(texts, ['{"totalUsd": 1680}']);
  const stop = message.parts.find((p) => p.type === 'data-stop');
  assert.deepEqual(stop?.type === 'data-stop' && stop.data.output, { totalUsd: 1680 });
});

// Streamed model calls (issue 31): the parts grow as the model writes them, and end as a call that did not
// stream ends them.

/** The chunks as `type {fields}` lines, for comparing whole sequences. */
function lines(chunks: readonly TaoloopUIMessageChunk[]): string[] {
  return chunks.map((chunk) => {
    const { type, ...rest } = chunk as { type: string };
    if (type === 'data-stop') return type;
    return Object.keys(rest).length ? `${type} ${JSON.stringify(rest)}` : type;
  });
}

/** A stream of `chunks` (for reading recorded chunks again). */
function replay(chunks: readonly TaoloopUIMessageChunk[]): ReadableStream<TaoloopUIMessageChunk> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* replayEvents(events: readonly AgentEvent[]): AsyncGenerator<AgentEvent> {
  yield* events;
}

/** The same run as a model that does not stream shows it: its events without the deltas. */
const withoutDeltas = (events: readonly AgentEvent[]) =>
  events.filter((e) => e.type !== 'model-delta' && e.type !== 'reasoning-delta');

type StreamScript = (ModelStreamPart | Error)[];

/** A model that streams each scripted call's parts as given (an Error part throws there). */
function partsModel(calls: StreamScript[], extra: Partial<Model> = {}): Model {
  let call = 0;
  return {
    id: 'parts',
    ...extra,
    async generate() {
      throw new Error('this model only streams');
    },
    async *stream() {
      const parts = calls[call++];
      assert.ok(parts, `model called ${call} times, ${calls.length} scripted`);
      for (const part of parts) {
        if (part instanceof Error) throw part;
        yield part;
      }
    },
  };
}

/** `text` as text deltas of `size` characters. */
function deltas(text: string, size = 5): ModelStreamPart[] {
  const parts: ModelStreamPart[] = [];
  for (let i = 0; i < text.length; i += size)
    parts.push({ type: 'text-delta', text: text.slice(i, i + size) });
  return parts;
}

const FINISH: ModelStreamPart = { type: 'finish', usage: {}, finishReason: 'stop' };

/** The text each delta chunk adds, in order (reasoning, text and tool input deltas). */
function deltaTexts(chunks: readonly TaoloopUIMessageChunk[]): string[] {
  return chunks.flatMap((c) =>
    c.type === 'reasoning-delta' || c.type === 'text-delta'
      ? [c.delta]
      : c.type === 'tool-input-delta'
        ? [c.inputTextDelta]
        : [],
  );
}

const CALCULATOR_TURNS = [
  'Thought: I need 20 * 12.\nAction: calculator[20 * 12]',
  'Thought: That is the total.\nAnswer: 240',
];

test('a model that does not stream: each part comes whole at its turn (the chunk sequence)', async () => {
  const chunks = await chunksOf(
    toUIMessageStream(
      streamAgent({ model: scriptedModel(CALCULATOR_TURNS), question: 'q', tools: [calculator] }),
    ),
  );
  assert.deepEqual(lines(chunks), [
    'start',
    'start-step',
    'reasoning-start {"id":"reasoning-1"}',
    'reasoning-delta {"id":"reasoning-1","delta":"I need 20 * 12."}',
    'reasoning-end {"id":"reasoning-1"}',
    'tool-input-available {"toolCallId":"step-1","toolName":"calculator","input":"20 * 12"}',
    'tool-output-available {"toolCallId":"step-1","output":"240"}',
    'finish-step',
    'start-step',
    'reasoning-start {"id":"reasoning-2"}',
    'reasoning-delta {"id":"reasoning-2","delta":"That is the total."}',
    'reasoning-end {"id":"reasoning-2"}',
    'text-start {"id":"text-2"}',
    'text-delta {"id":"text-2","delta":"240"}',
    'text-end {"id":"text-2"}',
    'finish-step',
    'data-stop',
    'finish {"finishReason":"stop"}',
  ]);
});

test('a streamed model: the thought, the action and the answer grow as they arrive, in order', async () => {
  const model = scriptedModel(CALCULATOR_TURNS, { streamChunkChars: 6 });
  const chunks = await chunksOf(
    toUIMessageStream(streamAgent({ model, question: 'q', tools: [calculator] })),
  );
  assert.deepEqual(lines(chunks), [
    'start',
    'start-step',
    'reasoning-start {"id":"reasoning-1"}',
    'reasoning-delta {"id":"reasoning-1","delta":"I n"}',
    'reasoning-delta {"id":"reasoning-1","delta":"eed 20"}',
    'reasoning-delta {"id":"reasoning-1","delta":" * 12."}',
    'reasoning-end {"id":"reasoning-1"}',
    'tool-input-start {"toolCallId":"step-1","toolName":"calculator","inputEncoding":"text"}',
    'tool-input-delta {"toolCallId":"step-1","inputTextDelta":"20 *"}',
    'tool-input-delta {"toolCallId":"step-1","inputTextDelta":" 12"}',
    // The call's own input, when it starts: the part is the call's from here on, as without streaming.
    'tool-input-available {"toolCallId":"step-1","toolName":"calculator","input":"20 * 12"}',
    'tool-output-available {"toolCallId":"step-1","output":"240"}',
    'finish-step',
    'start-step',
    'reasoning-start {"id":"reasoning-2"}',
    'reasoning-delta {"id":"reasoning-2","delta":"Tha"}',
    'reasoning-delta {"id":"reasoning-2","delta":"t is t"}',
    'reasoning-delta {"id":"reasoning-2","delta":"he tot"}',
    'reasoning-delta {"id":"reasoning-2","delta":"al."}',
    'reasoning-end {"id":"reasoning-2"}',
    'text-start {"id":"text-2"}',
    'text-delta {"id":"text-2","delta":"240"}',
    'text-end {"id":"text-2"}',
    'finish-step',
    'data-stop',
    'finish {"finishReason":"stop"}',
  ]);
  // The client ends with the message a model that does not stream gives.
  const whole = await lastMessage(
    toUIMessageStream(
      streamAgent({ model: scriptedModel(CALCULATOR_TURNS), question: 'q', tools: [calculator] }),
    ),
  );
  const streamed = await lastMessage(replay(chunks));
  assert.deepEqual(comparable(streamed.parts), comparable(whole.parts));
});

/** Parts as JSON (what `useChat` sends back), the run's duration left out. */
function comparable(parts: readonly TaoloopUIMessage['parts'][number][]): unknown {
  return JSON.parse(
    JSON.stringify(
      parts.map((p) => (p.type === 'data-stop' ? { ...p, data: { ...p.data, durationMs: 0 } } : p)),
    ),
  );
}

for (const [language, turn, answer] of [
  [
    'en',
    'Thought: Look it up.\nAction: calculator[2 + 2]\nObservation: 5\nThought: so\nAnswer: 5',
    'Answer: 4',
  ],
  ['pt', 'Pensamento: Somar.\nAção: calculator[2 + 2]\nObservação: 5\nResposta: 5', 'Resposta: 4'],
  ['fr', 'Pensée : Additionner.\nAction : calculator[2 + 2]\nObservation : 5\nRéponse : 5', 'Réponse : 4'],
  ['id', 'Pikiran: Tambahkan.\nAksi: calculator[2 + 2]\nObservasi: 5\nJawaban: 5', 'Jawaban: 4'],
] as const) {
  test(`an observation the model invents is never in any delta, in any chunking (${language} labels)`, async () => {
    const labels = language === 'en' ? undefined : mergeLabels(LABEL_SETS[language]);
    const next = mulberry32(31);
    for (const size of [1, 2, 3, 7, 0]) {
      const pieces =
        size === 0 ? randomChunks(turn, next) : deltas(turn, size).map((p) => (p as { text: string }).text);
      const model = partsModel([
        [...pieces.map((text): ModelStreamPart => ({ type: 'text-delta', text })), FINISH],
        [...deltas(answer), FINISH],
      ]);
      const events = await collect(
        streamAgent({ model, question: 'q', tools: [calculator], ...(labels && { prompt: { labels } }) }),
      );
      const chunks = await chunksOf(toUIMessageStream(replayEvents(events), { ...(labels && { labels }) }));
      const streamedText = deltaTexts(chunks).join('|');
      assert.doesNotMatch(streamedText, /Obs|5/, `${size}: ${streamedText}`);
      const invented = chunks.find((c) => c.type === 'data-invented-observation');
      assert.ok(invented, 'the dropped text is reported, as without streaming');
      const streamed = await lastMessage(replay(chunks));
      const whole = await lastMessage(
        toUIMessageStream(replayEvents(withoutDeltas(events)), { ...(labels && { labels }) }),
      );
      // The same parts; the tool part, streamed, comes before the note on the observation it was followed by.
      const byType = (m: TaoloopUIMessage) =>
        comparable(m.parts.filter((p) => p.type !== 'data-invented-observation'));
      assert.deepEqual(byType(streamed), byType(whole));
      assert.equal(streamed.parts.filter((p) => p.type === 'tool-calculator').length, 1);
    }
  });
}

/** Turns the loop rejects where a later line changes what an earlier one read as (as in test/cli/live-turn). */
const CONTRADICTED = new Set(['action-and-answer', 'placeholder-answer']);

interface CorpusTurn {
  id: string;
  kind: string;
  text: string;
  tools?: string[];
  language?: string;
}

test('every corpus turn, in any chunking, ends with the parts the same turn has without streaming', async () => {
  const corpus = readFileSync(new URL('../../bench/parse-accuracy/corpus.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CorpusTurn);
  const next = mulberry32(31);
  let checked = 0;
  for (const turn of corpus) {
    const labels =
      turn.language && turn.language !== 'en' ? mergeLabels(LABEL_SETS[turn.language as 'pt']) : undefined;
    const tools = (turn.tools ?? []).map((name) =>
      defineTool({ name, description: name, input: 'text', run: () => 'ok' }),
    );
    for (const pieces of [[...turn.text], randomChunks(turn.text, next)]) {
      const model = partsModel([
        [...pieces.map((text): ModelStreamPart => ({ type: 'text-delta', text })), FINISH],
        [...deltas('Answer: done'), FINISH],
      ]);
      const events = await collect(
        streamAgent({ model, question: 'q', tools, maxSteps: 2, ...(labels && { prompt: { labels } }) }),
      );
      const options = { tools, ...(labels && { labels }) };
      const chunks = await chunksOf(toUIMessageStream(replayEvents(events), options));
      const streamed = await lastMessage(replay(chunks));
      const whole = await lastMessage(toUIMessageStream(replayEvents(withoutDeltas(events)), options));
      // Left out: what only a streamed call shows (the model's reasoning of a `<think>` block), the note on
      // an invented observation (the streamed tool part comes before it), and, for a turn a later line
      // contradicts, the parts it streamed first (ended as discarded; a tool part with an error).
      const kept = (m: TaoloopUIMessage) =>
        comparable(
          m.parts.filter(
            (p) =>
              !(p.type === 'reasoning' && p.id === 'reasoning-1-model') &&
              p.type !== 'data-invented-observation' &&
              !(CONTRADICTED.has(turn.kind) && isDiscarded(p)),
          ),
        );
      assert.deepEqual(kept(streamed), kept(whole), `${turn.id} in chunks ${JSON.stringify(pieces)}`);
      if (!CONTRADICTED.has(turn.kind))
        assert.ok(!streamed.parts.some(isDiscarded), `${turn.id}: nothing discarded`);
      checked += 1;
    }
  }
  assert.ok(checked >= 2 * 130, `only ${checked} streamed turns`);
});

/** A part a streamed turn did not keep: ended as discarded, or a streamed tool part whose call never ran. */
function isDiscarded(part: TaoloopUIMessage['parts'][number]): boolean {
  const metadata = (part as { providerMetadata?: typeof DISCARDED }).providerMetadata;
  if (metadata?.taoloop.discarded === true) return true;
  return (
    part.type.startsWith('tool-') &&
    (part as { state?: string }).state === 'output-error' &&
    'rawInput' in part
  );
}

test('a format error streams its thought; the turn ends as without streaming', async () => {
  const model = partsModel([
    [...deltas('Thought: I will just say it.\nThe answer is 4.'), FINISH],
    [...deltas('Answer: 4'), FINISH],
  ]);
  const events = await collect(streamAgent({ model, question: 'q', tools: [calculator] }));
  const chunks = await chunksOf(toUIMessageStream(replayEvents(events)));
  const types = chunks.map((c) => c.type);
  assert.ok(types.indexOf('reasoning-delta') < types.indexOf('data-format-error'));
  assert.ok(!types.includes('tool-input-start'));
  const streamed = await lastMessage(replay(chunks));
  const whole = await lastMessage(toUIMessageStream(replayEvents(withoutDeltas(events))));
  assert.deepEqual(comparable(streamed.parts), comparable(whole.parts));
  assert.deepEqual(
    streamed.parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : '')),
    ['4'],
  );
});

test('a model that fails mid-turn: what streamed is ended (the action with an error), then the error', async () => {
  const model = partsModel([
    [...deltas('Thought: Add them.\nAction: calculator[1 + 2'), new Error('the server went away')],
  ]);
  const chunks = await chunksOf(
    toUIMessageStream(streamAgent({ model, question: 'q', tools: [calculator] })),
  );
  assert.deepEqual(lines(chunks).slice(-5), [
    'tool-input-delta {"toolCallId":"step-1","inputTextDelta":" + 2"}',
    'tool-input-error {"toolCallId":"step-1","toolName":"calculator","input":"1 + 2","errorText":"The model call failed: the server went away"}',
    'data-stop',
    'error {"errorText":"The model call failed: the server went away"}',
    'finish {"finishReason":"error"}',
  ]);
  const message = await lastMessage(replay(chunks));
  const tool = message.parts.find((p) => p.type === 'tool-calculator');
  assert.equal(tool?.type === 'tool-calculator' && tool.state, 'output-error');
  // An answer cut off mid-way is ended as discarded: it is not the run's answer.
  const cut = await chunksOf(
    toUIMessageStream(
      streamAgent({
        model: partsModel([[...deltas('Thought: Easy.\nAnswer: The total is'), new Error('cut')]]),
        question: 'q',
        tools: [],
      }),
    ),
  );
  const text = (await lastMessage(replay(cut))).parts.find((p) => p.type === 'text');
  assert.ok(text && isDiscarded(text), JSON.stringify(text));
  assert.deepEqual(uiMessagesToAgentMessages([{ id: 'a', role: 'assistant', parts: [text] }]), []);
});

test('a fallback mid-turn: the failed model’s parts end as discarded, the next model’s turn streams anew', async () => {
  const failing = partsModel([[...deltas('Thought: Half a tho'), new Error('HTTP 503')]], { id: 'first' });
  const next = partsModel([[...deltas('Thought: Fine.\nAnswer: 5'), FINISH]], { id: 'second' });
  const events = await collect(
    streamAgent({ model: failing, modelSettings: { fallbackModels: [next] }, question: 'q', tools: [] }),
  );
  const message = await lastMessage(toUIMessageStream(replayEvents(events)));
  assert.deepEqual(
    message.parts
      .filter((p) => p.type === 'reasoning' || p.type === 'text')
      .map((p) => [p.type, 'text' in p ? p.text : '', isDiscarded(p)]),
    [
      ['reasoning', 'Half a tho', true],
      ['reasoning', 'Fine.', false],
      ['text', '5', false],
    ],
  );
  const whole = await lastMessage(toUIMessageStream(replayEvents(withoutDeltas(events))));
  assert.deepEqual(comparable(message.parts.filter((p) => !isDiscarded(p))), comparable(whole.parts));
});

test('the model’s own reasoning streams as a reasoning part of its own, before the thought', async () => {
  const model = partsModel([
    [
      { type: 'reasoning-delta', text: 'The user wants ' },
      { type: 'reasoning-delta', text: 'a sum.' },
      ...deltas('<think>Add.</think>\nThought: Simple.\nAnswer: 4'),
      FINISH,
    ],
  ]);
  const chunks = await chunksOf(toUIMessageStream(streamAgent({ model, question: 'q', tools: [] })));
  const message = await lastMessage(replay(chunks));
  assert.deepEqual(
    message.parts.filter((p) => p.type === 'reasoning').map((p) => [p.id, p.text]),
    [
      ['reasoning-1-model', 'The user wants a sum.\n\nAdd.'],
      ['reasoning-1', 'Simple.'],
    ],
  );
  const first = chunks.findIndex((c) => c.type === 'reasoning-delta');
  assert.deepEqual(chunks[first], {
    type: 'reasoning-delta',
    id: 'reasoning-1-model',
    delta: 'The user wants',
  });
  assert.ok(first < chunks.findIndex((c) => c.type === 'text-start'));
});

test('an answer that streamed and was refused ends as discarded, and is not sent back as the answer', async () => {
  const model = partsModel([
    [...deltas('Answer: {"totalUsd": "lots"}'), FINISH],
    [...deltas('Answer: {"totalUsd": 1680}'), FINISH],
  ]);
  const events = await collect(
    streamAgent({ model, question: 'q', tools: [], output: z.object({ totalUsd: z.number() }) }),
  );
  const message = await lastMessage(toUIMessageStream(replayEvents(events)));
  const texts = message.parts.filter((p) => p.type === 'text');
  assert.deepEqual(
    texts.map((p) => [p.type === 'text' && p.text, isDiscarded(p)]),
    [
      ['{"totalUsd": "lots"}', true],
      ['{"totalUsd": 1680}', false],
    ],
  );
  assert.deepEqual(uiMessagesToAgentMessages([JSON.parse(JSON.stringify(message))]), [
    { role: 'assistant', content: '{"totalUsd": 1680}' },
  ]);
  // With `streamAnswer: false` (what the chat route sets for a run with `output` or `checkAnswer`) the
  // answer comes whole once accepted, as without streaming.
  const held = await lastMessage(toUIMessageStream(replayEvents(events), { streamAnswer: false }));
  const whole = await lastMessage(toUIMessageStream(replayEvents(withoutDeltas(events))));
  assert.deepEqual(comparable(held.parts), comparable(whole.parts));
});

test('native tool calling: only the model’s reasoning streams; the thought and the call come with the turn', async () => {
  const model = partsModel(
    [
      [
        { type: 'reasoning-delta', text: 'Need a sum.' },
        ...deltas('<think>Sum it.</think>I will add.'),
        { type: 'tool-call', toolCall: { id: 'c1', name: 'calculator', input: '{"input":"1 + 1"}' } },
        FINISH,
      ],
      [...deltas('It is 2.'), FINISH],
    ],
    { supportsToolCalls: true },
  );
  const events = await collect(
    streamAgent({ model, modelSettings: { mode: 'native' }, question: 'q', tools: [calculator] }),
  );
  const chunks = await chunksOf(toUIMessageStream(replayEvents(events), { native: true }));
  const modelEnd = lines(chunks).indexOf('reasoning-start {"id":"reasoning-1"}');
  // The model's reasoning (the provider's, then the `<think>` block) as it arrives; the thought waits.
  assert.deepEqual(lines(chunks).slice(2, modelEnd), [
    'reasoning-start {"id":"reasoning-1-model"}',
    'reasoning-delta {"id":"reasoning-1-model","delta":"Need a sum."}',
    'reasoning-delta {"id":"reasoning-1-model","delta":"\\n\\nSum"}',
    'reasoning-delta {"id":"reasoning-1-model","delta":" it."}',
    'reasoning-end {"id":"reasoning-1-model"}',
  ]);
  assert.ok(!chunks.some((c) => c.type === 'tool-input-start'));
  const streamed = await lastMessage(replay(chunks));
  const whole = await lastMessage(toUIMessageStream(replayEvents(withoutDeltas(events)), { native: true }));
  assert.deepEqual(
    comparable(streamed.parts.filter((p) => !(p.type === 'reasoning' && p.id?.endsWith('-model')))),
    comparable(whole.parts),
  );
});

test('a streamed action that never runs (the forced last turn) ends its tool part with an error', async () => {
  const model = partsModel([
    [...deltas('Thought: a\nAction: calculator[1 + 1]'), FINISH],
    [...deltas('Thought: b\nAction: calculator[2 + 2]'), FINISH],
  ]);
  const message = await lastMessage(
    toUIMessageStream(
      streamAgent({
        model,
        question: 'q',
        tools: [calculator],
        maxSteps: 1,
        limits: { forceFinalAnswer: true },
      }),
    ),
  );
  const tools = message.parts.filter((p) => p.type === 'tool-calculator');
  assert.deepEqual(
    tools.map((p) => (p.type === 'tool-calculator' ? [p.toolCallId, p.state] : [])),
    [
      ['step-1', 'output-available'],
      ['step-2', 'output-error'],
    ],
  );
});
