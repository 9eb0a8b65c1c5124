import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import {
  createHumanTool,
  DEFAULT_HUMAN_DESCRIPTION,
  DEFAULT_HUMAN_TIMEOUT_MS,
} from '../../src/tools/human.js';
import { createToolRouter } from '../../src/tools/router.js';

/** A fake terminal: what the tool wrote, and a way to type a line once the question is on screen. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
  });
  const questions = () => shown.split('What did you observe? ').length - 1;
  let answered = 0;
  return {
    input,
    output,
    shown: () => shown,
    /** Resolves once a question not yet answered is on screen. */
    async asked() {
      while (questions() <= answered) await once(output, 'data');
    },
    /** Types `line` once a question not yet answered is on screen. */
    async answer(line: string) {
      await this.asked();
      answered += 1;
      input.write(line);
    },
  };
}

const signal = () => new AbortController().signal;

test('defaults: name, description, read effects, a long timeout', () => {
  const tool = createHumanTool();
  assert.equal(tool.name, 'human');
  assert.equal(tool.description, DEFAULT_HUMAN_DESCRIPTION);
  assert.equal(tool.effects, 'read');
  assert.equal(tool.timeoutMs, DEFAULT_HUMAN_TIMEOUT_MS);
  const named = createHumanTool({ name: 'operator', description: 'Asks the operator.' });
  assert.deepEqual([named.name, named.description], ['operator', 'Asks the operator.']);
});

test('shows the request and returns the line the person types', async () => {
  const t = terminal();
  const tool = createHumanTool({ input: t.input, output: t.output });
  const [observation] = await Promise.all([
    tool.run('look out of the window', { signal: signal() }),
    t.answer('  It is raining.  \n'),
  ]);
  assert.equal(observation, 'It is raining.');
  assert.equal(t.shown(), 'The agent asks you to: look out of the window\nWhat did you observe? ');
});

test('an empty line is "(no observation)"; questions can follow one another', async () => {
  const t = terminal();
  const tool = createHumanTool({ input: t.input, output: t.output });
  const first = await Promise.all([tool.run('check the kettle', { signal: signal() }), t.answer('\n')]);
  const second = await Promise.all([tool.run('check again', { signal: signal() }), t.answer('boiling\n')]);
  assert.deepEqual([first[0], second[0]], ['(no observation)', 'boiling']);
});

test('an abort closes the prompt and releases the input', async () => {
  const t = terminal();
  const listeners = t.input.listenerCount('data');
  const controller = new AbortController();
  const tool = createHumanTool({ input: t.input, output: t.output });
  const running = Promise.resolve(tool.run('wait for the bus', { signal: controller.signal }));
  await t.asked();
  controller.abort();
  await assert.rejects(running, { name: 'AbortError' });
  assert.equal(t.input.listenerCount('data'), listeners);
  await assert.rejects(
    Promise.resolve(tool.run('again', { signal: controller.signal })),
    { name: 'AbortError' },
    'an aborted signal stops before asking',
  );
});

test('the router times a slow person out with an Error observation', async () => {
  const t = terminal();
  const tool = { ...createHumanTool({ input: t.input, output: t.output }), timeoutMs: 50 };
  const outcome = await createToolRouter([tool]).call('human', 'count the stars');
  assert.deepEqual([outcome.ok, outcome.observation], [false, 'Error: human timed out after 50 ms.']);
});

test('input that ends before an answer is an Error observation, now and later', async () => {
  const t = terminal();
  const router = createToolRouter([createHumanTool({ input: t.input, output: t.output })]);
  const calling = router.call('human', 'anyone there?');
  await t.asked();
  t.input.end();
  assert.equal((await calling).observation, 'Error: the input ended before anyone answered.');
  const later = await router.call('human', 'still there?');
  assert.equal(later.observation, 'Error: the input ended before anyone answered.');
});

test('onInputEnd is told when the input ends before an answer, and a run can stop on it with the reason', async () => {
  const t = terminal();
  const controller = new AbortController();
  let told = 0;
  const human = createHumanTool({
    input: t.input,
    output: t.output,
    onInputEnd: () => {
      told += 1;
      controller.abort(new Error('the input ended'));
    },
  });
  const model = scriptedModel(['Thought: I cannot see outside.\nAction: human[is it raining?]']);
  const running = runAgent({ model, question: 'Is it raining?', tools: [human], signal: controller.signal });
  await t.asked();
  t.input.end();
  const result = await running;
  assert.equal(told, 1);
  assert.equal(result.status, 'aborted');
  assert.equal(result.error, 'The run was aborted: the input ended.');
  assert.equal(model.requests.length, 1, 'the model is not asked to go on without an observation');
  // Asked again after the input ended: told again at once.
  await assert.rejects(
    async () => human.run('still there?', { signal: new AbortController().signal }),
    /input ended/,
  );
  assert.equal(told, 2);
});

test('in the loop: the answer is the observation and no approval is asked', async () => {
  const t = terminal();
  const model = scriptedModel([
    'Thought: I cannot see outside.\nAction: human[look out of the window: is it raining?]',
    'Thought: the person looked.\nAnswer: yes',
  ]);
  const [result] = await Promise.all([
    runAgent({
      model,
      question: 'Is it raining?',
      tools: [createHumanTool({ input: t.input, output: t.output })],
    }),
    t.answer('yes, heavily\n'),
  ]);
  assert.equal(result.status, 'answered');
  assert.equal(result.steps[0]!.observation?.text, 'yes, heavily');
  assert.equal(result.steps[0]!.observation?.approval, undefined);
  assert.match(model.requests[0]!.messages[0]!.content, /- human\[what to do or check\]: Asks the person/);
});

test('the prompts can be translated and the request shown through a filter', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
  });
  const tool = createHumanTool({
    input,
    output,
    messages: { asks: 'O agente pede:', observed: 'O que observou?' },
    show: (request) => request.toUpperCase(),
  });
  const running = tool.run('olhe a chaleira', { signal: new AbortController().signal });
  while (!shown.includes('O que observou? ')) await once(output, 'data');
  input.write('está fervendo\n');
  assert.equal(await running, 'está fervendo');
  assert.match(shown, /^O agente pede: OLHE A CHALEIRA\nO que observou\? /);
});
