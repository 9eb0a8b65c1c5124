import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import { humanModel } from '../../src/models/human.js';
import { calculator } from '../../src/tools/calculator.js';

/** A fake terminal: what the model showed, and a way to type once a turn is asked for. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
  });
  const turns = () => shown.split('an empty line ends the turn.').length - 1;
  let typed = 0;
  return {
    input,
    output,
    shown: () => shown,
    async type(text: string) {
      while (turns() <= typed) await once(output, 'data');
      typed += 1;
      input.write(text);
    },
  };
}

test('a person walks the loop: their lines are the turns, the real tool answers', async () => {
  const t = terminal();
  const model = humanModel({ input: t.input, output: t.output });
  const [result] = await Promise.all([
    runAgent({ model, question: 'What is 17 * 23?', tools: [calculator] }),
    (async () => {
      await t.type('\nThought: multiply.\nAction: calculator[17 * 23]\n\n');
      await t.type('Thought: it said 391.\nAnswer: 391\n\n');
    })(),
  ]);
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '391');
  assert.equal(result.modelId, 'human');
  assert.equal(result.steps[0]?.modelText, 'Thought: multiply.\nAction: calculator[17 * 23]');
  assert.deepEqual(result.steps[0]?.usage, {}, 'nobody counts a person’s tokens');
  assert.equal(result.usage.inputTokens, undefined);
  const shown = t.shown();
  assert.match(shown, /You are the model\./);
  assert.match(shown, /----- system prompt -----[\s\S]*- calculator\[/);
  assert.match(shown, /Question: What is 17 \* 23\?/);
  assert.match(shown, /\nObservation: 391\n/, 'the next turn shows the observation that came back');
  assert.equal(shown.split('----- system prompt -----').length, 2, 'the prompt is shown once');
});

test('messages can be translated', async () => {
  const t = terminal();
  const model = humanModel({
    input: t.input,
    output: t.output,
    messages: { intro: 'Você é o modelo.', turn: 'Sua vez; an empty line ends the turn.' },
  });
  const pending = model.generate({ messages: [{ role: 'user', content: 'Pergunta: oi?' }] });
  await t.type('Pensamento: ok.\nResposta: oi\n\n');
  assert.equal((await pending).text, 'Pensamento: ok.\nResposta: oi');
  assert.match(t.shown(), /Você é o modelo\.[\s\S]*Sua vez/);
});

test('the input ending, or the run being aborted, ends the turn with an error', async () => {
  const ended = terminal();
  const model = humanModel({ input: ended.input, output: ended.output });
  const pending = model.generate({ messages: [{ role: 'user', content: 'Question: q' }] });
  ended.input.end('Thought: half a turn');
  await assert.rejects(pending, /the input ended before the turn was finished/);

  const t = terminal();
  const controller = new AbortController();
  const waiting = humanModel({ input: t.input, output: t.output }).generate({
    messages: [{ role: 'user', content: 'Question: q' }],
    signal: controller.signal,
  });
  controller.abort(new Error('stopped'));
  await assert.rejects(waiting, /stopped/);
});
