/**
 * The run picks its effects once (issue 26): an ordinary run makes each effect directly and records
 * nothing; a run that may pause records; a durable run goes through its journal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordedEffects } from '../../src/agent/effects.js';
import { runAgent } from '../../src/agent/loop.js';
import { runSettings } from '../../src/agent/options.js';
import { startRun } from '../../src/agent/run.js';
import type { Journal } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import type { Tool } from '../../src/tools/types.js';

const write: Tool = { name: 'write', description: 'Writes.', effects: 'write', run: () => 'written' };
const approve = () => ({ type: 'approve' }) as const;
const model = scriptedModel([]);

function effectsOf(options: Parameters<typeof runSettings>[0]) {
  return startRun(runSettings(options)).effects;
}

test('an ordinary run records nothing: no approvals possible, or none needed, means direct effects', () => {
  const ordinary = [
    { model, tools: [calculator], question: 'q' },
    // `approve` is given, but no tool of the run needs approval (the CLI always passes `approve`).
    { model, tools: [calculator], question: 'q', approve },
    // The only tool with side effects runs without asking.
    { model, tools: [calculator, write], question: 'q', approve, limits: { allowTools: ['write'] } },
    // A tool with side effects that says it needs no approval never asks.
    { model, tools: [{ ...write, needsApproval: false }], question: 'q', approve },
  ];
  for (const options of ordinary) {
    const effects = effectsOf(options);
    assert.ok(!(effects instanceof RecordedEffects), JSON.stringify(Object.keys(options)));
    assert.equal(effects.streams, true);
    assert.equal('completed' in effects, false);
  }
});

test('a run that may pause records its effects; a durable run journals them', () => {
  assert.ok(effectsOf({ model, tools: [write], question: 'q', approve }) instanceof RecordedEffects);
  assert.ok(
    effectsOf({ model, tools: [calculator], question: 'q', durable: { pauseForApproval: true } }) instanceof
      RecordedEffects,
  );
  const journal: Journal = (_name, effect) => effect();
  const durable = effectsOf({ model, tools: [write], question: 'q', approve, durable: { journal } });
  assert.ok(!(durable instanceof RecordedEffects));
  assert.equal(durable.streams, false, 'a journal records whole results');
});

test('the effects an ordinary run makes: the model and tool calls happen once each, nothing is kept', async () => {
  const names: string[] = [];
  const journal: Journal = (name, effect) => {
    names.push(name);
    return effect();
  };
  const turns = ['Thought: add\nAction: calculator[2 + 2]', 'Thought: done\nAnswer: 4'];
  // The same run through a journal names every effect it makes...
  const journaled = await runAgent({
    model: scriptedModel(turns),
    tools: [calculator],
    question: 'q',
    durable: { journal },
  });
  assert.equal(journaled.answer, '4');
  assert.deepEqual(names, ['step-1-model', 'step-1-tool', 'step-2-model']);
  // ...and without one, the result holds no state to resume from.
  const ordinary = await runAgent({
    model: scriptedModel(turns),
    tools: [calculator],
    question: 'q',
    approve,
  });
  assert.equal(ordinary.answer, '4');
  assert.equal(ordinary.state, undefined);
});
